/**
 * node/v1 RuntimeClass: a required, immutable `handler` (a DNS label naming the runtime configuration),
 * the pod overhead it adds (quantities) and its scheduling constraints; table HANDLER.
 */
import { NODE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Label, isQualifiedName, validateLabels } from '../../validation/index.js';
import { FieldReader, immutable } from '../events/fields.js';
import { validateTolerations } from '../pods/validation.js';
import { referenceType } from '../reference.js';
import { nonNegativeQuantity } from '../storage/csi-storage-capacity.js';

function validateOverhead(r: FieldReader, o: ApiObject): FieldError[] {
  const overhead = r.obj(o, 'overhead', 'overhead');
  const podFixed = r.obj(overhead, 'podFixed', 'overhead.podFixed') ?? {};
  const errs: FieldError[] = [];
  for (const [name, q] of Object.entries(podFixed)) {
    const at = `overhead.podFixed[${name}]`;
    for (const msg of isQualifiedName(name)) errs.push(fieldError.invalid(at, name, msg));
    if (q === undefined || q === null) errs.push(fieldError.required(at));
    else errs.push(...nonNegativeQuantity(q, at));
  }
  return errs;
}

export function validateRuntimeClass(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const handler = r.str(o, 'handler', 'handler');
  if (handler === '') errs.push(fieldError.required('handler'));
  else for (const msg of isDNS1123Label(handler)) errs.push(fieldError.invalid('handler', handler, msg));
  errs.push(...validateOverhead(r, o));
  const scheduling = r.obj(o, 'scheduling', 'scheduling');
  if (scheduling) {
    errs.push(...validateLabels(scheduling.nodeSelector, 'scheduling.nodeSelector'));
    validateTolerations(scheduling.tolerations, 'scheduling.tolerations', errs);
  }
  return [...r.errors, ...errs];
}

export const runtimeClasses: ResourceType = referenceType(NODE_GROUP, 'v1', 'runtimeclasses', {
  tableColumns: [column('Handler', 'string', 'The runtime configuration that runs pods of this class.', (o) => (typeof o.handler === 'string' ? o.handler : ''))],
  strategy: {
    validate: validateRuntimeClass,
    validateUpdate: (o, old) => immutable('handler', o.handler, old.handler),
  },
});
