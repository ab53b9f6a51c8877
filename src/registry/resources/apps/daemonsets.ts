/** apps/v1 DaemonSet: one pod of a template on every (selected) node. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column, pathValue } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { defaultPodTemplate } from '../pods/template.js';
import { referenceType } from '../reference.js';
import { formatLabelMap } from '../../../selectors/index.js';
import { containerColumns, count, structuredSelectorColumn } from './workload-table.js';
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
  validateIntOrPercent,
  validateRunningTemplate,
  type Obj,
  defaultRollingUpdate,
} from './workload-validation.js';

const STRATEGY_TYPES = ['RollingUpdate', 'OnDelete'];

export function applyDaemonSetDefaults(o: ApiObject): void {
  const spec = child(o, 'spec');
  if (!spec) return;
  defaultRollingUpdate(child(spec, 'updateStrategy'), 1, 0);
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec.template);
}

function validateUpdateStrategy(strategy: unknown, errs: FieldError[]): void {
  const path = 'spec.updateStrategy';
  if (!isObject(strategy)) {
    if (!isAbsent(strategy)) errs.push(fieldError.typeInvalid(path, strategy, 'must be an object'));
    return;
  }
  if (strategy.type === 'OnDelete') return;
  if (strategy.type !== 'RollingUpdate') {
    // The reference names the whole strategy here, not its type.
    errs.push(fieldError.notSupported(path, strategy, STRATEGY_TYPES));
    return;
  }
  const rolling = strategy.rollingUpdate;
  const at = `${path}.rollingUpdate`;
  if (!isObject(rolling)) {
    errs.push(fieldError.required(at));
    return;
  }
  validateIntOrPercent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
  validateIntOrPercent(errs, `${at}.maxSurge`, rolling.maxSurge);
  notOver100Percent(errs, `${at}.maxUnavailable`, rolling.maxUnavailable);
  notOver100Percent(errs, `${at}.maxSurge`, rolling.maxSurge);
  // Exactly one of the two may be non-zero.
  const unavailable = intOrPercentValue(rolling.maxUnavailable) !== 0;
  const surge = intOrPercentValue(rolling.maxSurge) !== 0;
  if (unavailable && surge) errs.push(fieldError.invalid(`${at}.maxSurge`, rolling.maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (!unavailable && !surge) errs.push(fieldError.required(`${at}.maxUnavailable`, 'Required value: cannot be 0 when maxSurge is 0'));
}

/**
 * `ValidateDaemonSetSpec`. The reference lets a missing selector fail only through the template-label match;
 * orch also names `spec.selector` as required (apps/v1 declares it so).
 */
export function validateDaemonSet(o: ApiObject): FieldError[] {
  if (!isObject(o.spec)) return [o.spec === undefined ? fieldError.required('spec') : fieldError.typeInvalid('spec', o.spec, 'must be an object')];
  const spec = o.spec;
  const errs: FieldError[] = [];
  const sel = checkSelector(spec.selector, 'spec.selector', { kind: 'daemonset' });
  errs.push(...sel.errors);
  errs.push(...checkTemplateLabels(sel.selector, spec.template, 'spec.template'));
  errs.push(...validateRunningTemplate(spec.template, 'spec.template', 'DaemonSet'));
  nonNegativeInt(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  validateUpdateStrategy(spec.updateStrategy, errs);
  nonNegativeInt(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  return errs;
}

const daemonSetColumns = [
  column('Desired', 'integer', 'Nodes that should run the daemon pod.', (o) => count(o, 'status.desiredNumberScheduled')),
  column('Current', 'integer', 'Nodes running at least one daemon pod.', (o) => count(o, 'status.currentNumberScheduled')),
  column('Ready', 'integer', 'Nodes with a ready daemon pod.', (o) => count(o, 'status.numberReady')),
  column('Up-to-date', 'integer', 'Nodes running the current template.', (o) => count(o, 'status.updatedNumberScheduled')),
  column('Available', 'integer', 'Nodes with an available daemon pod.', (o) => count(o, 'status.numberAvailable')),
  column('Node Selector', 'string', 'Node labels the daemon pods require.', (o) => formatLabelMap(pathValue(o, 'spec.template.spec.nodeSelector'))),
  ...containerColumns('spec.template.spec.containers'),
  structuredSelectorColumn(),
];

export const daemonsets: ResourceType = referenceType('apps', 'v1', 'daemonsets', {
  shortNames: ['ds'],
  categories: ['all'],
  tableColumns: daemonSetColumns,
  strategy: {
    tracksGeneration: true,
    prepareForCreate(o) {
      applyDaemonSetDefaults(o);
      o.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    },
    prepareForUpdate: applyDaemonSetDefaults,
    validate: validateDaemonSet,
    validateUpdate: (o, old) => immutableSelector(o as Obj, old as Obj),
  },
});
