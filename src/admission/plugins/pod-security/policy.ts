/**
 * Pod security policies: a level and a version for each of enforce, audit and warn, from the namespace's
 * labels over the configured defaults; and the plugin's configuration document (`PodSecurityConfiguration`).
 */
import { POD_SECURITY_CONFIG_GROUP, POD_SECURITY_LABEL_PREFIX } from '../../../api/naming.js';
import type { Level } from './checks.js';

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
export type Mode = 'enforce' | 'audit' | 'warn';
export const MODES: readonly Mode[] = ['enforce', 'audit', 'warn'];

/** A level at a version; `minor` undefined is `latest`. */
export interface LevelVersion {
  level: Level;
  minor: number | undefined;
}
export type Policy = Record<Mode, LevelVersion>;

export const levelVersionString = (lv: LevelVersion) => `${lv.level}:${lv.minor === undefined ? 'latest' : `v1.${lv.minor}`}`;
export const sameLevelVersion = (a: LevelVersion, b: LevelVersion) => a.level === b.level && a.minor === b.minor;
const rank = (l: Level) => LEVELS.indexOf(l);

export function parseLevel(v: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(v) ? (v as Level) : undefined;
}

/** `latest` → { minor: undefined }; `v1.<n>` → n; anything else undefined. */
export function parseVersion(v: string): { minor: number | undefined } | undefined {
  if (v === 'latest') return { minor: undefined };
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(v);
  return m ? { minor: Number(m[1]) } : undefined;
}

export const LEVEL_MESSAGE = `must be one of ${LEVELS.join(', ')}`;
export const VERSION_MESSAGE = 'must be "latest" or "v1.x"';

export interface LabelError {
  field: string;
  value: string;
  message: string;
}

export const PRIVILEGED_LATEST: LevelVersion = { level: 'privileged', minor: undefined };
export const ALL_PRIVILEGED: Policy = { enforce: PRIVILEGED_LATEST, audit: PRIVILEGED_LATEST, warn: PRIVILEGED_LATEST };

/**
 * The policy a namespace's labels select over `defaults`, and the label errors. A bad enforce level fails
 * closed (restricted); a bad audit or warn level is privileged; a bad version is latest. Without a warn
 * label, warn follows a stricter enforce level (so users see what enforce will refuse).
 */
export function policyFromLabels(labels: Record<string, unknown> | undefined, defaults: Policy): { policy: Policy; errors: LabelError[] } {
  const policy: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: LabelError[] = [];
  if (!labels) return { policy, errors };
  const has = (k: string) => Object.prototype.hasOwnProperty.call(labels, k);
  let enforceLevelSet = false;
  let warnVersionSet = false;
  for (const mode of MODES) {
    const levelKey = POD_SECURITY_LABEL_PREFIX + mode;
    const versionKey = `${levelKey}-version`;
    if (has(levelKey)) {
      const value = String(labels[levelKey]);
      const level = parseLevel(value);
      if (level) policy[mode].level = level;
      else {
        errors.push({ field: `metadata.labels[${levelKey}]`, value, message: LEVEL_MESSAGE });
        policy[mode].level = mode === 'enforce' ? 'restricted' : 'privileged';
      }
      if (mode === 'enforce') enforceLevelSet = level !== undefined;
    }
    if (has(versionKey)) {
      const value = String(labels[versionKey]);
      const version = parseVersion(value);
      if (!version) errors.push({ field: `metadata.labels[${versionKey}]`, value, message: VERSION_MESSAGE });
      policy[mode].minor = version ? version.minor : undefined;
      if (mode === 'warn') warnVersionSet = true;
    }
  }
  if (!has(POD_SECURITY_LABEL_PREFIX + 'warn') && enforceLevelSet && rank(policy.enforce.level) > rank(policy.warn.level)) {
    policy.warn.level = policy.enforce.level;
    if (!warnVersionSet) policy.warn.minor = policy.enforce.minor;
  }
  return { policy, errors };
}

export const POD_SECURITY_CONFIGURATION_KIND = 'PodSecurityConfiguration';
export const POD_SECURITY_CONFIG_VERSIONS = [`${POD_SECURITY_CONFIG_GROUP}/v1`, `${POD_SECURITY_CONFIG_GROUP}/v1beta1`];

export interface PodSecurityConfig {
  defaults: Policy;
  exemptUsernames: ReadonlySet<string>;
  exemptNamespaces: ReadonlySet<string>;
  exemptRuntimeClasses: ReadonlySet<string>;
}

/** Thrown at start-up for a configuration that cannot be used; the message names the field. */
export class PodSecurityConfigError extends Error {}

const DEFAULT_KEYS = MODES.flatMap((m) => [m, `${m}-version`]);
const EXEMPTION_KEYS = ['usernames', 'namespaces', 'runtimeClasses'];

/** Reads the configuration (undefined: the reference defaults, everything privileged:latest, no exemptions). */
export function parsePodSecurityConfig(raw: unknown): PodSecurityConfig {
  // Three separate objects: each mode's default is filled in on its own.
  const defaults: Policy = { enforce: { ...PRIVILEGED_LATEST }, audit: { ...PRIVILEGED_LATEST }, warn: { ...PRIVILEGED_LATEST } };
  const config: PodSecurityConfig = { defaults, exemptUsernames: new Set(), exemptNamespaces: new Set(), exemptRuntimeClasses: new Set() };
  if (raw === undefined) return config;
  const err = (m: string) => new PodSecurityConfigError(m);
  const obj = raw as Record<string, unknown>;
  for (const k of Object.keys(obj)) if (!['apiVersion', 'kind', 'defaults', 'exemptions'].includes(k)) throw err(`${k}: unknown field`);
  if (obj.kind !== POD_SECURITY_CONFIGURATION_KIND) throw err(`kind: Unsupported value ${JSON.stringify(obj.kind ?? '')}: supported values: "${POD_SECURITY_CONFIGURATION_KIND}"`);
  if (typeof obj.apiVersion !== 'string' || !POD_SECURITY_CONFIG_VERSIONS.includes(obj.apiVersion)) {
    throw err(`apiVersion: Unsupported value ${JSON.stringify(obj.apiVersion ?? '')}: supported values: ${POD_SECURITY_CONFIG_VERSIONS.map((v) => `"${v}"`).join(', ')}`);
  }
  const given = (obj.defaults ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || Array.isArray(given)) throw err('defaults: must be an object');
  for (const k of Object.keys(given)) if (!DEFAULT_KEYS.includes(k)) throw err(`defaults.${k}: unknown field`);
  for (const mode of MODES) {
    const level = given[mode];
    if (level !== undefined) {
      const parsed = typeof level === 'string' ? parseLevel(level) : undefined;
      if (!parsed) throw err(`defaults.${mode}: Invalid value: ${JSON.stringify(level)}: ${LEVEL_MESSAGE}`);
      config.defaults[mode].level = parsed;
    }
    const version = given[`${mode}-version`];
    if (version !== undefined) {
      const parsed = typeof version === 'string' ? parseVersion(version) : undefined;
      if (!parsed) throw err(`defaults.${mode}-version: Invalid value: ${JSON.stringify(version)}: ${VERSION_MESSAGE}`);
      config.defaults[mode].minor = parsed.minor;
    }
  }
  const exemptions = (obj.exemptions ?? {}) as Record<string, unknown>;
  if (typeof exemptions !== 'object' || Array.isArray(exemptions)) throw err('exemptions: must be an object');
  const sets: Record<string, Set<string>> = { usernames: config.exemptUsernames as Set<string>, namespaces: config.exemptNamespaces as Set<string>, runtimeClasses: config.exemptRuntimeClasses as Set<string> };
  for (const [k, v] of Object.entries(exemptions)) {
    if (!EXEMPTION_KEYS.includes(k)) throw err(`exemptions.${k}: unknown field`);
    if (!Array.isArray(v)) throw err(`exemptions.${k}: must be a list of strings`);
    v.forEach((item: unknown, i: number) => {
      if (typeof item !== 'string' || item === '') throw err(`exemptions.${k}[${i}]: Invalid value: ${JSON.stringify(item)}: must be a non-empty string`);
      if (sets[k]!.has(item)) throw err(`exemptions.${k}[${i}]: Duplicate value: ${JSON.stringify(item)}`);
      sets[k]!.add(item);
    });
  }
  return config;
}
