/**
 * storage/v1 CSIStorageCapacity: the result of one GetCapacity call for a storage class and a topology
 * segment. The inputs of that call (storageClassName, nodeTopology) are immutable; table STORAGECLASSNAME,
 * CAPACITY.
 */
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Subdomain } from '../../validation/index.js';
import { FieldReader, immutable } from '../events/fields.js';
import { validateLabelSelector } from '../../validation/index.js';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from '../pods/quantity.js';
import { referenceType } from '../reference.js';

/** A quantity field: it must parse and may not be negative. */
export function nonNegativeQuantity(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null) return [];
  const n = parseQuantity(v);
  if (n === undefined) return [fieldError.invalid(path, v, QUANTITY_FORMAT_ERROR)];
  return n < 0 ? [fieldError.invalid(path, v, 'must be greater than or equal to 0')] : [];
}

export function validateCSIStorageCapacity(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs = validateLabelSelector(o.nodeTopology, 'nodeTopology');
  const sc = r.str(o, 'storageClassName', 'storageClassName');
  if (sc === '') errs.push(fieldError.required('storageClassName'));
  else for (const msg of isDNS1123Subdomain(sc)) errs.push(fieldError.invalid('storageClassName', sc, msg));
  errs.push(...nonNegativeQuantity(o.capacity, 'capacity'));
  errs.push(...nonNegativeQuantity(o.maximumVolumeSize, 'maximumVolumeSize'));
  return [...r.errors, ...errs];
}

export const csiStorageCapacities: ResourceType = referenceType(STORAGE_GROUP, 'v1', 'csistoragecapacities', {
  tableColumns: [
    column('StorageClassName', 'string', 'The storage class the capacity was reported for.', (o) => (typeof o.storageClassName === 'string' ? o.storageClassName : '')),
    column('Capacity', 'string', 'The capacity reported by the driver.', (o) => (o.capacity === undefined || o.capacity === null ? '<unset>' : String(o.capacity))),
  ],
  strategy: {
    validate: validateCSIStorageCapacity,
    validateUpdate: (o, old) => [
      ...immutable('nodeTopology', o.nodeTopology, old.nodeTopology),
      ...immutable('storageClassName', o.storageClassName, old.storageClassName),
    ],
  },
});
