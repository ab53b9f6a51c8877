/**
 * EventRateLimit's configuration document (spec 2.12): `Configuration` in
 * the `eventratelimit.admission` group (v1alpha1), with `limits[]` of `type`, `qps`, `burst` and `cacheSize`.
 * Checked at start-up; every problem is reported with its field path.
 */
import { EVENT_RATE_LIMIT_CONFIG_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { PluginConfigurationError } from './plugin-error.js';

export const EVENT_RATE_LIMIT_CONFIG_API_VERSION = `${EVENT_RATE_LIMIT_CONFIG_GROUP}/v1alpha1`;
export const EVENT_RATE_LIMIT_CONFIG_KIND = 'Configuration';

/** What a limit counts by: the whole server, a namespace, a user, or an event's source and object. */
export type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';
/** In the order the reference lists them in its "supported values" message (sorted). */
export const LIMIT_TYPES: readonly LimitType[] = ['Namespace', 'Server', 'SourceAndObject', 'User'];
/** Buckets kept per limit when `cacheSize` is left out or 0. */
export const DEFAULT_CACHE_SIZE = 4096;

export interface EventLimit {
  readonly type: LimitType;
  readonly qps: number;
  readonly burst: number;
  /** Most recently used keys kept; meaningless for Server (one bucket). */
  readonly cacheSize: number;
}

const INT32_MAX = 2 ** 31 - 1;
const TOP_FIELDS = new Set(['apiVersion', 'kind', 'limits']);
const LIMIT_FIELDS = new Set(['type', 'qps', 'burst', 'cacheSize']);

/** The limits of a configuration, defaulted; throws a PluginConfigurationError listing every bad field. */
export function parseEventRateLimitConfiguration(raw: unknown): EventLimit[] {
  if (raw === undefined) {
    throw new PluginConfigurationError(`no configuration given: EventRateLimit needs a ${EVENT_RATE_LIMIT_CONFIG_KIND} (${EVENT_RATE_LIMIT_CONFIG_API_VERSION}) in the AdmissionConfiguration`);
  }
  if (!isObject(raw)) throw new PluginConfigurationError('the configuration must be an object');
  const errs: string[] = [];
  for (const k of Object.keys(raw)) if (!TOP_FIELDS.has(k)) errs.push(`${k}: unknown field`);
  if (raw.apiVersion !== EVENT_RATE_LIMIT_CONFIG_API_VERSION) {
    errs.push(`apiVersion: Unsupported value ${JSON.stringify(raw.apiVersion ?? '')}: supported values: "${EVENT_RATE_LIMIT_CONFIG_API_VERSION}"`);
  }
  if (raw.kind !== EVENT_RATE_LIMIT_CONFIG_KIND) {
    errs.push(`kind: Unsupported value ${JSON.stringify(raw.kind ?? '')}: supported values: "${EVENT_RATE_LIMIT_CONFIG_KIND}"`);
  }
  const limits: EventLimit[] = [];
  if (!Array.isArray(raw.limits) || raw.limits.length === 0) {
    errs.push(Array.isArray(raw.limits) || raw.limits === undefined || raw.limits === null ? 'limits: Invalid value: []: must not be empty' : 'limits: must be a list');
  } else {
    const seen = new Set<string>();
    raw.limits.forEach((entry: unknown, i: number) => {
      const limit = parseLimit(entry, `limits[${i}]`, errs);
      if (!limit) return;
      if (seen.has(limit.type)) errs.push(`limits[${i}].type: Duplicate value: "${limit.type}"`);
      seen.add(limit.type);
      limits.push(limit);
    });
  }
  if (errs.length > 0) throw new PluginConfigurationError(errs.join(', '));
  return limits;
}

function parseLimit(entry: unknown, at: string, errs: string[]): EventLimit | undefined {
  if (!isObject(entry)) {
    errs.push(`${at}: must be an object with type, qps, burst and cacheSize`);
    return undefined;
  }
  const before = errs.length;
  for (const k of Object.keys(entry)) if (!LIMIT_FIELDS.has(k)) errs.push(`${at}.${k}: unknown field`);
  const type = entry.type;
  if (type === undefined || type === null || type === '') errs.push(`${at}.type: Required value`);
  else if (typeof type !== 'string' || !(LIMIT_TYPES as readonly string[]).includes(type)) {
    errs.push(`${at}.type: Unsupported value: ${JSON.stringify(type)}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(', ')}`);
  }
  const qps = int32(entry.qps, `${at}.qps`, errs, 1, 'must be positive');
  const burst = int32(entry.burst, `${at}.burst`, errs, 1, 'must be positive');
  const cacheSize = entry.cacheSize === undefined || entry.cacheSize === null ? 0 : int32(entry.cacheSize, `${at}.cacheSize`, errs, 0, 'must not be negative');
  if (errs.length > before) return undefined;
  return { type: type as LimitType, qps: qps!, burst: burst!, cacheSize: cacheSize === 0 ? DEFAULT_CACHE_SIZE : cacheSize! };
}

/** An int32 of at least `min`; a missing value counts as 0, as the reference's decoding leaves it. */
function int32(v: unknown, at: string, errs: string[], min: number, why: string): number | undefined {
  const n = v === undefined || v === null ? 0 : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n > INT32_MAX || n < -INT32_MAX - 1) {
    errs.push(`${at}: Invalid value: ${JSON.stringify(v)}: must be a 32-bit integer`);
    return undefined;
  }
  if (n < min) {
    errs.push(`${at}: Invalid value: ${n}: ${why}`);
    return undefined;
  }
  return n;
}
