/** core/v1 ResourceQuota: caps on what a namespace may consume, optionally for a scope of pods only. */
import { humanDuration } from '../../../encoding/index.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { isStandardQuotaResource, quantityText, resourceEntries, validateQuotaResourceName, validateResourceQuantity } from './resource-names.js';
import { rec } from './volume-common.js';

export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] as const;

/** Scopes that only say yes or no about a pod: a scope selector may only ask whether they apply. */
const EXISTS_ONLY_SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'CrossNamespacePodAffinity']);
const EXISTS_ONLY_MESSAGE =
  "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";
const CONFLICTING_SCOPES: [string, string][] = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];
const POD_COMPUTE = new Set(['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory']);

/** Which standard resources a scope can track: pod counts (and, but for BestEffort, pod compute). */
function scopeTracks(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if ((QUOTA_SCOPES as readonly string[]).includes(scope)) return resource === 'pods' || POD_COMPUTE.has(resource);
  return true;
}

/** Hard limits whose standard resource a scope cannot track. */
const untracked = (scope: string, hard: string[]) => hard.some((k) => isStandardQuotaResource(k) && !scopeTracks(scope, k));
const isScope = (s: unknown) => (QUOTA_SCOPES as readonly string[]).includes(s as string);

function validateAmounts(v: unknown, path: string, errs: FieldError[]): string[] {
  const entries = resourceEntries(v, path, errs);
  for (const [name, q] of entries) {
    const p = `${path}[${name}]`;
    errs.push(...validateQuotaResourceName(name, p), ...validateResourceQuantity(name, q, p));
  }
  return entries.map(([k]) => k);
}

function validateScopes(scopes: unknown, hard: string[], errs: FieldError[]): void {
  if (!Array.isArray(scopes) || scopes.length === 0) return;
  for (const scope of scopes) {
    if (!isScope(scope)) errs.push(fieldError.invalid('spec.scopes', scopes, 'unsupported scope'));
    if (untracked(String(scope), hard)) errs.push(fieldError.invalid('spec.scopes', scopes, 'unsupported scope applied to resource'));
  }
  for (const [a, b] of CONFLICTING_SCOPES) {
    if (scopes.includes(a) && scopes.includes(b)) errs.push(fieldError.invalid('spec.scopes', scopes, 'conflicting scopes'));
  }
}

function validateScopeSelector(selector: unknown, hard: string[], errs: FieldError[]): void {
  const expressions = rec(selector).matchExpressions;
  if (!Array.isArray(expressions)) return;
  const path = 'spec.scopeSelector.matchExpressions';
  const names = new Set<string>();
  expressions.forEach((raw: unknown, i) => {
    const e = rec(raw);
    const at = `${path}[${i}]`;
    const scope = String(e.scopeName ?? '');
    if (!isScope(scope)) errs.push(fieldError.invalid(`${at}.scopeName`, e.scopeName ?? '', 'unsupported scope'));
    if (untracked(scope, hard)) errs.push(fieldError.invalid(path, selector, 'unsupported scope applied to resource'));
    if (EXISTS_ONLY_SCOPES.has(scope) && e.operator !== 'Exists') errs.push(fieldError.invalid(`${at}.operator`, e.operator ?? '', EXISTS_ONLY_MESSAGE));
    const values = Array.isArray(e.values) ? e.values : [];
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldError.required(`${at}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldError.invalid(`${at}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else {
      errs.push(fieldError.invalid(`${at}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
    names.add(scope);
  });
  for (const [a, b] of CONFLICTING_SCOPES) {
    if (names.has(a) && names.has(b)) errs.push(fieldError.invalid(path, selector, 'conflicting scopes'));
  }
}

export function validateResourceQuota(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = rec(o.spec);
  const hard = validateAmounts(spec.hard, 'spec.hard', errs);
  validateScopes(spec.scopes, hard, errs);
  validateScopeSelector(spec.scopeSelector, hard, errs);
  const status = rec(o.status);
  validateAmounts(status.hard, 'status.hard', errs);
  validateAmounts(status.used, 'status.used', errs);
  return errs;
}

/**
 * `name: used/hard, ...` over the enforced (status) limits, sorted by name; `limits.*` go to the LIMIT
 * cell, the rest to REQUEST. Until the quota is counted (status filled) both cells are empty.
 */
export function quotaCell(o: ApiObject, limits: boolean): string {
  const status = rec(o.status);
  const hard = rec(status.hard);
  const used = rec(status.used);
  return Object.keys(hard)
    .sort()
    .filter((name) => (name.split('.')[0] === 'limits' && name.includes('.')) === limits)
    .map((name) => `${name}: ${quantityText(used[name])}/${quantityText(hard[name])}`)
    .join(', ');
}

/** The reference's quota table puts AGE first, so the type places the column itself. */
function ageOf(o: ApiObject): string {
  const t = Date.parse(String(o.metadata?.creationTimestamp ?? ''));
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

export const resourceQuotas: ResourceType = referenceType('', 'v1', 'resourcequotas', {
  shortNames: ['quota'],
  strategy: { validate: validateResourceQuota },
  tableColumns: [
    column('Age', 'string', 'Time since the quota was created.', ageOf),
    column('Request', 'string', 'Used and hard amounts of the quota other than limits.', (o) => quotaCell(o, false)),
    column('Limit', 'string', 'Used and hard amounts of the limits.* resources.', (o) => quotaCell(o, true)),
  ],
});
