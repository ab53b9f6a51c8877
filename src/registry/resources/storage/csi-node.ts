/**
 * storage/v1 CSINode: the drivers registered on a node (unique names, a node ID each, topology keys), whose
 * entries do not change once registered; table DRIVERS.
 */
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isQualifiedName } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { csiDriverNameErrors } from './csi-driver.js';

/** The reference accepts node IDs up to 256 characters (192 before 1.24). */
const MAX_NODE_ID = 256;

function validateDriver(r: FieldReader, d: Rec, path: string, seen: Set<string>): FieldError[] {
  const name = r.str(d, 'name', `${path}.name`);
  const errs = csiDriverNameErrors(name, `${path}.name`);
  const nodeID = r.str(d, 'nodeID', `${path}.nodeID`);
  if (nodeID === '') errs.push(fieldError.required(`${path}.nodeID`));
  if (nodeID.length > MAX_NODE_ID) errs.push(fieldError.invalid(`${path}.nodeID`, nodeID, `must be ${MAX_NODE_ID} characters or less`));
  const allocatable = r.obj(d, 'allocatable', `${path}.allocatable`);
  const count = r.int(allocatable, 'count', `${path}.allocatable.count`);
  if (count !== undefined && count < 0) errs.push(fieldError.invalid(`${path}.allocatable.count`, count, 'must be greater than or equal to 0'));
  if (seen.has(name)) errs.push(fieldError.duplicate(`${path}.name`, name));
  seen.add(name);
  const keys = new Set<string>();
  for (const key of r.strList(d, 'topologyKeys', `${path}.topologyKeys`)) {
    if (key === '') errs.push(fieldError.required(path));
    if (keys.has(key)) errs.push(fieldError.duplicate(path, key));
    keys.add(key);
    for (const msg of isQualifiedName(key)) errs.push(fieldError.invalid(path, key, msg));
  }
  return errs;
}

export function validateCSINode(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  r.list(spec, 'drivers', 'spec.drivers').forEach((d, i) => {
    if (isRec(d)) errs.push(...validateDriver(r, d, `spec.drivers[${i}]`, seen));
    else errs.push(fieldError.typeInvalid(`spec.drivers[${i}]`, d, 'must be of type object'));
  });
  return [...r.errors, ...errs];
}

const drivers = (o: ApiObject): Rec[] => (isRec(o.spec) && Array.isArray(o.spec.drivers) ? o.spec.drivers.filter(isRec) : []);

/** A registered driver may be removed or added, but not changed (the reference reports it at CSINodeDriver). */
export function validateCSINodeUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const prev of drivers(old)) {
    for (const next of drivers(o)) {
      if (prev.name === next.name && !jsonEqual(prev, next)) errs.push(fieldError.invalid('CSINodeDriver', next, 'field is immutable'));
    }
  }
  return errs;
}

export const csiNodes: ResourceType = referenceType(STORAGE_GROUP, 'v1', 'csinodes', {
  tableColumns: [column('Drivers', 'integer', 'How many CSI drivers are registered on the node.', (o) => drivers(o).length)],
  strategy: { validate: validateCSINode, validateUpdate: validateCSINodeUpdate },
});
