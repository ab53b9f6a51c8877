/** apps/v1 ReplicaSet: keeps a number of pods matching a selector running. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { containerColumns, count, structuredSelectorColumn } from './workload-table.js';
import {
  checkSelector,
  checkTemplateLabels,
  child,
  defaultValue,
  immutableSelector,
  nonNegativeInt,
  rec,
  validateRunningTemplate,
  type Obj,
  STRUCTURED_SCALE,
} from './workload-validation.js';

export function applyReplicaSetDefaults(o: ApiObject): void {
  const spec = child(o, 'spec');
  if (!spec) return;
  defaultValue(spec, 'replicas', 1);
  defaultPodTemplate(spec.template);
}

/** `ValidateReplicaSetSpec`; its empty-selector message names a deployment, as the reference's does. */
export function validateReplicaSet(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  nonNegativeInt(errs, 'spec.replicas', spec.replicas);
  nonNegativeInt(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  const sel = checkSelector(spec.selector, 'spec.selector', { kind: 'deployment', unparsable: 'invalid label selector' });
  errs.push(...sel.errors);
  if (sel.selector) {
    errs.push(...checkTemplateLabels(sel.selector, spec.template, 'spec.template'));
    errs.push(...validateRunningTemplate(spec.template, 'spec.template', 'ReplicaSet'));
  }
  return errs;
}

const replicaSetColumns = [
  column('Desired', 'integer', 'Number of pods wanted.', (o) => count(o, 'spec.replicas')),
  column('Current', 'integer', 'Number of pods that exist.', (o) => count(o, 'status.replicas')),
  column('Ready', 'integer', 'Number of ready pods.', (o) => count(o, 'status.readyReplicas')),
  ...containerColumns('spec.template.spec.containers'),
  structuredSelectorColumn(),
];

export const replicasets: ResourceType = referenceType('apps', 'v1', 'replicasets', {
  shortNames: ['rs'],
  categories: ['all'],
  tableColumns: replicaSetColumns,
  scale: STRUCTURED_SCALE,
  strategy: {
    tracksGeneration: true,
    prepareForCreate(o) {
      applyReplicaSetDefaults(o);
      o.status = { replicas: 0 };
    },
    prepareForUpdate: applyReplicaSetDefaults,
    validate: validateReplicaSet,
    validateUpdate: (o, old) => immutableSelector(o as Obj, old as Obj),
  },
});
