/** core/v1 PersistentVolumeClaim: a user's request for storage, bound to a PersistentVolume. */
import { isDeepStrictEqual } from 'node:util';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { labelSelectorFromObject } from '../../../selectors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { parseQuantity } from '../pods/quantity.js';
import { objectAt, referenceType } from '../reference.js';
import { quantityAt, quantityText } from './resource-names.js';
import {
  accessModesText,
  isAbsent,
  orUnset,
  phaseText,
  rec,
  storageClassOf,
  text,
  validateAccessModes,
  validateClassName,
  validateVolumeMode,
  type Obj,
} from './volume-common.js';

/** The reference's message for a forbidden spec change (the claim's size may grow once it is bound). */
export const PVC_SPEC_IMMUTABLE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

/** The reference reports the storage request at `spec.resources[storage]`. */
const STORAGE_PATH = 'spec.resources[storage]';

function validateSelector(v: unknown): FieldError[] {
  if (v === undefined || v === null) return [];
  try {
    labelSelectorFromObject(v as Parameters<typeof labelSelectorFromObject>[0], 'spec.selector');
    return [];
  } catch (e) {
    const causes = (e as { details?: { causes?: { field?: string; message: string }[] } }).details?.causes ?? [];
    return causes.map((c) => ({ type: 'FieldValueInvalid', field: c.field ?? 'spec.selector', message: c.message }));
  }
}

export function validatePersistentVolumeClaim(o: ApiObject): FieldError[] {
  const spec = rec(o.spec);
  const errs = [...validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required'), ...validateSelector(spec.selector)];
  const storage = rec(rec(spec.resources).requests).storage;
  if (storage === undefined || storage === null) errs.push(fieldError.required(STORAGE_PATH));
  else {
    const q = quantityAt(storage, STORAGE_PATH, errs);
    if (q !== undefined && q <= 0) errs.push(fieldError.invalid(STORAGE_PATH, storage, 'must be greater than zero'));
  }
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  errs.push(...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  if (spec.volumeAttributesClassName === '') errs.push(fieldError.required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
  else errs.push(...validateClassName(spec.volumeAttributesClassName, 'spec.volumeAttributesClassName'));
  return errs;
}

const storageRequest = (spec: Obj): unknown => rec(rec(spec.resources).requests).storage;

/**
 * After creation only these may change: `volumeName` once (binding), the storage request of a bound claim
 * (never below its previous value), and `volumeAttributesClassName` (never back to unset).
 */
export function validatePersistentVolumeClaimUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const spec = rec(o.spec);
  const oldSpec = rec(old.spec);
  const errs: FieldError[] = [];
  const bound = rec(o.status).phase === 'Bound';
  // Compare what may not change: blank out, in both copies, the fields that may.
  const now = structuredClone(spec);
  const before = structuredClone(oldSpec);
  if (isAbsent(before.volumeName)) {
    delete now.volumeName;
    delete before.volumeName;
  }
  delete now.volumeAttributesClassName;
  delete before.volumeAttributesClassName;
  if (bound) {
    for (const s of [now, before]) {
      const requests = rec(rec(s.resources).requests);
      delete requests.storage;
    }
  }
  if (!isDeepStrictEqual(now, before)) errs.push(fieldError.forbidden('spec', PVC_SPEC_IMMUTABLE));
  const newSize = parseQuantity(storageRequest(spec));
  const oldSize = parseQuantity(storageRequest(oldSpec));
  if (newSize !== undefined && oldSize !== undefined && newSize < oldSize) {
    errs.push(fieldError.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  }
  if (!isAbsent(oldSpec.volumeAttributesClassName) && isAbsent(spec.volumeAttributesClassName)) {
    errs.push(fieldError.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  if (!isDeepStrictEqual(spec.volumeMode, oldSpec.volumeMode)) errs.push(fieldError.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  const annotations = rec(o.metadata?.annotations);
  const oldAnnotations = rec(old.metadata?.annotations);
  if (annotations[BETA_STORAGE_CLASS_ANNOTATION] !== oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION]) {
    errs.push(fieldError.invalid(`metadata.annotations.${BETA_STORAGE_CLASS_ANNOTATION}`, annotations[BETA_STORAGE_CLASS_ANNOTATION] ?? '', 'field is immutable'));
  }
  return errs;
}

function defaultSpec(o: ApiObject): void {
  const spec = objectAt(o, ['spec'], true);
  if (spec && (spec.volumeMode === undefined || spec.volumeMode === null)) spec.volumeMode = 'Filesystem';
}

/** Capacity and access modes come from the bound volume (status); before binding the cells stay empty. */
const boundCell = (o: ApiObject, cell: (status: Obj) => string): string => (text(rec(o.spec).volumeName) === '' ? '' : cell(rec(o.status)));

export const persistentVolumeClaims: ResourceType = referenceType('', 'v1', 'persistentvolumeclaims', {
  shortNames: ['pvc'],
  strategy: {
    prepareForCreate(o) {
      defaultSpec(o);
      o.status = { phase: 'Pending' };
    },
    prepareForUpdate: defaultSpec,
    prepareForStatusUpdate(o) {
      const status = objectAt(o, ['status'], true);
      if (status && isAbsent(status.phase)) status.phase = 'Pending';
    },
    validate: validatePersistentVolumeClaim,
    validateUpdate: validatePersistentVolumeClaimUpdate,
  },
  tableColumns: [
    column('Status', 'string', 'Phase of the claim.', phaseText),
    column('Volume', 'string', 'The volume bound to the claim.', (o) => text(rec(o.spec).volumeName)),
    column('Capacity', 'string', 'Storage of the bound volume.', (o) => boundCell(o, (s) => quantityText(rec(s.capacity).storage))),
    column('Access Modes', 'string', 'Access modes of the bound volume.', (o) => boundCell(o, (s) => accessModesText(s.accessModes))),
    column('StorageClass', 'string', 'Storage class of the claim.', storageClassOf),
    column('VolumeAttributesClass', 'string', 'Volume attributes class of the claim.', (o) => orUnset(rec(o.spec).volumeAttributesClassName)),
    column('VolumeMode', 'string', 'Filesystem or raw block device.', (o) => orUnset(rec(o.spec).volumeMode), 1),
  ],
});
