/** Pod update rules: a running pod's spec is fixed except for a few fields (the reference's ValidatePodUpdate). */
import { isDeepStrictEqual } from 'node:util';
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';

type Obj = Record<string, unknown>;

const UPDATABLE = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** The reference's message, joined with ',' as it does. */
export const POD_UPDATE_FORBIDDEN = `pod updates may not change fields other than ${UPDATABLE.join(',')}`;

const copyField = (dst: Obj, src: Obj, key: string) => {
  if (src[key] === undefined) delete dst[key];
  else dst[key] = src[key];
};

/** Replaces the images of `dst` by those of `src` when both lists have the same shape. */
function copyImages(dst: unknown, src: unknown): void {
  if (!Array.isArray(dst) || !Array.isArray(src) || dst.length !== src.length) return;
  dst.forEach((c: unknown, i) => {
    const old: unknown = src[i];
    if (isObject(c) && isObject(old)) copyField(c, old, 'image');
  });
}

/** Paths where `a` and `b` differ, for the message: which fields the client tried to change. */
function diffPaths(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length >= 5 || isDeepStrictEqual(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v: unknown, i) => diffPaths(v, b[i], `${path}[${i}]`, out));
  } else if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffPaths(a[k], b[k], `${path}.${k}`, out);
  } else {
    out.push(path);
  }
}

/** Every old toleration must still be there, unchanged except for tolerationSeconds. */
function onlyAddedTolerations(now: unknown, before: unknown): FieldError[] {
  const next = Array.isArray(now) ? now : [];
  for (const old of Array.isArray(before) ? before : []) {
    if (!isObject(old)) continue;
    const kept = next.some((t: unknown) => {
      if (!isObject(t)) return false;
      const { tolerationSeconds: _a, ...rest } = t;
      const { tolerationSeconds: _b, ...oldRest } = old;
      return isDeepStrictEqual(rest, oldRest);
    });
    if (!kept) return [fieldError.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  }
  return [];
}

export function validatePodUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec: Obj = isObject(o.spec) ? o.spec : {};
  const oldSpec: Obj = isObject(old.spec) ? old.spec : {};
  const errs: FieldError[] = [];

  const ads = spec.activeDeadlineSeconds;
  const oldAds = oldSpec.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (typeof ads === 'number' && typeof oldAds === 'number' && ads > oldAds) {
      errs.push(fieldError.invalid('spec.activeDeadlineSeconds', ads, 'must be less than or equal to previous value'));
    }
  } else if (oldAds !== undefined && oldAds !== null) {
    errs.push(fieldError.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  errs.push(...onlyAddedTolerations(spec.tolerations, oldSpec.tolerations));

  // Take the mutable fields from the old spec; whatever still differs is a forbidden change.
  const munged = structuredClone(spec);
  copyImages(munged.containers, oldSpec.containers);
  copyImages(munged.initContainers, oldSpec.initContainers);
  for (const k of ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds']) copyField(munged, oldSpec, k);
  if (!isDeepStrictEqual(munged, oldSpec)) {
    const changed: string[] = [];
    diffPaths(munged, oldSpec, 'spec', changed);
    errs.push(fieldError.forbidden('spec', `${POD_UPDATE_FORBIDDEN}\n  changed: ${changed.join(', ')}`));
  }
  return errs;
}
