/**
 * scheduling/v1 PriorityClass: user classes up to one billion, the reserved `system-` names, an immutable
 * value and preemption policy, and the two built-in classes the server creates at start. (That at most one
 * class is the global default is the Priority admission plugin's rule: admission/plugins/priority.ts.)
 */
import { SCHEDULING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { humanDuration } from '../../../encoding/index.js';
import { fieldError, invalid, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { FieldReader, immutable } from '../events/fields.js';
import { referenceType } from '../reference.js';

export const HIGHEST_USER_PRIORITY = 1_000_000_000;
export const SYSTEM_PREFIX = 'system-';
export const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** The built-in classes: exactly these names, values and (false) globalDefault may use the prefix. */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2_000_001_000, description: 'For pods that must stay on the node they run on.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'For pods the cluster cannot work without; they may move between nodes.' },
] as const;

export function defaultPriorityClass(o: ApiObject): void {
  if (o.preemptionPolicy === undefined || o.preemptionPolicy === null) o.preemptionPolicy = 'PreemptLowerPriority';
}

/** Why a `system-` name is not allowed, or undefined when it is one of the built-in classes as built. */
function systemClassProblem(name: string, value: number | undefined, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const errs: FieldError[] = [];
  const value = r.int(o, 'value', 'value');
  if (o.value === undefined || o.value === null) errs.push(fieldError.required('value'));
  else if (value !== undefined && (value < INT32_MIN || value > INT32_MAX)) errs.push(fieldError.invalid('value', value, 'must fit in a 32-bit integer'));
  if (o.globalDefault !== undefined && o.globalDefault !== null && typeof o.globalDefault !== 'boolean') {
    errs.push(fieldError.typeInvalid('globalDefault', o.globalDefault, 'must be of type boolean'));
  }
  const name = typeof o.metadata?.name === 'string' ? o.metadata.name : '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const problem = systemClassProblem(name, value, o.globalDefault === true);
    if (problem) {
      errs.push(fieldError.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${problem}`));
    }
  } else if (value !== undefined && value > HIGHEST_USER_PRIORITY) {
    errs.push(fieldError.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  const policy = r.str(o, 'preemptionPolicy', 'preemptionPolicy');
  if (o.preemptionPolicy !== undefined && o.preemptionPolicy !== null) {
    if (policy === '') errs.push(fieldError.required('preemptionPolicy'));
    else if (!PREEMPTION_POLICIES.includes(policy)) errs.push(fieldError.notSupported('preemptionPolicy', policy, PREEMPTION_POLICIES));
  }
  return [...r.errors, ...errs];
}

export function validatePriorityClassUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.value !== old.value) errs.push(fieldError.forbidden('value', 'may not be changed in an update.'));
  errs.push(...immutable('preemptionPolicy', o.preemptionPolicy, old.preemptionPolicy));
  return errs;
}

export function systemPriorityClasses(): ApiObject[] {
  return SYSTEM_PRIORITY_CLASSES.map((c) => ({
    apiVersion: `${SCHEDULING_GROUP}/v1`,
    kind: 'PriorityClass',
    metadata: { name: c.name },
    value: c.value,
    description: c.description,
    preemptionPolicy: 'PreemptLowerPriority',
  }));
}

/** The reference puts AGE inside this table, so the type places (and computes) the column itself. */
function age(o: ApiObject): string {
  const t = Date.parse(String(o.metadata?.creationTimestamp ?? ''));
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

export const priorityClasses: ResourceType = referenceType(SCHEDULING_GROUP, 'v1', 'priorityclasses', {
  shortNames: ['pc'],
  tableColumns: [
    column('Value', 'integer', 'The priority pods of this class get.', (o) => (typeof o.value === 'number' ? o.value : 0)),
    column('Global-Default', 'boolean', 'Whether pods without a class get this one.', (o) => o.globalDefault === true),
    column('Age', 'string', 'Time since the object was created.', age),
    column('PreemptionPolicy', 'string', 'Whether pods of this class preempt lower-priority pods.', (o) => (typeof o.preemptionPolicy === 'string' ? o.preemptionPolicy : '<unset>')),
  ],
  strategy: {
    prepareForCreate: defaultPriorityClass,
    prepareForUpdate: defaultPriorityClass,
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
  },
});
