/** apps/v1 Deployment: declarative rollouts of a pod template through ReplicaSets. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column, pathValue } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { labelSelectorString } from '../../../selectors/index.js';
import { containerColumns, count } from './workload-table.js';
import {
  checkSelector,
  checkTemplateLabels,
  child,
  defaultString,
  defaultValue,
  immutableSelector,
  intOrPercentValue,
  isAbsent,
  nonNegativeInt,
  notOver100Percent,
  rec,
  semanticallyEqual,
  validateIntOrPercent,
  validateRunningTemplate,
  type Obj,
  STRUCTURED_SCALE,
  defaultRollingUpdate,
} from './workload-validation.js';

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate'];

/** The reference's apps/v1 defaults, applied to every decoded object (create and update). */
export function applyDeploymentDefaults(o: ApiObject): void {
  const spec = child(o, 'spec');
  if (!spec) return;
  defaultValue(spec, 'replicas', 1);
  defaultRollingUpdate(child(spec, 'strategy'), '25%', '25%');
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultValue(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec.template);
}

function validateStrategy(strategy: unknown, errs: FieldError[]): void {
  const path = 'spec.strategy';
  if (!isObject(strategy)) {
    if (!isAbsent(strategy)) errs.push(fieldError.typeInvalid(path, strategy, 'must be an object'));
    return;
  }
  const rolling = strategy.rollingUpdate;
  if (strategy.type === 'Recreate') {
    if (!isAbsent(rolling)) errs.push(fieldError.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"));
  } else if (strategy.type === 'RollingUpdate') {
    if (!isObject(rolling)) {
      errs.push(fieldError.required(`${path}.rollingUpdate`, 'Required value: this should be defaulted and never be nil'));
      return;
    }
    const at = `${path}.rollingUpdate`;
    validateIntOrPercent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
    validateIntOrPercent(errs, `${at}.maxSurge`, rolling.maxSurge);
    if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
      errs.push(fieldError.invalid(`${at}.maxUnavailable`, rolling.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
    }
    notOver100Percent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
  } else {
    // The reference names the whole strategy here, not its type.
    errs.push(fieldError.notSupported(path, strategy, STRATEGY_TYPES));
  }
}

/** `ValidateDeploymentSpec` with the reference's paths and messages. */
export function validateDeployment(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  nonNegativeInt(errs, 'spec.replicas', spec.replicas);
  const sel = checkSelector(spec.selector, 'spec.selector', { kind: 'deployment', unparsable: 'invalid label selector' });
  errs.push(...sel.errors);
  if (sel.selector) {
    errs.push(...checkTemplateLabels(sel.selector, spec.template, 'spec.template'));
    errs.push(...validateRunningTemplate(spec.template, 'spec.template', 'ReplicaSet'));
  }
  validateStrategy(spec.strategy, errs);
  nonNegativeInt(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  nonNegativeInt(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  const deadline = spec.progressDeadlineSeconds;
  nonNegativeInt(errs, 'spec.progressDeadlineSeconds', deadline);
  const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
  if (typeof deadline === 'number' && deadline <= minReady) {
    errs.push(fieldError.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** The reference bumps the generation for annotation changes too: they are copied to the ReplicaSets. */
function bumpOnAnnotationChange(o: ApiObject, old: ApiObject): void {
  if (semanticallyEqual(o.metadata?.annotations, old.metadata?.annotations)) return;
  const gen = typeof old.metadata?.generation === 'number' ? old.metadata.generation : 0;
  o.metadata = { ...(o.metadata ?? {}), generation: gen + 1 };
}

const deploymentColumns = [
  column('Ready', 'string', 'Ready pods out of the desired replicas.', (o) => `${count(o, 'status.readyReplicas')}/${count(o, 'spec.replicas')}`),
  column('Up-to-date', 'string', 'Pods running the current template.', (o) => count(o, 'status.updatedReplicas')),
  column('Available', 'string', 'Pods available for at least minReadySeconds.', (o) => count(o, 'status.availableReplicas')),
  ...containerColumns('spec.template.spec.containers'),
  column('Selector', 'string', 'Label query over the pods of this deployment.', (o) => labelSelectorString(pathValue(o, 'spec.selector')) ?? '<error>', 1),
];

export const deployments: ResourceType = referenceType('apps', 'v1', 'deployments', {
  shortNames: ['deploy'],
  categories: ['all'],
  tableColumns: deploymentColumns,
  scale: STRUCTURED_SCALE,
  strategy: {
    tracksGeneration: true,
    prepareForCreate(o) {
      applyDeploymentDefaults(o);
      o.status = {};
    },
    prepareForUpdate(o, old) {
      applyDeploymentDefaults(o);
      bumpOnAnnotationChange(o, old);
    },
    validate: validateDeployment,
    validateUpdate: (o, old) => immutableSelector(o as Obj, old as Obj),
  },
});
