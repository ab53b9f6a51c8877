/**
 * storage/v1 StorageClass: defaults (reclaimPolicy Delete, volumeBindingMode Immediate), an immutable
 * provisioner, parameters, reclaim policy and binding mode, and the reference's table.
 */
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isQualifiedName } from '../../validation/index.js';
import { FieldReader, immutable, isRec } from '../events/fields.js';
import { referenceType } from '../reference.js';

export const RECLAIM_POLICIES = ['Delete', 'Retain'];
export const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

export function defaultStorageClass(o: ApiObject): void {
  if (o.reclaimPolicy === undefined || o.reclaimPolicy === null) o.reclaimPolicy = 'Delete';
  if (o.volumeBindingMode === undefined || o.volumeBindingMode === null) o.volumeBindingMode = 'Immediate';
}

function validateParameters(r: FieldReader, o: ApiObject): FieldError[] {
  const params = r.obj(o, 'parameters', 'parameters');
  if (!params) return [];
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMETERS) return [fieldError.tooLong('parameters', MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k === '') errs.push(fieldError.invalid('parameters', k, 'field can not be empty.'));
    if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`parameters[${k}]`, v, 'must be of type string'));
    size += k.length + String(v).length;
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(fieldError.tooLong('parameters', MAX_PARAMETERS_SIZE));
  return errs;
}

/** allowedTopologies: each term's label requirements name a label key and at least one distinct value. */
function validateAllowedTopologies(r: FieldReader, o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  r.list(o, 'allowedTopologies', 'allowedTopologies').forEach((term, i) => {
    const path = `allowedTopologies[${i}].matchLabelExpressions`;
    r.list(isRec(term) ? term : {}, 'matchLabelExpressions', path).forEach((req, j) => {
      const at = `${path}[${j}]`;
      const rq = isRec(req) ? req : {};
      const key = r.str(rq, 'key', `${at}.key`);
      for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(`${at}.key`, key, msg));
      const values = r.strList(rq, 'values', `${at}.values`);
      if (values.length === 0) errs.push(fieldError.required(`${at}.values`, 'Required value: must specify as least one value'));
      values.forEach((v, k) => {
        if (values.indexOf(v) !== k) errs.push(fieldError.duplicate(`${at}.values`, v));
      });
    });
  });
  return errs;
}

export function validateStorageClass(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const provisioner = r.str(o, 'provisioner', 'provisioner');
  if (provisioner === '') errs.push(fieldError.required('provisioner'));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) errs.push(fieldError.invalid('provisioner', provisioner.toLowerCase(), msg));
  errs.push(...validateParameters(r, o));
  const reclaim = r.str(o, 'reclaimPolicy', 'reclaimPolicy');
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) errs.push(fieldError.notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  const mode = r.str(o, 'volumeBindingMode', 'volumeBindingMode');
  if (mode === '') errs.push(fieldError.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(mode)) errs.push(fieldError.notSupported('volumeBindingMode', mode, BINDING_MODES));
  r.strList(o, 'mountOptions', 'mountOptions');
  errs.push(...validateAllowedTopologies(r, o));
  return [...r.errors, ...errs];
}

export function validateStorageClassUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!jsonEqual(o.parameters ?? {}, old.parameters ?? {})) errs.push(fieldError.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (o.provisioner !== old.provisioner) errs.push(fieldError.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (o.reclaimPolicy !== old.reclaimPolicy) errs.push(fieldError.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  errs.push(...immutable('volumeBindingMode', o.volumeBindingMode, old.volumeBindingMode));
  return errs;
}

const text = (v: unknown, fallback: string) => (typeof v === 'string' && v !== '' ? v : fallback);

export const storageClasses: ResourceType = referenceType(STORAGE_GROUP, 'v1', 'storageclasses', {
  shortNames: ['sc'],
  tableColumns: [
    column('Provisioner', 'string', 'The volume plugin that provisions volumes of this class.', (o) => text(o.provisioner, '')),
    column('ReclaimPolicy', 'string', 'What happens to provisioned volumes when they are released.', (o) => text(o.reclaimPolicy, 'Delete')),
    column('VolumeBindingMode', 'string', 'When volumes are bound and provisioned.', (o) => text(o.volumeBindingMode, 'Immediate')),
    column('AllowVolumeExpansion', 'string', 'Whether volumes of this class may grow.', (o) => o.allowVolumeExpansion === true),
  ],
  strategy: {
    prepareForCreate: defaultStorageClass,
    prepareForUpdate: defaultStorageClass,
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
  },
});
