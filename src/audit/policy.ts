/**
 * The audit `Policy` (spec 2.11): parsed and validated in `src/config/audit-policy.ts`, then compiled here
 * into plain lookups so that deciding a request's level costs a few set probes. Rules are tried in order;
 * the first rule whose every field matches decides; no match means level None.
 */
import type { AuditLevel, AuditPolicy, AuditStage, GroupResources } from '../config/audit-policy.js';

export { AUDIT_POLICY_VERSION, loadPolicyFile, parsePolicy, type AuditPolicy, type GroupResources, type PolicyRule } from '../config/audit-policy.js';

/** What a request is matched on: the authenticated user and the request info. */
export interface PolicyAttributes {
  user: { username: string; groups?: readonly string[] } | undefined;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** The audit settings of one request. */
export interface RequestAuditConfig {
  level: Exclude<AuditLevel, 'None'>;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

// ---- evaluation ----

interface CompiledRule {
  config: RequestAuditConfig | undefined;
  users: ReadonlySet<string> | undefined;
  groups: ReadonlySet<string> | undefined;
  verbs: ReadonlySet<string> | undefined;
  namespaces: ReadonlySet<string> | undefined;
  resources: readonly GroupResources[] | undefined;
  /** Exact URLs, and prefixes of the `/path/*` forms; `any` for a lone `*`. */
  urls: { exact: ReadonlySet<string>; prefixes: readonly string[]; any: boolean } | undefined;
}

const setOf = (list: readonly string[]) => (list.length > 0 ? new Set(list) : undefined);

/** Compiles a policy into `evaluate(attrs)`: the request's audit settings, or undefined for level None. */
export function compilePolicy(policy: AuditPolicy): (a: PolicyAttributes) => RequestAuditConfig | undefined {
  const rules: CompiledRule[] = policy.rules.map((r) => {
    // A rule's stages add to the policy's; its omitManagedFields, when set, overrides the policy's.
    const omit = new Set<AuditStage>([...policy.omitStages, ...r.omitStages]);
    const config = r.level === 'None' ? undefined : Object.freeze({ level: r.level, omitStages: omit, omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields });
    const exact = new Set(r.nonResourceURLs.filter((u) => !u.endsWith('*')));
    const prefixes = r.nonResourceURLs.filter((u) => u.endsWith('*') && u !== '*').map((u) => u.replace(/\*+$/, ''));
    return {
      config,
      users: setOf(r.users),
      groups: setOf(r.userGroups),
      verbs: setOf(r.verbs),
      namespaces: setOf(r.namespaces),
      resources: r.resources.length > 0 ? r.resources : undefined,
      urls: r.nonResourceURLs.length > 0 ? { exact, prefixes, any: r.nonResourceURLs.includes('*') } : undefined,
    };
  });
  return (a) => {
    for (const r of rules) if (matches(r, a)) return r.config;
    return undefined;
  };
}

function matches(r: CompiledRule, a: PolicyAttributes): boolean {
  if (r.users && !(a.user && r.users.has(a.user.username))) return false;
  if (r.groups && !(a.user?.groups && a.user.groups.some((g) => r.groups!.has(g)))) return false;
  if (r.verbs && !r.verbs.has(a.verb)) return false;
  if (r.namespaces || r.resources) {
    if (!a.isResourceRequest) return false;
    // Cluster-scoped requests have the namespace "", which a rule names as "".
    if (r.namespaces && !r.namespaces.has(a.namespace)) return false;
    return !r.resources || r.resources.some((gr) => resourceMatches(gr, a));
  }
  if (r.urls) {
    if (a.isResourceRequest) return false;
    return r.urls.any || r.urls.exact.has(a.path) || r.urls.prefixes.some((p) => a.path.startsWith(p));
  }
  return true;
}

/** `res`, `res/sub`, `*` (anything, subresources included), `*\/sub` and `res/*` (the resource and its subresources). */
function resourceMatches(gr: GroupResources, a: PolicyAttributes): boolean {
  if (gr.group !== a.apiGroup) return false;
  if (gr.resources.length === 0) return true;
  if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) return false;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const res of gr.resources) {
    if (res === '*' || res === combined) return true;
    if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
    if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
  }
  return false;
}
