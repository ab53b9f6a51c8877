/** PodDisruptionBudget validation with the reference's rules and wording (pkg/apis/policy/validation). */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { absent, checkInt, rec } from '../batch/fields.js';
import { validateLabelSelector } from '../../validation/index.js';

export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

const PERCENT_RE = /^[0-9]+%$/;
const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** An int >= 0 or a percent string up to 100% (`ValidatePositiveIntOrPercent` + `IsNotMoreThan100Percent`). */
export function validateIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'number') {
    const errs: FieldError[] = [];
    checkInt(errs, path, v, 0);
    return errs;
  }
  if (typeof v !== 'string') return [fieldError.invalid(path, v, "must be an integer or percentage (e.g '5%')")];
  if (!PERCENT_RE.test(v)) return [fieldError.invalid(path, v, PERCENT_MSG)];
  return Number(v.slice(0, -1)) > 100 ? [fieldError.invalid(path, v, 'must not be greater than 100%')] : [];
}

/** Every rule of a PodDisruptionBudget's spec and the counters of its status. */
export function validatePodDisruptionBudget(pdb: ApiObject): FieldError[] {
  const spec = rec(pdb.spec);
  const errs: FieldError[] = [];
  if (!absent(spec.minAvailable) && !absent(spec.maxUnavailable)) {
    errs.push(fieldError.invalid('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  }
  if (!absent(spec.minAvailable)) errs.push(...validateIntOrPercent(spec.minAvailable, 'spec.minAvailable'));
  if (!absent(spec.maxUnavailable)) errs.push(...validateIntOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (!absent(policy) && !UNHEALTHY_POD_EVICTION_POLICIES.includes(String(policy))) {
    errs.push(fieldError.notSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  const status = rec(pdb.status);
  for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) checkInt(errs, `status.${f}`, status[f], 0);
  return errs;
}
