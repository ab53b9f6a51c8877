/** core/v1 LimitRange: per-namespace bounds and defaults for pod, container and claim resources. */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import type { ResourceType } from '../../types.js';
import { isQualifiedName } from '../../validation/index.js';
import { referenceType } from '../reference.js';
import { isOvercommitAllowed, quantityAt, resourceEntries, validateContainerResourceName, validateResourceName } from './resource-names.js';
import { rec } from './volume-common.js';

export const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'] as const;

/** The amounts of one limit item by resource: the text as given and the parsed value. */
type Amounts = Map<string, { text: string; value: number }>;

function validateType(v: unknown, path: string): FieldError[] {
  const type = typeof v === 'string' ? v : '';
  const errs = isQualifiedName(type).map((msg) => fieldError.invalid(path, type, msg));
  if (errs.length > 0) return errs;
  // A domain-qualified type is someone else's; an unqualified one must be one of ours.
  if (!type.includes('/') && !(LIMIT_TYPES as readonly string[]).includes(type)) {
    return [fieldError.invalid(path, type, 'must be a standard limit type or fully qualified')];
  }
  return [];
}

function amounts(limit: Record<string, unknown>, key: string, type: string, path: string, errs: FieldError[]): Amounts {
  const out: Amounts = new Map();
  for (const [name, q] of resourceEntries(limit[key], `${path}.${key}`, errs)) {
    const p = `${path}.${key}[${name}]`;
    errs.push(...(type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, p) : validateResourceName(name, p)));
    const value = quantityAt(q, p, errs);
    if (value !== undefined) out.set(name, { text: String(q), value });
  }
  return out;
}

/** The reference's ordering rules between min, defaultRequest, default, max and the limit/request ratio. */
function validateOrdering(path: string, name: string, m: Record<'min' | 'max' | 'def' | 'req' | 'ratio', Amounts>): FieldError[] {
  const errs: FieldError[] = [];
  const [min, max, def, req, ratio] = [m.min.get(name), m.max.get(name), m.def.get(name), m.req.get(name), m.ratio.get(name)];
  const at = (key: string) => `${path}.${key}[${name}]`;
  if (min && max && min.value > max.value) errs.push(fieldError.invalid(at('min'), min.text, `min value ${min.text} is greater than max value ${max.text}`));
  if (req && min && min.value > req.value) errs.push(fieldError.invalid(at('defaultRequest'), req.text, `min value ${min.text} is greater than default request value ${req.text}`));
  if (req && max && req.value > max.value) errs.push(fieldError.invalid(at('defaultRequest'), req.text, `default request value ${req.text} is greater than max value ${max.text}`));
  if (req && def && req.value > def.value) errs.push(fieldError.invalid(at('defaultRequest'), req.text, `default request value ${req.text} is greater than default limit value ${def.text}`));
  if (def && min && min.value > def.value) errs.push(fieldError.invalid(at('default'), min.text, `min value ${min.text} is greater than default value ${def.text}`));
  if (def && max && def.value > max.value) errs.push(fieldError.invalid(at('default'), max.text, `default value ${def.text} is greater than max value ${max.text}`));
  if (ratio && ratio.value < 1) errs.push(fieldError.invalid(at('maxLimitRequestRatio'), ratio.text, `ratio ${ratio.text} is less than 1`));
  if (ratio && min && max && min.value > 0 && ratio.value > max.value / min.value) {
    errs.push(fieldError.invalid(at('maxLimitRequestRatio'), ratio.text, `ratio ${ratio.text} is greater than max/min = ${(max.value / min.value).toFixed(6)}`));
  }
  if (!isOvercommitAllowed(name) && def && req && def.value !== req.value) {
    errs.push(fieldError.invalid(at('defaultRequest'), req.text, `default value ${def.text} must equal to defaultRequest value ${req.text} in ${name}`));
  }
  return errs;
}

export function validateLimitRange(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const limits = rec(o.spec).limits;
  if (limits !== undefined && limits !== null && !Array.isArray(limits)) return [fieldError.typeInvalid('spec.limits', limits, 'must be an array of objects')];
  const seen = new Set<string>();
  ((limits ?? []) as unknown[]).forEach((raw, i) => {
    const path = `spec.limits[${i}]`;
    const limit = rec(raw);
    const type = typeof limit.type === 'string' ? limit.type : '';
    errs.push(...validateType(limit.type, `${path}.type`));
    if (seen.has(type)) errs.push(fieldError.duplicate(`${path}.type`, type));
    seen.add(type);
    const max = amounts(limit, 'max', type, path, errs);
    const min = amounts(limit, 'min', type, path, errs);
    let def: Amounts = new Map();
    let req: Amounts = new Map();
    if (type === 'Pod') {
      // A pod has no limits of its own to default: only its containers do.
      if (Object.keys(rec(limit.default)).length > 0) errs.push(fieldError.forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(rec(limit.defaultRequest)).length > 0) errs.push(fieldError.forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      def = amounts(limit, 'default', type, path, errs);
      req = amounts(limit, 'defaultRequest', type, path, errs);
    }
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      errs.push(fieldError.required(`${path}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
    }
    const ratio = amounts(limit, 'maxLimitRequestRatio', type, path, errs);
    const names = new Set([...max.keys(), ...min.keys(), ...def.keys(), ...req.keys(), ...ratio.keys()]);
    for (const name of [...names].sort()) errs.push(...validateOrdering(path, name, { min, max, def, req, ratio }));
  });
  return errs;
}

export const limitRanges: ResourceType = referenceType('', 'v1', 'limitranges', {
  shortNames: ['limits'],
  strategy: { validate: validateLimitRange },
});
