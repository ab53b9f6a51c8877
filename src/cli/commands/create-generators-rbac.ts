/**
 * `create role` and `create clusterrole`: verbs, resources (`plural[.group][/subresource]`, short names
 * resolved through discovery), resource names, non-resource URLs and aggregation rules turned into rules
 * as the reference client does: one rule per API group, groups in sorted order.
 */
import { AUTHENTICATION_GROUP, RBAC_GROUP } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

/** Verbs the reference knows for resources; any other verb only draws a warning. */
export const STANDARD_RESOURCE_VERBS = ['*', 'get', 'delete', 'list', 'create', 'update', 'patch', 'watch', 'proxy', 'deletecollection', 'use', 'bind', 'escalate', 'impersonate'];
/** The only verbs a non-resource URL rule may have. */
export const NON_RESOURCE_VERBS = ['*', 'get', 'post', 'put', 'delete', 'patch', 'head', 'options'];

/** Verbs that only make sense on some resources; any other resource with them is refused. */
const SPECIAL_VERBS: Record<string, { group: string; resource: string }[]> = {
  use: [{ group: 'policy', resource: 'podsecuritypolicies' }, { group: 'extensions', resource: 'podsecuritypolicies' }],
  bind: [{ group: RBAC_GROUP, resource: 'roles' }, { group: RBAC_GROUP, resource: 'clusterroles' }],
  escalate: [{ group: RBAC_GROUP, resource: 'roles' }, { group: RBAC_GROUP, resource: 'clusterroles' }],
  impersonate: [
    { group: '', resource: 'users' },
    { group: '', resource: 'serviceaccounts' },
    { group: '', resource: 'groups' },
    { group: AUTHENTICATION_GROUP, resource: 'userextras' },
    { group: AUTHENTICATION_GROUP, resource: 'uids' },
  ],
};

export interface TypedResource {
  resource: string;
  group: string;
  subresource?: string;
}

/** A resolver: the served plural and group of a typed resource, or an Error saying the server has none. */
export type ResolveResource = (r: TypedResource) => Promise<{ resource: string; group: string } | Error>;

export interface RoleFlags {
  verb?: string[];
  resource?: string[];
  resourceName?: string[];
  nonResourceUrl?: string[];
  aggregationRule?: string[];
}

const unique = (items: readonly string[]) => [...new Set(items)];

/** Pure: verbs without duplicates; `*` stands for all of them. */
export function normaliseVerbs(verbs: readonly string[]): string[] {
  return verbs.includes('*') ? ['*'] : unique(verbs);
}

/** Pure: `plural[.group][/subresource]` entries; a bare `*` stands for every resource. */
export function parseResources(typed: readonly string[]): TypedResource[] {
  const out: TypedResource[] = [];
  for (const t of typed) {
    const slash = t.indexOf('/');
    const main = slash < 0 ? t : t.slice(0, slash);
    const dot = main.indexOf('.');
    const r: TypedResource = { resource: dot < 0 ? main : main.slice(0, dot), group: dot < 0 ? '' : main.slice(dot + 1) };
    if (slash >= 0) r.subresource = t.slice(slash + 1);
    if (t === '*') return [r];
    out.push(r);
  }
  return out;
}

/** Pure: `key=value` pairs of `--aggregation-rule` (comma separated, repeatable). */
export function parseAggregationRule(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new Error(`--aggregation-rule: "${p}" is not key=value`);
    out[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return out;
}

/** Checks the resources against discovery and the special verbs; returns them resolved, in input order. */
async function resolveAll(resources: TypedResource[], verbs: string[], resolve: ResolveResource): Promise<TypedResource[]> {
  const out: TypedResource[] = [];
  // As the reference, a `*` resource ends the checks of the resources after it (they are still resolved).
  let checking = true;
  for (const r of resources) {
    if (r.resource === '') throw new Error('--resource: a group or subresource needs a resource name in front of it');
    if (r.resource === '*') {
      out.push(r);
      checking = false;
      continue;
    }
    const found = await resolve(r);
    const resolved: TypedResource = found instanceof Error ? { ...r } : { ...r, resource: found.resource, group: found.group };
    out.push(resolved);
    if (!checking) continue;
    let covered = false;
    for (const v of verbs) {
      const allowed = SPECIAL_VERBS[v];
      if (!allowed) continue;
      if (!allowed.some((a) => a.resource === resolved.resource && a.group === resolved.group)) {
        throw new Error(`verb '${v}' cannot be used on '${resolved.resource}' in group '${resolved.group}'`);
      }
      covered = true;
    }
    // A resource discovery does not list is accepted when a special verb names it (`impersonate` on `users`).
    if (found instanceof Error && !covered) throw found;
  }
  return out;
}

/** Rules: one per API group (sorted), its resources in first-seen order, then one for the URLs. */
export function rulesFor(verbs: string[], resources: TypedResource[], resourceNames: string[], urls: string[]): Record<string, unknown>[] {
  const byGroup = new Map<string, string[]>();
  for (const r of resources) {
    const name = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
    const list = byGroup.get(r.group) ?? [];
    if (!list.includes(name)) list.push(name);
    byGroup.set(r.group, list);
  }
  const rules: Record<string, unknown>[] = [];
  for (const group of [...byGroup.keys()].sort()) {
    const rule: Record<string, unknown> = { verbs, apiGroups: [group], resources: byGroup.get(group) };
    if (resourceNames.length > 0) rule.resourceNames = resourceNames;
    rules.push(rule);
  }
  if (urls.length > 0) rules.push({ verbs, nonResourceURLs: urls });
  return rules;
}

/** Prints warnings through `warn`; throws for what the reference refuses. */
export async function buildRole(name: string, namespace: string | undefined, f: RoleFlags, resolve: ResolveResource, warn: (text: string) => void): Promise<KubeObject> {
  const verbs = normaliseVerbs(f.verb ?? []);
  if (verbs.length === 0) throw new Error('at least one verb must be specified (--verb)');
  for (const v of verbs) if (!STANDARD_RESOURCE_VERBS.includes(v)) warn(`Warning: '${v}' is not a standard resource verb\n`);
  const typed = parseResources(f.resource ?? []);
  if (typed.length === 0) throw new Error('at least one resource must be specified (--resource)');
  const resources = await resolveAll(typed, verbs, resolve);
  const metadata = namespace ? { name, namespace } : { name };
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'Role', metadata, rules: rulesFor(verbs, resources, unique(f.resourceName ?? []), []) };
}

export async function buildClusterRole(name: string, f: RoleFlags, resolve: ResolveResource, warn: (text: string) => void): Promise<KubeObject> {
  const base = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name } };
  const aggregation = parseAggregationRule(f.aggregationRule ?? []);
  const verbs = normaliseVerbs(f.verb ?? []);
  const urls = unique(f.nonResourceUrl ?? []);
  const typed = parseResources(f.resource ?? []);
  const names = unique(f.resourceName ?? []);
  if (Object.keys(aggregation).length > 0) {
    if (urls.length > 0 || verbs.length > 0 || typed.length > 0 || names.length > 0) {
      throw new Error('--aggregation-rule cannot be combined with --non-resource-url, --verb, --resource or --resource-name');
    }
    return { ...base, aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregation }] } };
  }
  if (verbs.length === 0) throw new Error('at least one verb must be specified (--verb)');
  if (typed.length === 0 && urls.length === 0) throw new Error('one of --resource or --non-resource-url must be specified');
  let resources: TypedResource[] = [];
  if (typed.length > 0) {
    for (const v of verbs) if (!STANDARD_RESOURCE_VERBS.includes(v)) warn(`Warning: '${v}' is not a standard resource verb\n`);
    resources = await resolveAll(typed, verbs, resolve);
  }
  if (urls.length > 0) {
    for (const v of verbs) if (!NON_RESOURCE_VERBS.includes(v)) throw new Error(`verb '${v}' cannot be used with a non-resource URL`);
    for (const url of urls) {
      if (url === '*') continue;
      if (!url.startsWith('/')) throw new Error(`--non-resource-url: "${url}" must start with /`);
      if (url.slice(0, -1).includes('*')) throw new Error(`--non-resource-url: "${url}": '*' may only be the last character`);
    }
  }
  return { ...base, rules: rulesFor(verbs, resources, names, urls) };
}
