/**
 * ResourceQuota's limited resources (the configuration document, parsed in `src/config/resource-quota.ts`):
 * `limitedResources[]` make some consumption need a quota. An entry names a resource
 * (`apiGroup`, `resource`); a create (or growing update) of it that uses a positive amount of a resource
 * name containing one of `matchContains` is refused unless some quota in the namespace covers that name;
 * and an object (a pod) that falls under one of `matchScopes` is refused unless a quota in the namespace
 * has a scope of that name that the object also falls under. Pure: the plugin supplies quotas and usage.
 */
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import type { LimitedResource } from '../../config/resource-quota.js';
import { matchesScopes, podMatchesScope, quotaScopes, type ScopeRequirement } from './quota-scopes.js';
import { matchingResources, type ResourceList } from './quota-usage.js';

export {
  parseResourceQuotaConfiguration,
  RESOURCE_QUOTA_CONFIG_KIND,
  RESOURCE_QUOTA_CONFIG_VERSIONS,
  type LimitedResource,
} from '../../config/resource-quota.js';

/** The scopes among `scopes` an object falls under (only pods fall under any). */
function matchingScopes(group: string, resource: string, o: ApiObject, scopes: readonly ScopeRequirement[]): ScopeRequirement[] {
  if (group !== '' || resource !== 'pods') return [];
  return scopes.filter((s) => podMatchesScope(o, s));
}

/** Go's `%v` of a list of scope requirements, as the reference prints them. */
const scopesText = (scopes: readonly ScopeRequirement[]) => `[${scopes.map((s) => `{${s.scopeName} ${s.operator} [${s.values.join(' ')}]}`).join(' ')}]`;

/**
 * Why the write is refused for lack of a covering quota, or undefined. `usage` is what the object uses
 * (asked for only when an entry limits this resource); `quotas` are the namespace's quotas.
 */
export function uncoveredConsumption(
  limited: readonly LimitedResource[],
  group: string,
  resource: string,
  object: ApiObject,
  quotas: readonly ApiObject[],
  usage: () => ResourceList,
): string | undefined {
  // The reference collects the scopes of every entry, whatever resource it names.
  const limitedScopes = limited.flatMap((l) => matchingScopes(group, resource, object, l.matchScopes));
  const mine = limited.filter((l) => l.apiGroup === group && l.resource === resource);
  const needed = new Set<string>();
  if (mine.length > 0) {
    const used = usage();
    for (const l of mine) {
      for (const [name, q] of used) if (q.nano > 0n && l.matchContains.some((c) => name.includes(c))) needed.add(name);
    }
  }
  if (needed.size === 0 && limitedScopes.length === 0) return undefined;
  const covered = new Set<string>();
  const coveredScopes = new Set<string>();
  for (const q of quotas) {
    const scopes = quotaScopes(q);
    for (const s of matchingScopes(group, resource, object, scopes)) coveredScopes.add(s.scopeName);
    if (!matchesScopes(group, resource, object, scopes)) continue;
    const hard = isObject(q.spec) && isObject(q.spec.hard) ? Object.keys(q.spec.hard) : [];
    for (const n of matchingResources(group, resource, hard)) covered.add(n);
  }
  const uncovered = [...needed].filter((n) => !covered.has(n)).sort();
  if (uncovered.length > 0) return `insufficient quota to consume: ${uncovered.join(',')}`;
  const uncoveredScopes = limitedScopes.filter((s) => !coveredScopes.has(s.scopeName));
  if (uncoveredScopes.length > 0) return `insufficient quota to match these scopes: ${scopesText(uncoveredScopes)}`;
  return undefined;
}
