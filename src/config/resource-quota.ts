/**
 * ResourceQuota's configuration document: `Configuration` (group `resourcequota.admission`; v1, and the
 * v1beta1 and v1alpha1 with the same fields) whose `limitedResources[]` name the consumption that needs a
 * covering quota. Checked at start-up; every problem is reported with its field path.
 */
import { RESOURCE_QUOTA_CONFIG_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { PluginConfigurationError } from './plugin-error.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

/** One scope an object may fall under, as a quota's scope selector writes it. */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

export const RESOURCE_QUOTA_CONFIG_KIND = 'Configuration';
export const RESOURCE_QUOTA_VERSION_TABLE: VersionTable = {
  current: `${RESOURCE_QUOTA_CONFIG_GROUP}/v1`,
  older: { [`${RESOURCE_QUOTA_CONFIG_GROUP}/v1beta1`]: null, [`${RESOURCE_QUOTA_CONFIG_GROUP}/v1alpha1`]: null },
};
export const RESOURCE_QUOTA_CONFIG_VERSIONS: readonly string[] = readableVersions(RESOURCE_QUOTA_VERSION_TABLE);

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
export function parseResourceQuotaConfiguration(written: unknown): LimitedResource[] {
  if (written === undefined) return [];
  const raw = toCurrentVersion(written, RESOURCE_QUOTA_VERSION_TABLE);
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
