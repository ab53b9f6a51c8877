/**
 * Which group/versions and resources are served (spec 3.2, 9.4): by default stable versions on, alpha off,
 * beta off unless the reference enables it by default; `--runtime-config` changes that.
 */
import { GROUP_SUFFIX, RBAC_GROUP } from '../../api/naming.js';
import { RESOURCES } from '../../generated/resources.js';
import { removalMessage } from './removed-versions.js';

/** Which resources are served: a group/version/resource predicate. */
export type ResourceFilter = (group: string, version: string, plural: string) => boolean;

/** Beta versions the reference 1.31 serves by default (introduced after 1.22, enabled by the reference). */
const BETA_ON_BY_DEFAULT = new Set([`flowcontrol.apiserver.${GROUP_SUFFIX}/v1beta3`]);

export type Stability = 'ga' | 'beta' | 'alpha';

export function stabilityOf(version: string): Stability {
  if (/alpha/.test(version)) return 'alpha';
  if (/beta/.test(version)) return 'beta';
  return 'ga';
}

export function defaultVersionEnabled(group: string, version: string): boolean {
  const s = stabilityOf(version);
  if (s === 'ga') return true;
  if (s === 'beta') return BETA_ON_BY_DEFAULT.has(`${group}/${version}`);
  return false;
}

/** `--runtime-config` as given: key to on/off, in the order given (a repeated key: the last one counts). */
export type RuntimeConfig = Record<string, boolean>;

const FLAG = '--runtime-config';
/** The `api/*` keys, in the order the reference applies them (later ones override earlier ones). */
const STABILITY_KEYS: readonly [string, (s: Stability) => boolean][] = [
  ['api/all', () => true],
  ['api/ga', (s) => s === 'ga'],
  ['api/beta', (s) => s === 'beta'],
  ['api/alpha', (s) => s === 'alpha'],
];
/**
 * Resources the server itself needs (namespace lifecycle, the RBAC authorizer's index). The reference would
 * start without them; here that is a start-up error rather than a server that cannot work.
 */
const REQUIRED_RESOURCES: readonly [string, string, string][] = [
  ['', 'v1', 'namespaces'],
  ...['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((p): [string, string, string] => [RBAC_GROUP, 'v1', p]),
];
const KEY_SHAPES = '<group>/<version>, <group>/<version>/<resource>, api/all, api/ga, api/beta or api/alpha';

/**
 * Parses `<key>[=<value>],...`: a missing value means true, otherwise `true` or `false`. Checks the shape of
 * each key; whether it names something served is `servingFilter`'s business.
 */
export function parseRuntimeConfig(text: string): RuntimeConfig {
  const out: RuntimeConfig = {};
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    const key = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const value = eq < 0 ? '' : entry.slice(eq + 1).trim();
    const parts = key.split('/');
    if (key === '' || parts.length > 3 || parts.some((p) => p === '') || (parts.length === 1 && key !== 'v1')) {
      throw new Error(`${FLAG}: invalid key "${key}" (expected ${KEY_SHAPES})`);
    }
    const resource = parts[2];
    if (resource !== undefined && resource !== resource.toLowerCase()) {
      throw new Error(`${FLAG}: invalid key "${key}": a resource is a lowercase plural, not "${resource}"`);
    }
    if (value !== '' && value !== 'true' && value !== 'false') {
      throw new Error(`${FLAG}: invalid value "${value}" for "${key}" (true or false)`);
    }
    delete out[key]; // keep the order of the last occurrence
    out[key] = value !== 'false';
  }
  return out;
}

/** A key's group/version (core: `v1` or `api/v1`) and resource, if any. */
function splitKey(key: string): { group: string; version: string; resource?: string } {
  if (key === 'v1') return { group: '', version: 'v1' };
  const [a, b, c] = key.split('/') as [string, string, string | undefined];
  const group = a === 'api' && b === 'v1' ? '' : a;
  return c === undefined ? { group, version: b } : { group, version: b, resource: c };
}

const gvKey = (group: string, version: string) => `${group}/${version}`;

/** The reference data's group/versions and their resources. */
function servedByReference(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of RESOURCES) {
    const k = gvKey(r.group, r.version);
    let set = out.get(k);
    if (!set) out.set(k, (set = new Set()));
    set.add(r.plural);
  }
  return out;
}

/**
 * The filter a runtime config describes, checked against the reference data: an unknown or removed
 * group/version or resource is an error. Precedence as the reference: a resource key beats its
 * group/version key, which beats the `api/*` keys, which beat the defaults.
 */
export function servingFilter(config: RuntimeConfig): ResourceFilter {
  const known = servedByReference();
  const byStability: [(s: Stability) => boolean, boolean][] = [];
  const versions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  for (const [name, match] of STABILITY_KEYS) {
    const on = config[name];
    if (on !== undefined) byStability.push([match, on]);
  }
  for (const [key, on] of Object.entries(config)) {
    if (STABILITY_KEYS.some(([name]) => name === key)) continue;
    const { group, version, resource } = splitKey(key);
    const plurals = known.get(gvKey(group, version));
    if (!plurals) {
      throw new Error(`${FLAG}: ${removalMessage(group, version) ?? `unknown group/version "${group}/${version}"`}`);
    }
    if (resource === undefined) {
      versions.set(gvKey(group, version), on);
      continue;
    }
    if (!plurals.has(resource)) {
      throw new Error(`${FLAG}: ${removalMessage(group, version, resource) ?? `unknown resource "${resource}" in ${group || 'the core group'}/${version}`}`);
    }
    resources.set(`${gvKey(group, version)}/${resource}`, on);
  }
  const served: ResourceFilter = (group, version, plural) => {
    const forResource = resources.get(`${gvKey(group, version)}/${plural}`);
    if (forResource !== undefined) return forResource;
    const forVersion = versions.get(gvKey(group, version));
    if (forVersion !== undefined) return forVersion;
    const s = stabilityOf(version);
    let on = defaultVersionEnabled(group, version);
    for (const [match, value] of byStability) if (match(s)) on = value;
    return on;
  };
  for (const [group, version, plural] of REQUIRED_RESOURCES) {
    if (!served(group, version, plural)) {
      throw new Error(`${FLAG}: ${group ? `${group}/` : ''}${version} ${plural} cannot be turned off: this server relies on it`);
    }
  }
  return served;
}
