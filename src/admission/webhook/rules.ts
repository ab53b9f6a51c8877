/**
 * Which requests a webhook's `rules` select (the reference's rule matcher): operation, API group,
 * version, resource with its subresource forms (`*`, `x/*`, `*\/y`, `*\/*`) and scope. Pure.
 */
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import type { AdmissionOperation, GroupVersionResource } from '../types.js';

export interface Rule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  /** Each split once at its first '/': [resource, subresource]; '' when none. */
  readonly resources: readonly (readonly [string, string])[];
  readonly scope: '*' | 'Cluster' | 'Namespaced';
}

/** What the matcher looks at: the resource may be an equivalent one (matchPolicy Equivalent). */
export interface RuleTarget {
  readonly operation: AdmissionOperation;
  readonly resource: GroupVersionResource;
  readonly subResource: string;
  /** '' for cluster-scoped objects. */
  readonly namespace: string;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function compileRule(r: Record<string, unknown>): Rule {
  const scope = r.scope === 'Cluster' || r.scope === 'Namespaced' ? r.scope : '*';
  return {
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources).map((s) => {
      const i = s.indexOf('/');
      return i < 0 ? ([s, ''] as const) : ([s.slice(0, i), s.slice(i + 1)] as const);
    }),
    scope,
  };
}

const exactOrWildcard = (items: readonly string[], v: string) => items.includes('*') || items.includes(v);

/** Namespace objects are cluster-scoped whatever the request's namespace field says. */
const isNamespaceResource = (r: GroupVersionResource) => r.group === '' && r.resource === 'namespaces';

function scopeMatches(rule: Rule, t: RuleTarget): boolean {
  if (rule.scope === '*') return true;
  const clusterScoped = isNamespaceResource(t.resource) || t.namespace === '';
  return rule.scope === 'Cluster' ? clusterScoped : !clusterScoped;
}

export function ruleMatches(rule: Rule, t: RuleTarget): boolean {
  if (!scopeMatches(rule, t)) return false;
  if (!rule.operations.includes('*') && !rule.operations.includes(t.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, t.resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, t.resource.version)) return false;
  for (const [res, sub] of rule.resources) {
    if ((res === '*' || res === t.resource.resource) && (sub === '*' || sub === t.subResource)) return true;
  }
  return false;
}

export function anyRuleMatches(rules: readonly Rule[], t: RuleTarget): boolean {
  for (const r of rules) if (ruleMatches(r, t)) return true;
  return false;
}

/** The admission configuration kinds themselves never go through webhooks, so a bad webhook cannot lock them. */
export const EXEMPT_RESOURCES = new Set([
  'validatingwebhookconfigurations',
  'mutatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

export const isExemptResource = (r: GroupVersionResource): boolean => r.group === ADMISSIONREGISTRATION_GROUP && EXEMPT_RESOURCES.has(r.resource);
