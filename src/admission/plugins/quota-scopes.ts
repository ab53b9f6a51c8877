/**
 * Quota scopes (`spec.scopes`, `spec.scopeSelector`): a scoped quota tracks only the pods its every scope
 * selects (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity),
 * and nothing but pods, as the reference's pod evaluator decides.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { ScopeRequirement } from '../../config/resource-quota.js';
import { parseQuantity } from './quantity.js';

type Obj = Record<string, unknown>;

export type { ScopeRequirement };

const obj = (v: unknown): Obj => (isObject(v) ? v : {});
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Every scope of a quota: each of `spec.scopes` as an Exists requirement, then the selector's expressions. */
export function quotaScopes(quota: ApiObject): ScopeRequirement[] {
  const spec = obj(quota.spec);
  const out: ScopeRequirement[] = [];
  if (Array.isArray(spec.scopes)) for (const s of spec.scopes) out.push({ scopeName: String(s), operator: 'Exists', values: [] });
  for (const e of objects(obj(spec.scopeSelector).matchExpressions)) {
    out.push({ scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''), values: Array.isArray(e.values) ? e.values.map(String) : [] });
  }
  return out;
}

/** Terminating: the pod has an active deadline. */
const isTerminating = (spec: Obj) => typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;

/** BestEffort: no container (init containers included) requests or limits any cpu or memory. */
export function isBestEffort(spec: Obj): boolean {
  for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
    const res = obj(c.resources);
    for (const list of [obj(res.requests), obj(res.limits)]) {
      for (const r of ['cpu', 'memory']) {
        const q = parseQuantity(list[r]);
        if (q && q.nano > 0n) return false;
      }
    }
  }
  return true;
}

/** Pod (anti-)affinity terms that reach into other namespaces (a namespace list or a namespace selector). */
function usesCrossNamespaceAffinity(spec: Obj): boolean {
  const affinity = obj(spec.affinity);
  for (const kind of [obj(affinity.podAffinity), obj(affinity.podAntiAffinity)]) {
    const terms = [...objects(kind.requiredDuringSchedulingIgnoredDuringExecution), ...objects(kind.preferredDuringSchedulingIgnoredDuringExecution).map((w) => obj(w.podAffinityTerm))];
    if (terms.some((t) => (Array.isArray(t.namespaces) && t.namespaces.length > 0) || (t.namespaceSelector !== undefined && t.namespaceSelector !== null))) return true;
  }
  return false;
}

/** The PriorityClass scope: the pod's class name tested as a label that is always present (maybe empty). */
function priorityClassMatches(className: string, req: ScopeRequirement): boolean {
  switch (req.operator) {
    case 'Exists':
      return className !== '';
    case 'In':
      return req.values.includes(className);
    case 'NotIn':
      return !req.values.includes(className);
    default:
      return false;
  }
}

/** Whether a pod falls under one scope requirement. */
export function podMatchesScope(pod: ApiObject, req: ScopeRequirement): boolean {
  const spec = obj(pod.spec);
  switch (req.scopeName) {
    case 'Terminating':
      return isTerminating(spec);
    case 'NotTerminating':
      return !isTerminating(spec);
    case 'BestEffort':
      return isBestEffort(spec);
    case 'NotBestEffort':
      return !isBestEffort(spec);
    case 'PriorityClass':
      return priorityClassMatches(typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '', req);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespaceAffinity(spec);
    default:
      return false;
  }
}

/** Whether an object of group/resource falls under every scope (only pods can fall under any scope). */
export function matchesScopes(group: string, resource: string, o: ApiObject, scopes: readonly ScopeRequirement[]): boolean {
  if (scopes.length === 0) return true;
  if (group !== '' || resource !== 'pods') return false;
  return scopes.every((s) => podMatchesScope(o, s));
}
