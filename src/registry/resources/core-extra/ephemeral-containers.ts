/**
 * The pods/ephemeralcontainers view: the Pod as stored, but a write changes nothing except
 * `spec.ephemeralContainers`, and existing entries can only be kept as they are (debug containers are
 * added, never edited or removed).
 */
import { isDeepStrictEqual } from 'node:util';
import { MIRROR_POD_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Label } from '../../validation/index.js';
import { applyPodDefaults } from '../pods/defaults.js';
import { pods } from '../pods/index.js';
import { notFound as notFoundField } from '../pods/validation.js';
import { rec, text } from './volume-common.js';

/** Container fields an ephemeral container may not use: it must not take part in the pod's lifecycle. */
const FORBIDDEN_FIELDS = ['ports', 'resources', 'resizePolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'restartPolicy'];
const FORBIDDEN_DETAIL = 'cannot be set for an Ephemeral Container';

const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(rec) : []);
/** Defaulting leaves `resources: {}` behind; only a value with content counts as set. */
const isSet = (v: unknown) =>
  v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0) && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** Takes everything from the stored pod but the identity fields and the ephemeral containers. */
export function keepAllButEphemeralContainers(o: ApiObject, old: ApiObject): void {
  const ephemeral = rec(o.spec).ephemeralContainers;
  const meta = o.metadata ?? {};
  for (const k of Object.keys(o)) if (k !== 'apiVersion' && k !== 'kind') delete o[k];
  Object.assign(o, structuredClone(old));
  o.metadata = { ...structuredClone(old.metadata ?? {}), name: meta.name, namespace: meta.namespace, uid: meta.uid ?? old.metadata?.uid };
  if (meta.resourceVersion !== undefined) o.metadata.resourceVersion = meta.resourceVersion;
  const spec = rec(o.spec);
  if (ephemeral === undefined || ephemeral === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = ephemeral;
  o.spec = spec;
  applyPodDefaults(o);
}

/** The rules for each ephemeral container of the new pod. */
function validateEntries(o: ApiObject): FieldError[] {
  const spec = rec(o.spec);
  const others = new Set([...list(spec.containers), ...list(spec.initContainers)].map((c) => text(c.name)));
  const errs: FieldError[] = [];
  list(spec.ephemeralContainers).forEach((c, i) => {
    const p = `spec.ephemeralContainers[${i}]`;
    if (typeof c.name === 'string' && c.name !== '') for (const msg of isDNS1123Label(c.name)) errs.push(fieldError.invalid(`${p}.name`, c.name, msg));
    for (const f of FORBIDDEN_FIELDS) if (isSet(c[f])) errs.push(fieldError.forbidden(`${p}.${f}`, FORBIDDEN_DETAIL));
    list(c.volumeMounts).forEach((m, j) => {
      for (const f of ['subPath', 'subPathExpr']) if (isSet(m[f])) errs.push(fieldError.forbidden(`${p}.volumeMounts[${j}].${f}`, FORBIDDEN_DETAIL));
    });
    const target = text(c.targetContainerName);
    if (target !== '' && !others.has(target)) errs.push(notFoundField(`${p}.targetContainerName`, target));
  });
  return errs;
}

/** Entries may be added; an existing one (matched by name) may be neither removed nor changed. */
export function validateEphemeralContainersUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  if (typeof rec(old.metadata?.annotations)[MIRROR_POD_ANNOTATION] === 'string') {
    return [fieldError.forbidden('', 'static pods do not support ephemeral containers')];
  }
  const errs = validateEntries(o);
  const byName = new Map(list(rec(o.spec).ephemeralContainers).map((c) => [text(c.name), c]));
  for (const before of list(rec(old.spec).ephemeralContainers)) {
    const name = text(before.name);
    const now = byName.get(name);
    if (!now) errs.push(fieldError.forbidden('spec.ephemeralContainers', `existing ephemeral containers "${name}" may not be removed`));
    else if (!isDeepStrictEqual(now, before)) errs.push(fieldError.forbidden(`spec.ephemeralContainers[${name}]`, `existing ephemeral containers "${name}" may not be changed`));
  }
  return errs;
}

/** The Pod type as the ephemeralcontainers subresource writes it (same storage, other update rules). */
export const podEphemeralContainersView: ResourceType = {
  ...pods,
  subresources: [...pods.subresources, 'ephemeralcontainers'],
  strategy: {
    ...pods.strategy,
    prepareForUpdate: keepAllButEphemeralContainers,
    validateUpdate: validateEphemeralContainersUpdate,
  },
};
