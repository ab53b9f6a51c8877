/**
 * Values for request bodies: objects generated from a kind's reference schema (a random subset of its
 * fields, each of the right JSON type), and mutations of them that a hostile or buggy client might send.
 * Pure functions of the `Rng` they are given.
 */
import type { Schema } from '../../src/api/index.js';
import type { Rng } from './prng.js';

/** Strings a value may be replaced with: odd unicode, control characters, syntax of other layers. */
export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\u0007\b\f\r\n\t',
  'é',
  '\u00ff\u00fe',
  'ünïcödé-名前-имя',
  '\u{1F600}\u{1F4A9}',
  '\ud800', // a lone surrogate
  '\u202e\u200b\ufeff',
  '../../etc/passwd',
  '%2F%2e%2e',
  '${jndi:x}',
  '{{.}}',
  '<script>',
  "'; DROP TABLE x; --",
  '*',
  '!=,in,notin()',
  'a'.repeat(64),
  '-1',
  '1e400',
  'NaN',
  'null',
  'true',
  '0x10',
  '2024-13-45T99:99:99Z',
  'system:masters',
];

/** Numbers at the edges of every integer type the API uses. */
export const ODD_NUMBERS: readonly number[] = [0, -1, 1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e308, -1e308, 0.5, Number.MIN_VALUE];

const SAMPLE_DATE = '2024-05-06T07:08:09Z';

export interface GenOptions {
  /** Chance that an optional property is generated. */
  fill: number;
  /** Depth after which only required members are generated. */
  maxDepth: number;
}

const DEFAULT_GEN: GenOptions = { fill: 0.3, maxDepth: 6 };

/** A value of `schema`: right JSON types, required members always, others by chance; recursion is cut. */
export function generate(rng: Rng, schema: Schema | undefined, opts: GenOptions = DEFAULT_GEN, depth = 0): unknown {
  if (!schema) return rng.pick(['x', 1, true, null, {}, []]);
  if (schema.enum && schema.enum.length > 0) return rng.pick(schema.enum);
  if (schema['x-kubernetes-int-or-string']) return rng.chance(0.5) ? rng.int(0, 100) : rng.pick(['1', '50%', '100m', '1Gi', 'http']);
  switch (schema.type) {
    case 'string':
      return stringFor(rng, schema.format);
    case 'integer':
      return rng.chance(0.9) ? rng.int(0, 100) : rng.pick(ODD_NUMBERS);
    case 'number':
      return rng.chance(0.9) ? rng.int(0, 1000) / 10 : rng.pick(ODD_NUMBERS);
    case 'boolean':
      return rng.chance(0.5);
    case 'array': {
      if (depth >= opts.maxDepth) return [];
      const n = rng.weighted([[6, 1], [2, 0], [2, 2], [1, 3]] as const);
      return Array.from({ length: n }, () => generate(rng, schema.items, opts, depth + 1));
    }
    default:
      return objectFor(rng, schema, opts, depth);
  }
}

function objectFor(rng: Rng, schema: Schema, opts: GenOptions, depth: number): unknown {
  const out: Record<string, unknown> = {};
  const required = new Set(schema.required ?? []);
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    if (k === 'apiVersion' || k === 'kind' || k === 'status' && depth === 0) continue;
    if (required.has(k) || (depth < opts.maxDepth && rng.chance(opts.fill))) {
      const v = generate(rng, sub, opts, depth + 1);
      if (v !== undefined) out[k] = v;
    }
  }
  if (typeof schema.additionalProperties === 'object' && depth < opts.maxDepth) {
    for (let i = rng.int(0, 2); i > 0; i--) out[rng.pick(['a', 'app', 'k8s.x/y', 'tier', rng.text(rng.int(1, 10))])] = generate(rng, schema.additionalProperties, opts, depth + 1);
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties && rng.chance(0.5)) out.raw = rng.pick([1, 'x', { a: [1, 2] }]);
  return out;
}

function stringFor(rng: Rng, format: string | undefined): string {
  if (format === 'date-time') return rng.chance(0.9) ? SAMPLE_DATE : rng.pick(['yesterday', '2024-05-06', '']);
  if (format === 'byte') return rng.chance(0.9) ? Buffer.from(rng.text(rng.int(0, 12))).toString('base64') : '%%%not base64';
  return rng.weighted([
    [6, () => rng.text(rng.int(1, 12), 'abcdefghijklmnopqrstuvwxyz0123456789')],
    [1, () => rng.pick(['nginx:1.27', '10.0.0.1', 'TCP', 'Always', 'ClusterIP', 'example.test/x', '80', 'None'])],
    [1, () => rng.pick(ODD_STRINGS)],
  ] as const)();
}

/** `levels` nested objects or arrays around a leaf. */
export function deepNest(levels: number, asArray: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = asArray ? [v] : { a: v };
  return v;
}

type Path = (string | number)[];

/** Every position (object member or array item) inside `value`, root excluded. */
export function positions(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) value.forEach((v, i) => (out.push([...path, i]), positions(v, [...path, i], out)));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push([...path, k]), positions(v, [...path, k], out);
  return out;
}

function setAt(root: unknown, path: Path, f: (old: unknown) => unknown | typeof REMOVE): void {
  let at = root as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) at = at[p] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  const v = f(at[last]);
  if (v === REMOVE) {
    if (Array.isArray(at)) at.splice(last as number, 1);
    else delete at[last];
  } else at[last] = v;
}

const REMOVE = Symbol('remove');

/** The names of the ways `mutate` changes a value (reported with a failing input). */
export const MUTATIONS = ['swap-type', 'remove', 'extra-field', 'huge-string', 'unicode', 'deep-nesting', 'null', 'odd-number', 'wrong-metadata', 'duplicate-kind'] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** A copy of `value` changed at a random position in one of the MUTATIONS ways. */
export function mutate(rng: Rng, value: unknown, kind: Mutation = rng.pick(MUTATIONS)): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const all = positions(copy);
  const at = all.length > 0 ? rng.pick(all) : undefined;
  const change = (f: (old: unknown) => unknown) => (at ? setAt(copy, at, f) : undefined);
  switch (kind) {
    case 'swap-type':
      change((old) => (Array.isArray(old) ? { '0': old[0] } : typeof old === 'object' && old ? [old] : typeof old === 'string' ? rng.int(-5, 5) : typeof old === 'number' ? String(old) : { old }));
      break;
    case 'remove':
      change(() => REMOVE);
      break;
    case 'extra-field':
      change((old) => (old && typeof old === 'object' && !Array.isArray(old) ? { ...old, [rng.pick(['unknownField', 'x-é', 'status', '$patch', 'ünknöwn', 'a'.repeat(300)])]: rng.pick([1, 'x', {}]) } : old));
      if (!at && isObject(copy)) copy.unknownTopLevel = 1;
      break;
    case 'huge-string':
      change(() => rng.pick(['x', 'é', '\u{1F600}']).repeat(rng.pick([300, 70_000, 1_100_000])));
      break;
    case 'unicode':
      change(() => rng.pick(ODD_STRINGS));
      break;
    case 'deep-nesting':
      change(() => deepNest(rng.pick([50, 200, 1_000]), rng.chance(0.5)));
      break;
    case 'null':
      change(() => null);
      break;
    case 'odd-number':
      change(() => rng.pick(ODD_NUMBERS));
      break;
    case 'wrong-metadata': {
      if (!isObject(copy)) break;
      const meta = (isObject(copy.metadata) ? copy.metadata : {}) as Record<string, unknown>;
      const field = rng.pick(['name', 'namespace', 'resourceVersion', 'uid', 'generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields', 'deletionTimestamp', 'creationTimestamp']);
      meta[field] = rng.pick<unknown>(['', 'UPPER', 'fz-x', '-bad', 'a'.repeat(300), 7, null, ['x'], { 'a/b/c': 'x' }, { '': '' }, [{ manager: 7 }], '99999999999999999999', 'protected']);
      copy.metadata = meta;
      break;
    }
    case 'duplicate-kind':
      if (!isObject(copy)) break;
      copy.kind = rng.pick(['Status', 'List', 'Pod', '', 'ConfigMapList', 'Namespace']);
      copy.apiVersion = rng.pick(['v1', 'v2', 'apps/v1', '', '/', 'x/y/z']);
      break;
  }
  return copy;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
