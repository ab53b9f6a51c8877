/** core/v1 ReplicationController: the older ReplicaSet, whose selector is a plain label map. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { validateLabels } from '../../validation/index.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { labelMapString } from '../../../selectors/index.js';
import { containerColumns, count, mapSelectorColumn } from './workload-table.js';
import { child, defaultValue, isAbsent, nonNegativeInt, rec, validateRunningTemplate } from './workload-validation.js';

const nonEmptyMap = (v: unknown): v is Record<string, unknown> => isObject(v) && Object.keys(v).length > 0;
/** Absent or `{}`: what the reference treats as an empty map (a value of another type is left to validation). */
const emptyMap = (v: unknown): boolean => isAbsent(v) || (isObject(v) && Object.keys(v).length === 0);

/** The reference's v1 defaults: an empty selector and empty object labels come from the template labels. */
export function applyReplicationControllerDefaults(o: ApiObject): void {
  const spec = child(o, 'spec');
  if (!spec) return;
  const labels = rec(rec(spec.template).metadata).labels;
  if (isObject(labels)) {
    if (emptyMap(spec.selector)) spec.selector = { ...labels };
    if (emptyMap(o.metadata?.labels)) o.metadata = { ...(o.metadata ?? {}), labels: { ...labels } as Record<string, string> };
  }
  defaultValue(spec, 'replicas', 1);
  defaultPodTemplate(spec.template);
}

/** `ValidateReplicationControllerSpec`. */
export function validateReplicationController(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  nonNegativeInt(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  const selectorErrors = validateLabels(spec.selector, 'spec.selector');
  errs.push(...selectorErrors);
  if (selectorErrors.length === 0 && !nonEmptyMap(spec.selector)) errs.push(fieldError.required('spec.selector'));
  nonNegativeInt(errs, 'spec.replicas', spec.replicas);
  if (isAbsent(spec.template)) {
    errs.push(fieldError.required('spec.template'));
    return errs;
  }
  if (nonEmptyMap(spec.selector) && selectorErrors.length === 0) {
    const selector = spec.selector;
    const labels = rec(rec(rec(spec.template).metadata).labels);
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) {
      errs.push(fieldError.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
  }
  errs.push(...validateRunningTemplate(spec.template, 'spec.template', 'ReplicationController'));
  return errs;
}

const replicationControllerColumns = [
  column('Desired', 'integer', 'Number of pods wanted.', (o) => count(o, 'spec.replicas')),
  column('Current', 'integer', 'Number of pods that exist.', (o) => count(o, 'status.replicas')),
  column('Ready', 'integer', 'Number of ready pods.', (o) => count(o, 'status.readyReplicas')),
  ...containerColumns('spec.template.spec.containers'),
  mapSelectorColumn(),
];

export const replicationcontrollers: ResourceType = referenceType('', 'v1', 'replicationcontrollers', {
  shortNames: ['rc'],
  categories: ['all'],
  tableColumns: replicationControllerColumns,
  scale: {
    specReplicasPath: 'spec.replicas',
    statusReplicasPath: 'status.replicas',
    selector: (o) => labelMapString(rec(o.spec).selector) || undefined,
  },
  strategy: {
    tracksGeneration: true,
    prepareForCreate(o) {
      applyReplicationControllerDefaults(o);
      o.status = { replicas: 0 };
    },
    prepareForUpdate: applyReplicationControllerDefaults,
    validate: validateReplicationController,
  },
});
