/**
 * Object metadata validation (spec 2.1) with the reference server's rules, field paths and wording.
 * Returns every problem found rather than throwing, so a strategy can merge these with its own field errors
 * and the store can raise one `invalid(...)` naming all of them.
 */
import { optionalBoolean } from './values.js';
import { fieldError, type FieldError } from '../../errors/index.js';
import { isDNS1123Label, isLabelValue, isQualifiedName, validateName, type NameRule } from './names.js';

export interface ObjectMetaOptions {
  /** Namespaced types require `metadata.namespace`; cluster types forbid it. */
  namespaced: boolean;
  nameRule: NameRule;
  /** Default true. False skips the "name or generateName is required" check (e.g. before a name is generated). */
  requireName?: boolean;
}

/** The reference's limit on the summed byte size of all annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string) => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

const STRING_FIELDS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'] as const;

/** Validates metadata for a create (or any full object): naming, scope, and the shared checks. */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions, path = 'metadata'): FieldError[] {
  const m = asMeta(meta, path);
  if (!m.ok) return m.errors;
  const errs = commonChecks(m.meta, path);
  const str = (k: string) => stringField(m.meta, k);

  const generateName = str('generateName');
  if (generateName) {
    for (const msg of validateName(opts.nameRule, generateName, true)) {
      errs.push(fieldError.invalid(`${path}.generateName`, generateName, msg));
    }
  }
  const name = str('name');
  if (name) {
    for (const msg of validateName(opts.nameRule, name)) errs.push(fieldError.invalid(`${path}.name`, name, msg));
  } else if (opts.requireName !== false && !generateName && isAbsent(own(m.meta, 'name'))) {
    errs.push(fieldError.required(`${path}.name`, 'Required value: name or generateName is required'));
  }

  const namespace = str('namespace');
  if (opts.namespaced) {
    if (namespace) {
      for (const msg of isDNS1123Label(namespace)) errs.push(fieldError.invalid(`${path}.namespace`, namespace, msg));
    } else if (isAbsent(own(m.meta, 'namespace'))) {
      errs.push(fieldError.required(`${path}.namespace`));
    }
  } else if (namespace) {
    errs.push(fieldError.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  return errs;
}

/**
 * Validates metadata for an update: identity fields may not change, no finalizer may be added once deletion
 * started, plus the shared checks. Name and scope rules are only re-run when `opts` is given, because the
 * name cannot change and the old object already passed them.
 */
export function validateObjectMetaUpdate(
  newMeta: unknown,
  oldMeta: unknown,
  path = 'metadata',
  opts?: ObjectMetaOptions,
): FieldError[] {
  const n = asMeta(newMeta, path);
  if (!n.ok) return n.errors;
  const errs = opts ? validateObjectMeta(newMeta, opts, path) : commonChecks(n.meta, path);
  const o: Obj = isObject(oldMeta) ? oldMeta : {};

  for (const k of ['name', 'namespace', 'uid'] as const) {
    const nv = normalizeEmpty(own(n.meta, k));
    if (nv !== normalizeEmpty(own(o, k))) errs.push(fieldError.invalid(`${path}.${k}`, nv ?? '', 'field is immutable'));
  }
  const nts = normalizeEmpty(own(n.meta, 'creationTimestamp'));
  if (!sameTimestamp(nts, normalizeEmpty(own(o, 'creationTimestamp')))) {
    errs.push(fieldError.invalid(`${path}.creationTimestamp`, nts ?? null, 'field is immutable'));
  }

  if (!isMissing(own(o, 'deletionTimestamp'))) {
    const before = new Set(stringsOf(own(o, 'finalizers')));
    const added = [...new Set(stringsOf(own(n.meta, 'finalizers')))].filter((f) => !before.has(f)).sort();
    if (added.length > 0) {
      errs.push(
        fieldError.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      );
    }
  }
  return errs;
}

/** Missing and null metadata decode to an empty ObjectMeta in the reference; anything else must be an object. */
function asMeta(meta: unknown, path: string): { ok: true; meta: Obj } | { ok: false; errors: FieldError[] } {
  if (meta === undefined || meta === null) return { ok: true, meta: {} };
  if (!isObject(meta)) return { ok: false, errors: [fieldError.typeInvalid(path, meta, 'must be an object')] };
  return { ok: true, meta };
}

/** Checks shared by create and update: field types, labels, annotations, finalizers, owner references. */
function commonChecks(m: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of STRING_FIELDS) {
    const v = own(m, k);
    if (!isMissing(v) && typeof v !== 'string') errs.push(fieldError.typeInvalid(`${path}.${k}`, v, 'must be of type string'));
  }
  const generation = own(m, 'generation');
  if (!isMissing(generation)) {
    if (typeof generation !== 'number' || !Number.isInteger(generation)) {
      errs.push(fieldError.typeInvalid(`${path}.generation`, generation, 'must be of type integer'));
    } else if (generation < 0) {
      errs.push(fieldError.invalid(`${path}.generation`, generation, 'must be greater than or equal to 0'));
    }
  }
  errs.push(...validateLabels(own(m, 'labels'), `${path}.labels`));
  errs.push(...validateAnnotations(own(m, 'annotations'), `${path}.annotations`));
  errs.push(...validateFinalizers(own(m, 'finalizers'), `${path}.finalizers`));
  errs.push(...validateOwnerReferences(own(m, 'ownerReferences'), `${path}.ownerReferences`));
  return errs;
}

/** Label keys are qualified names and values label values; the field is the map, the message names the entry. */
export function validateLabels(labels: unknown, field: string): FieldError[] {
  const { errors, entries } = stringMap(labels, field);
  for (const [k, v] of entries) {
    for (const msg of isQualifiedName(k)) errors.push(fieldError.invalid(field, k, msg));
    for (const msg of isLabelValue(v)) errors.push(fieldError.invalid(field, v, msg));
  }
  return errors;
}

/** Annotation keys are qualified names ignoring case; keys plus values are capped at 256 KiB in total. */
export function validateAnnotations(annotations: unknown, field: string): FieldError[] {
  const { errors, entries } = stringMap(annotations, field);
  let size = 0;
  for (const [k, v] of entries) {
    for (const msg of isQualifiedName(k.toLowerCase())) errors.push(fieldError.invalid(field, k, msg));
    size += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8');
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errors.push(fieldError.tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errors;
}

/** Finalizers are qualified names; the list is a set, so a repeated entry is an error. */
export function validateFinalizers(finalizers: unknown, field: string): FieldError[] {
  if (isMissing(finalizers)) return [];
  if (!Array.isArray(finalizers)) return [fieldError.typeInvalid(field, finalizers, 'must be an array of strings')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  finalizers.forEach((f: unknown, i) => {
    if (typeof f !== 'string') {
      errs.push(fieldError.typeInvalid(`${field}[${i}]`, f, 'must be of type string'));
      return;
    }
    for (const msg of isQualifiedName(f)) errs.push(fieldError.invalid(field, f, msg));
    if (seen.has(f)) errs.push(fieldError.duplicate(`${field}[${i}]`, f));
    seen.add(f);
  });
  return errs;
}

/** Owner references need apiVersion (with a version), kind, name and uid; at most one may be the controller. */
export function validateOwnerReferences(refs: unknown, field: string): FieldError[] {
  if (isMissing(refs)) return [];
  if (!Array.isArray(refs)) return [fieldError.typeInvalid(field, refs, 'must be an array of objects')];
  const errs: FieldError[] = [];
  let firstController = '';
  refs.forEach((ref: unknown, i) => {
    const p = `${field}[${i}]`;
    if (!isObject(ref)) {
      errs.push(fieldError.typeInvalid(p, ref, 'must be an object'));
      return;
    }
    const s = (k: string) => {
      const v = own(ref, k);
      if (isMissing(v)) return '';
      if (typeof v === 'string') return v;
      errs.push(fieldError.typeInvalid(`${p}.${k}`, v, 'must be of type string'));
      return undefined;
    };
    const apiVersion = s('apiVersion');
    if (apiVersion !== undefined && versionOf(apiVersion) === '') {
      errs.push(fieldError.invalid(`${p}.apiVersion`, apiVersion, 'version must not be empty'));
    }
    const kind = s('kind');
    if (kind === '') errs.push(fieldError.invalid(`${p}.kind`, kind, 'kind must not be empty'));
    const name = s('name');
    if (name === '') errs.push(fieldError.invalid(`${p}.name`, name, 'name must not be empty'));
    const uid = s('uid');
    if (uid === '') errs.push(fieldError.invalid(`${p}.uid`, uid, 'uid must not be empty'));
    for (const k of ['controller', 'blockOwnerDeletion']) {
      errs.push(...optionalBoolean(`${p}.${k}`, own(ref, k)));
    }
    if (own(ref, 'controller') === true) {
      const current = `${kind ?? ''}/${name ?? ''}`;
      if (firstController) {
        errs.push(
          fieldError.invalid(
            field,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  });
  return errs;
}

/** `v1` -> `v1`, `apps/v1` -> `v1`; anything with more than one '/' is not a group/version at all. */
function versionOf(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return parts[0] ?? '';
  if (parts.length === 2) return parts[1] ?? '';
  return '';
}

/** A string-to-string map; null/absent is an empty map. Entries that are not strings are reported and skipped. */
function stringMap(v: unknown, field: string): { errors: FieldError[]; entries: [string, string][] } {
  if (isMissing(v)) return { errors: [], entries: [] };
  if (!isObject(v)) {
    return { errors: [fieldError.typeInvalid(field, v, 'must be an object mapping strings to strings')], entries: [] };
  }
  const errors: FieldError[] = [];
  const entries: [string, string][] = [];
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === 'string') entries.push([k, val]);
    else errors.push(fieldError.typeInvalid(`${field}[${k}]`, val, 'must be of type string'));
  }
  return { errors, entries };
}

const isMissing = (v: unknown): v is undefined | null => v === undefined || v === null;
/** Absent, null and '' all mean "not set" (the reference's zero value). */
const isAbsent = (v: unknown) => isMissing(v) || v === '';
const normalizeEmpty = (v: unknown) => (isAbsent(v) ? undefined : v);
const stringField = (m: Obj, k: string) => {
  const v = own(m, k);
  return typeof v === 'string' ? v : '';
};
const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** Timestamps are compared at second precision as instants, so equivalent RFC 3339 spellings are equal. */
function sameTimestamp(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const ta = Date.parse(a);
  const tb = Date.parse(b);
  return !Number.isNaN(ta) && Math.floor(ta / 1000) === Math.floor(tb / 1000);
}
