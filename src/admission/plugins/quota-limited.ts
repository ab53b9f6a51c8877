/**
 * ResourceQuota's configuration document: `Configuration` (group `resourcequota.admission`, v1, v1beta1 or
 * v1alpha1) whose `limitedResources[]` make some consumption need a quota. An entry names a resource
 * (`apiGroup`, `resource`); a create (or growing update) of it that uses a positive amount of a resource
 * name containing one of `matchContains` is refused unless some quota in the namespace covers that name;
 * and an object (a pod) that falls under one of `matchScopes` is refused unless a quota in the namespace
 * has a scope of that name that the object also falls under. Pure: the plugin supplies quotas and usage.
 */
import { RESOURCE_QUOTA_CONFIG_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { isObject } from '../../api/types.js';
import { PluginConfigurationError } from './common.js';
import { matchesScopes, podMatchesScope, quotaScopes, type ScopeRequirement } from './quota-scopes.js';
import { matchingResources, type ResourceList } from './quota-usage.js';

export const RESOURCE_QUOTA_CONFIG_KIND = 'Configuration';
export const RESOURCE_QUOTA_CONFIG_VERSIONS: readonly string[] = ['v1', 'v1beta1', 'v1alpha1'].map((v) => `${RESOURCE_QUOTA_CONFIG_GROUP}/${v}`);

export interface LimitedResource {
  readonly apiGroup: string;
  readonly resource: string;
  readonly matchContains: readonly string[];
  readonly matchScopes: readonly ScopeRequirement[];
}

const TOP_FIELDS = new Set(['apiVersion', 'kind', 'limitedResources']);
const ENTRY_FIELDS = new Set(['apiGroup', 'resource', 'matchContains', 'matchScopes']);
const SCOPE_FIELDS = new Set(['scopeName', 'operator', 'values']);
/** Scope names and operators a quota's scope selector accepts (the same apply here). */
const SCOPE_NAMES = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];
const OPERATORS = ['DoesNotExist', 'Exists', 'In', 'NotIn'];

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

function strings(v: unknown, at: string, errs: string[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    errs.push(`${at}: must be a list of strings`);
    return [];
  }
  return v as string[];
}

function parseScope(v: unknown, at: string, errs: string[]): ScopeRequirement | undefined {
  if (!isObject(v)) {
    errs.push(`${at}: must be an object with scopeName, operator and values`);
    return undefined;
  }
  const before = errs.length;
  for (const k of Object.keys(v)) if (!SCOPE_FIELDS.has(k)) errs.push(`${at}.${k}: unknown field`);
  if (typeof v.scopeName !== 'string' || !SCOPE_NAMES.includes(v.scopeName)) {
    errs.push(`${at}.scopeName: Unsupported value: ${JSON.stringify(v.scopeName ?? '')}: supported values: ${quoted(SCOPE_NAMES)}`);
  }
  if (typeof v.operator !== 'string' || !OPERATORS.includes(v.operator)) {
    errs.push(`${at}.operator: Unsupported value: ${JSON.stringify(v.operator ?? '')}: supported values: ${quoted(OPERATORS)}`);
  }
  const values = strings(v.values, `${at}.values`, errs);
  if ((v.operator === 'In' || v.operator === 'NotIn') && values.length === 0) errs.push(`${at}.values: Required value: must be at least one for In or NotIn`);
  if ((v.operator === 'Exists' || v.operator === 'DoesNotExist') && values.length > 0) errs.push(`${at}.values: Invalid value: must be empty for Exists or DoesNotExist`);
  if (v.scopeName !== 'PriorityClass' && v.operator !== 'Exists' && typeof v.operator === 'string' && typeof v.scopeName === 'string') {
    errs.push(`${at}.operator: Invalid value: ${JSON.stringify(v.operator)}: only Exists applies to scope ${v.scopeName}`);
  }
  if (errs.length > before) return undefined;
  return { scopeName: v.scopeName as string, operator: v.operator as string, values };
}

/** The limited resources of a configuration (none without one); throws a PluginConfigurationError listing every bad field. */
export function parseResourceQuotaConfiguration(raw: unknown): LimitedResource[] {
  if (raw === undefined) return [];
  if (!isObject(raw)) throw new PluginConfigurationError('the configuration must be an object');
  const errs: string[] = [];
  for (const k of Object.keys(raw)) if (!TOP_FIELDS.has(k)) errs.push(`${k}: unknown field`);
  if (typeof raw.apiVersion !== 'string' || !RESOURCE_QUOTA_CONFIG_VERSIONS.includes(raw.apiVersion)) {
    errs.push(`apiVersion: Unsupported value ${JSON.stringify(raw.apiVersion ?? '')}: supported values: ${quoted(RESOURCE_QUOTA_CONFIG_VERSIONS)}`);
  }
  if (raw.kind !== RESOURCE_QUOTA_CONFIG_KIND) errs.push(`kind: Unsupported value ${JSON.stringify(raw.kind ?? '')}: supported values: "${RESOURCE_QUOTA_CONFIG_KIND}"`);
  const out: LimitedResource[] = [];
  const entries = raw.limitedResources ?? [];
  if (!Array.isArray(entries)) errs.push('limitedResources: must be a list');
  else {
    entries.forEach((e: unknown, i: number) => {
      const at = `limitedResources[${i}]`;
      if (!isObject(e)) return void errs.push(`${at}: must be an object with apiGroup, resource, matchContains and matchScopes`);
      const before = errs.length;
      for (const k of Object.keys(e)) if (!ENTRY_FIELDS.has(k)) errs.push(`${at}.${k}: unknown field`);
      if (e.apiGroup !== undefined && e.apiGroup !== null && typeof e.apiGroup !== 'string') errs.push(`${at}.apiGroup: must be a string`);
      if (typeof e.resource !== 'string' || e.resource === '') errs.push(`${at}.resource: Required value`);
      const matchContains = strings(e.matchContains, `${at}.matchContains`, errs);
      const scopes = e.matchScopes ?? [];
      const matchScopes: ScopeRequirement[] = [];
      if (!Array.isArray(scopes)) errs.push(`${at}.matchScopes: must be a list`);
      else scopes.forEach((s: unknown, j: number) => {
        const scope = parseScope(s, `${at}.matchScopes[${j}]`, errs);
        if (scope) matchScopes.push(scope);
      });
      if (errs.length === before) out.push({ apiGroup: typeof e.apiGroup === 'string' ? e.apiGroup : '', resource: e.resource as string, matchContains, matchScopes });
    });
  }
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  return out;
}

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
