/**
 * A small table-driven decoder for component configuration documents: each block is a map of field name to
 * its type, default and range, so a document's many blocks are data, not code. Decoding applies defaults,
 * checks types and ranges, and collects every problem with its field path (it never stops at the first).
 */
import { parse as parseYaml } from 'yaml';
import { PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { parseGoDuration } from '../util/duration.js';

export const INT32_MAX = 2 ** 31 - 1;
export const INT32_MIN = -(2 ** 31);

/** One field of a block. Durations decode to milliseconds. */
export type FieldSpec =
  | { t: 'bool'; d?: boolean }
  | { t: 'int'; d?: number; min?: number; max?: number; rule?: string; int64?: boolean }
  | { t: 'float'; d?: number; min?: number }
  | { t: 'str'; d?: string; oneOf?: readonly string[] }
  | { t: 'dur'; d?: number; min?: number; rule?: string }
  | { t: 'strs'; d?: readonly string[] }
  | { t: 'map'; of: 'bool' | 'str' }
  | { t: 'obj'; fields: Schema }
  | { t: 'list'; of: Schema; d?: readonly Decoded[] };

export type Schema = Readonly<Record<string, FieldSpec>>;
export type Decoded = Record<string, unknown>;

/** Problems found so far, each `path: message`. */
export type Problems = string[];

const q = (v: unknown) => JSON.stringify(v ?? '');
export const supportedValues = (list: readonly string[]) => `supported values: ${list.map((v) => q(v)).join(', ')}`;
const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** Decodes `value` (an object or absent) against `schema`; an absent block is all defaults. */
export function decodeBlock(value: unknown, schema: Schema, path: string, problems: Problems): Decoded {
  const out: Decoded = {};
  let src: Record<string, unknown> = {};
  if (value !== undefined && value !== null) {
    if (isObject(value)) src = value;
    else problems.push(`${path}: Invalid value: ${q(value)}: must be an object`);
  }
  for (const k of Object.keys(src)) if (!(k in schema)) problems.push(`${join(path, k)}: unknown field`);
  for (const [k, spec] of Object.entries(schema)) {
    const v = decodeField(src[k], spec, join(path, k), problems);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function decodeField(v: unknown, spec: FieldSpec, path: string, problems: Problems): unknown {
  if (spec.t === 'obj') return decodeBlock(v, spec.fields, path, problems);
  if (v === undefined || v === null) return spec.t === 'map' ? {} : spec.t === 'list' ? (spec.d ?? []).map((e) => ({ ...e })) : spec.d;
  switch (spec.t) {
    case 'bool':
      if (typeof v === 'boolean') return v;
      problems.push(`${path}: Invalid value: ${q(v)}: must be true or false`);
      return spec.d;
    case 'int': {
      const limit = spec.int64 ? Number.MAX_SAFE_INTEGER : INT32_MAX;
      if (typeof v !== 'number' || !Number.isInteger(v) || v > limit || v < -limit - 1) {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a ${spec.int64 ? '64' : '32'}-bit integer`);
        return spec.d;
      }
      if ((spec.min !== undefined && v < spec.min) || (spec.max !== undefined && v > spec.max)) {
        problems.push(`${path}: Invalid value: ${v}: ${spec.rule ?? rangeRule(spec.min, spec.max)}`);
      }
      return v;
    }
    case 'float':
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a number`);
        return spec.d;
      }
      if (spec.min !== undefined && v < spec.min) problems.push(`${path}: Invalid value: ${v}: must be greater than or equal to ${spec.min}`);
      return v;
    case 'str':
      if (typeof v !== 'string') {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a string`);
        return spec.d;
      }
      if (spec.oneOf && !spec.oneOf.includes(v)) problems.push(`${path}: Unsupported value: ${q(v)}: ${supportedValues(spec.oneOf)}`);
      return v === '' && spec.d !== undefined ? spec.d : v;
    case 'dur': {
      const ms = typeof v === 'string' ? parseGoDuration(v) : undefined;
      if (ms === undefined) {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a duration such as "30s" or "1m30s"`);
        return spec.d;
      }
      if (spec.min !== undefined && ms < spec.min) problems.push(`${path}: Invalid value: ${q(v)}: ${spec.rule ?? 'must be greater than or equal to 0'}`);
      return ms;
    }
    case 'strs':
      if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a list of strings`);
        return spec.d ?? [];
      }
      return v as string[];
    case 'list':
      if (!Array.isArray(v)) {
        problems.push(`${path}: Invalid value: ${q(v)}: must be a list`);
        return [];
      }
      return v.map((e, i) => decodeBlock(e, spec.of, `${path}[${i}]`, problems));
    case 'map':
      if (!isObject(v) || Object.values(v).some((x) => typeof x !== (spec.of === 'bool' ? 'boolean' : 'string'))) {
        problems.push(`${path}: Invalid value: must be a map of ${spec.of === 'bool' ? 'names to true or false' : 'strings'}`);
        return {};
      }
      return v;
  }
}

function rangeRule(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `must be in the range ${min} to ${max}`;
  if (min !== undefined) return min === 1 ? 'must be greater than 0' : `must be greater than or equal to ${min}`;
  return `must be less than or equal to ${max}`;
}

/** Parses one document's text (YAML 1.1 or JSON, duplicate keys refused); undefined and a problem on failure. */
export function parseDocumentText(text: string, problems: Problems): unknown {
  try {
    return parseYaml(text, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 });
  } catch (e) {
    problems.push(`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** Checks `apiVersion` and `kind`; returns the top-level object or undefined when it is not one. */
export function checkTypeMeta(doc: unknown, apiVersion: string, kind: string, problems: Problems): Record<string, unknown> | undefined {
  if (!isObject(doc)) {
    problems.push(`the document must be an object (a ${kind})`);
    return undefined;
  }
  if (doc.apiVersion !== apiVersion) problems.push(`apiVersion: Unsupported value: ${q(doc.apiVersion)}: ${supportedValues([apiVersion])}`);
  if (doc.kind !== kind) problems.push(`kind: Unsupported value: ${q(doc.kind)}: ${supportedValues([kind])}`);
  return doc;
}

/** The `clientConnection` block the components share (a kubeconfig and its request limits). */
export function clientConnection(qps: number, burst: number): Schema {
  return {
    kubeconfig: { t: 'str', d: '' },
    acceptContentTypes: { t: 'str', d: '' },
    contentType: { t: 'str', d: PROTOBUF_MEDIA_TYPE },
    qps: { t: 'float', d: qps, min: 0 },
    burst: { t: 'int', d: burst, min: 0 },
  };
}

/** The shared `logging` block: the reference's formats and verbosity. */
export const LOGGING: Schema = {
  format: { t: 'str', d: 'text', oneOf: ['text', 'json'] },
  flushFrequency: { t: 'dur', d: 5000, min: 1, rule: 'must be greater than 0' },
  verbosity: { t: 'int', d: 0, min: 0 },
  vmodule: { t: 'strs' },
  options: { t: 'obj', fields: { json: { t: 'obj', fields: { splitStream: { t: 'bool', d: false }, infoBufferSize: { t: 'str', d: '0' } } }, text: { t: 'obj', fields: { splitStream: { t: 'bool', d: false }, infoBufferSize: { t: 'str', d: '0' } } } } },
};

/** Whether `text` is an IPv4 or IPv6 address. */
export function isIP(text: string): boolean {
  return isIPv4(text) || isIPv6(text);
}

export function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

export function isIPv6(text: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || !text.includes(':')) return false;
  let s = text;
  let groups = 0;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(s.slice(lastColon + 1))) return false;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return false;
  for (const half of halves) {
    if (half === '') continue;
    for (const g of half.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return false;
      groups++;
    }
  }
  return halves.length === 2 ? groups < 8 : groups === 8;
}

/** Whether `text` is a CIDR (`address/prefix`) with a prefix that fits the address family. */
export function isCIDR(text: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return false;
  const bits = Number(m[2]);
  if (isIPv4(m[1]!)) return bits <= 32;
  return isIPv6(m[1]!) && bits <= 128;
}

/** Whether `text` is `host:port` with an IP host (IPv6 in brackets) and a port 0 to 65535 (0 turns the listener off). */
export function isIPPort(text: string): boolean {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  if (!m) return false;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  return (m[1] ? isIPv6(host) : isIPv4(host)) && port <= 65535;
}
