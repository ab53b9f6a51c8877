/**
 * HorizontalPodAutoscaler validation on the v2 form, with the reference's rules, paths and wording
 * (pkg/apis/autoscaling/validation). The v1 view is validated after conversion, as the reference does.
 */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isDNS1123Label, isPathSegmentName, isQualifiedName } from '../../validation/index.js';
import { absent, checkInt, objects, rec, type Obj } from '../batch/fields.js';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from '../pods/quantity.js';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
/** Source field of each metric type, in the order the reference looks at them. */
const SOURCE_FIELD: Record<string, string> = { Object: 'object', External: 'external', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource' };
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

const isEmpty = (v: unknown) => absent(v) || v === '';

/** `ValidateCrossVersionObjectReference`: kind and name are required path segments. */
function validateReference(ref: unknown, path: string, errs: FieldError[]): void {
  const r = rec(ref);
  for (const f of ['kind', 'name']) {
    const v = r[f];
    if (isEmpty(v)) errs.push(fieldError.required(`${path}.${f}`));
    else if (typeof v !== 'string') errs.push(fieldError.typeInvalid(`${path}.${f}`, v, 'must be of type string'));
    else for (const msg of isPathSegmentName(v)) errs.push(fieldError.invalid(`${path}.${f}`, v, msg));
  }
}

function validateResourceName(name: unknown, path: string, errs: FieldError[]): void {
  if (isEmpty(name)) {
    errs.push(fieldError.required(path, 'Required value: must specify a resource name'));
    return;
  }
  const v = String(name);
  for (const msg of isQualifiedName(v)) errs.push(fieldError.invalid(path, v, msg));
  if (!v.includes('/') && !STANDARD_CONTAINER_RESOURCES.has(v) && !v.startsWith('hugepages-')) {
    errs.push(fieldError.invalid(path, v, 'must be a standard resource for containers'));
  }
}

/** A quantity that must be above zero. */
function positiveQuantity(v: unknown, path: string, errs: FieldError[]): void {
  if (absent(v)) return;
  const q = parseQuantity(v);
  if (q === undefined) errs.push(fieldError.invalid(path, v, QUANTITY_FORMAT_ERROR));
  else if (q <= 0) errs.push(fieldError.invalid(path, v, 'must be positive'));
}

function validateTarget(target: Obj, path: string, errs: FieldError[]): void {
  if (isEmpty(target.type)) errs.push(fieldError.required(`${path}.type`, 'Required value: must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(String(target.type))) {
    errs.push(fieldError.invalid(`${path}.type`, target.type ?? '', 'must be either Utilization, Value, or AverageValue'));
  }
  positiveQuantity(target.value, `${path}.value`, errs);
  positiveQuantity(target.averageValue, `${path}.averageValue`, errs);
  checkInt(errs, `${path}.averageUtilization`, target.averageUtilization, 1, 'must be greater than 0');
}

function validateIdentifier(metric: unknown, path: string, errs: FieldError[]): void {
  const name = rec(metric).name;
  if (isEmpty(name)) errs.push(fieldError.required(`${path}.name`, 'Required value: must specify a metric name'));
  else for (const msg of isPathSegmentName(String(name))) errs.push(fieldError.invalid(`${path}.name`, name, msg));
}

/** The rules of one metric source, by its field name. */
function validateSource(kind: string, src: Obj, path: string, errs: FieldError[]): void {
  const target = rec(src.target);
  const tPath = `${path}.target`;
  if (kind === 'resource' || kind === 'containerResource') {
    validateResourceName(src.name, `${path}.name`, errs);
    if (kind === 'containerResource') {
      if (isEmpty(src.container)) errs.push(fieldError.required(`${path}.container`, 'Required value: must specify a container'));
      else for (const msg of isDNS1123Label(String(src.container))) errs.push(fieldError.invalid(`${path}.container`, src.container, msg));
    }
    validateTarget(target, tPath, errs);
    if (absent(target.averageUtilization) && absent(target.averageValue)) {
      errs.push(fieldError.required(`${tPath}.averageUtilization`, 'Required value: must set either a target raw value or a target utilization'));
    }
    if (!absent(target.averageUtilization) && !absent(target.averageValue)) {
      errs.push(fieldError.forbidden(`${tPath}.averageValue`, 'may not set both a target raw value and a target utilization'));
    }
    return;
  }
  if (kind === 'object') validateReference(src.describedObject, `${path}.describedObject`, errs);
  validateIdentifier(src.metric, `${path}.metric`, errs);
  validateTarget(target, tPath, errs);
  if (kind === 'object' && absent(target.value) && absent(target.averageValue)) {
    errs.push(fieldError.required(`${tPath}.averageValue`, 'Required value: must set either a target value or averageValue'));
  }
  if (kind === 'external') {
    if (absent(target.value) && absent(target.averageValue)) {
      errs.push(fieldError.required(`${tPath}.averageValue`, 'Required value: must set either a target value for metric or a per-pod target'));
    }
    if (!absent(target.value) && !absent(target.averageValue)) {
      errs.push(fieldError.forbidden(`${tPath}.value`, 'may not set both a target value for metric and a per-pod target'));
    }
  }
  if (kind === 'pods' && absent(target.averageValue)) {
    errs.push(fieldError.required(`${tPath}.averageValue`, 'Required value: must specify a positive target averageValue'));
  }
}

/** One metric: a known type, its source filled in, and no other source (`validateMetricSpec`). */
function validateMetric(m: Obj, path: string, errs: FieldError[]): void {
  const type = m.type;
  if (isEmpty(type)) errs.push(fieldError.required(`${path}.type`, 'Required value: must specify a metric source type'));
  else if (!METRIC_TYPES.includes(String(type))) errs.push(fieldError.notSupported(`${path}.type`, type, METRIC_TYPES));
  const present = Object.values(SOURCE_FIELD).filter((f) => isObject(m[f]));
  // Only the first source given is checked in depth; the others are reported as extra.
  const first = present[0];
  if (first) validateSource(first, m[first] as Obj, `${path}.${first}`, errs);
  const expected = SOURCE_FIELD[String(type)];
  if (expected && !isObject(m[expected])) errs.push(fieldError.required(`${path}.${expected}`, 'Required value: must populate information for the given metric source'));
  if (present.length !== 1) {
    for (const f of present) if (f !== expected) errs.push(fieldError.forbidden(`${path}.${f}`, 'must populate the given metric source only'));
  }
}

function validateRules(rules: unknown, path: string, errs: FieldError[]): void {
  if (!isObject(rules)) return;
  const window = rules.stabilizationWindowSeconds;
  if (checkInt(errs, `${path}.stabilizationWindowSeconds`, window, 0, 'must be greater than or equal to zero') && (window as number) > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(fieldError.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (!absent(rules.selectPolicy) && !SELECT_POLICIES.includes(String(rules.selectPolicy))) {
    errs.push(fieldError.notSupported(`${path}.selectPolicy`, rules.selectPolicy, SELECT_POLICIES));
  }
  const policies = objects(rules.policies);
  if (policies.length === 0) errs.push(fieldError.required(`${path}.policies`, 'Required value: must specify at least one Policy'));
  policies.forEach((p, i) => {
    const at = `${path}.policies[${i}]`;
    if (!POLICY_TYPES.includes(String(p.type))) errs.push(fieldError.notSupported(`${at}.type`, p.type ?? '', POLICY_TYPES));
    checkInt(errs, `${at}.value`, p.value ?? 0, 1, 'must be greater than zero');
    if (checkInt(errs, `${at}.periodSeconds`, p.periodSeconds ?? 0, 1, 'must be greater than zero') && (p.periodSeconds as number) > MAX_PERIOD_SECONDS) {
      errs.push(fieldError.invalid(`${at}.periodSeconds`, p.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
    }
  });
}

/** Every rule of a v2 HorizontalPodAutoscaler. */
export function validateHpa(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(o.spec)) return [fieldError.required('spec')];
  const spec = o.spec;
  checkInt(errs, 'spec.minReplicas', spec.minReplicas, 1);
  const max = spec.maxReplicas ?? 0;
  if (checkInt(errs, 'spec.maxReplicas', max, 1, 'must be greater than 0')) {
    if (typeof spec.minReplicas === 'number' && (max as number) < spec.minReplicas) {
      errs.push(fieldError.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
    }
  }
  validateReference(spec.scaleTargetRef, 'spec.scaleTargetRef', errs);
  if (!absent(spec.metrics) && !Array.isArray(spec.metrics)) errs.push(fieldError.typeInvalid('spec.metrics', spec.metrics, 'must be an array'));
  objects(spec.metrics).forEach((m, i) => validateMetric(m, `spec.metrics[${i}]`, errs));
  const behavior = spec.behavior;
  if (isObject(behavior)) {
    validateRules(behavior.scaleUp, 'spec.behavior.scaleUp', errs);
    validateRules(behavior.scaleDown, 'spec.behavior.scaleDown', errs);
  }
  const status = rec(o.status);
  checkInt(errs, 'status.currentReplicas', status.currentReplicas, 0);
  checkInt(errs, 'status.desiredReplicas', status.desiredReplicas, 0);
  return errs;
}
