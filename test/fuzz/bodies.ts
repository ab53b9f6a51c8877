/**
 * Request bodies: an object of the target kind (a known-good fixture or one generated from the reference
 * schema), mutated or not, written as JSON, YAML or protobuf (valid bytes, then damaged); and patches of
 * every type. Pure functions of the `Rng`.
 */
import { stringify as yamlStringify } from 'yaml';
import { META_GROUP, PROTOBUF_MEDIA_TYPE, REFERENCE_META_GROUP_ALIAS } from '../../src/api/naming.js';
import { encodeProtobuf } from '../../src/encoding/index.js';
import { definitionSchema } from '../../src/registry/reference-schema.js';
import { APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../../src/patch/mediaTypes.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { apiVersion } from './catalogue.js';
import type { Rng } from './prng.js';
import { deepNest, generate, mutate, ODD_STRINGS, positions } from './values.js';

export interface Body {
  contentType?: string;
  bytes: Buffer;
  /** How the body was made, for the report of a failing input. */
  note: string;
}

export interface KindRef {
  group: string;
  version: string;
  kind: string;
  definition?: string;
}

/** An object of `ref` named `name`: the kind's fixture, or generated from its reference schema. */
export function objectOf(rng: Rng, ref: KindRef, name: string, namespace: string | undefined): Record<string, unknown> {
  const fixture = FIXTURES[`${ref.group}/${ref.kind}`];
  let fields: Record<string, unknown> = {};
  if (fixture && rng.chance(0.6)) fields = structuredClone(fixture);
  else if (ref.definition) fields = (generate(rng, definitionSchema(ref.definition)) ?? {}) as Record<string, unknown>;
  const { metadata: generated, ...rest } = fields as { metadata?: Record<string, unknown> };
  const metadata: Record<string, unknown> = { ...(rng.chance(0.3) ? generated : {}), name };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (rng.chance(0.3)) metadata.labels = { app: rng.pick(['fuzz', 'x', 'y']) };
  if (rng.chance(0.1)) delete metadata.name, (metadata.generateName = 'fz-gen-');
  return { apiVersion: apiVersion(ref.group, ref.version), kind: ref.kind, metadata, ...rest };
}

/** `obj`, mutated with chance `p`. */
export function maybeMutated(rng: Rng, obj: unknown, p: number): { value: unknown; note: string } {
  if (!rng.chance(p)) return { value: obj, note: 'valid' };
  let value = obj;
  const notes: string[] = [];
  for (let n = rng.int(1, 3); n > 0; n--) {
    const kind = pickMutation(rng);
    value = mutate(rng, value, kind);
    notes.push(kind);
    if (kind === 'deep-nesting') break; // deeper than structuredClone can copy again
  }
  return { value, note: notes.join('+') };
}

function pickMutation(rng: Rng) {
  // Expensive mutations (megabyte strings, deep nesting) are rarer, so a run stays fast.
  return rng.weighted([
    [10, 'swap-type'],
    [8, 'remove'],
    [8, 'extra-field'],
    [1, 'huge-string'],
    [6, 'unicode'],
    [2, 'deep-nesting'],
    [5, 'null'],
    [5, 'odd-number'],
    [8, 'wrong-metadata'],
    [3, 'duplicate-kind'],
  ] as const);
}

/** An object body in a random encoding (JSON mostly; YAML, protobuf, broken text sometimes). */
export function encodeObject(rng: Rng, value: unknown): Body {
  const how = rng.weighted([
    [12, 'json'],
    [3, 'yaml'],
    [3, 'protobuf'],
    [1, 'broken'],
  ] as const);
  if (how === 'yaml') return { contentType: rng.pick(['application/yaml', 'application/yaml; charset=utf-8', 'text/yaml']), bytes: Buffer.from(yamlText(rng, value)), note: 'yaml' };
  if (how === 'protobuf') {
    const bytes = protobufBytes(value);
    if (bytes) return { contentType: PROTOBUF_MEDIA_TYPE, ...damagedProtobuf(rng, bytes) };
  }
  if (how === 'broken') return brokenText(rng, JSON.stringify(value) ?? 'null');
  return { contentType: jsonType(rng), bytes: Buffer.from(JSON.stringify(value) ?? 'null'), note: 'json' };
}

function jsonType(rng: Rng): string {
  return rng.weighted([
    [20, 'application/json'],
    [1, 'application/json; charset=utf-8'],
    [1, 'application/json; charset=latin1'],
    [1, 'APPLICATION/JSON'],
    [1, 'application/json;;;'],
    [1, 'text/plain'],
    [1, 'application/x-www-form-urlencoded'],
    [1, 'application/cbor'],
    [1, ''],
  ] as const);
}

function protobufBytes(value: unknown): Buffer | undefined {
  try {
    return encodeProtobuf(value as never);
  } catch {
    return undefined; // a mutated value the encoder cannot write (wrong types): sent as JSON instead
  }
}

/** The protobuf bytes, kept valid or damaged: flipped bits, cut short, garbage appended, prefix broken. */
export function damagedProtobuf(rng: Rng, bytes: Buffer): { bytes: Buffer; note: string } {
  const out = Buffer.from(bytes);
  const how = rng.weighted([
    [3, 'valid'],
    [4, 'bit-flip'],
    [2, 'truncate'],
    [1, 'append'],
    [1, 'no-prefix'],
  ] as const);
  if (how === 'bit-flip') {
    for (let n = rng.int(1, 4); n > 0; n--) {
      const at = rng.int(4, Math.max(4, out.length - 1));
      out[at] = (out[at] ?? 0) ^ (1 << rng.int(0, 7));
    }
  }
  if (how === 'truncate') return { bytes: out.subarray(0, rng.int(0, out.length - 1)), note: 'protobuf-truncate' };
  if (how === 'append') return { bytes: Buffer.concat([out, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2])]), note: 'protobuf-append' };
  if (how === 'no-prefix') return { bytes: out.subarray(4), note: 'protobuf-no-prefix' };
  return { bytes: out, note: `protobuf-${how}` };
}

function brokenText(rng: Rng, json: string): Body {
  const cut = json.slice(0, rng.int(0, json.length));
  const bytes = rng.pick([
    Buffer.from(cut),
    Buffer.from(`${json}${json}`),
    Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
    Buffer.from(`{"a":1,"a":2,"metadata":{"name":"fz-0","name":"fz-1"}}`),
    Buffer.from('[1,2,3]'),
    Buffer.from('"just a string"'),
    Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fz-${rng.int(0, 11)}"},"data":{"k":"\\ud800"}}`),
    Buffer.from(`{"n": ${'9'.repeat(400)}}`),
    // Deeper than the body depth limit, written as text (a value this deep cannot be stringified).
    Buffer.from(`{"metadata":{"name":"fz-1"},"data":${'{"a":'.repeat(12_000)}1${'}'.repeat(12_000)}}`),
    Buffer.from(`${'['.repeat(20_000)}${']'.repeat(20_000)}`),
  ]);
  return { contentType: 'application/json', bytes, note: 'broken-json' };
}

/** YAML text of `value`, or a hostile document (alias bomb, cycle, merge keys, tags, several documents). */
export function yamlText(rng: Rng, value: unknown): string {
  const how = rng.weighted([
    [8, 'plain'],
    [1, 'alias-bomb'],
    [1, 'cycle'],
    [1, 'merge-keys'],
    [1, 'tags'],
    [1, 'multi-doc'],
    [1, 'tabs'],
  ] as const);
  let plain: string;
  try {
    plain = yamlStringify(value ?? null);
  } catch {
    plain = JSON.stringify(value); // too deep for the YAML writer; JSON text is YAML too
  }
  switch (how) {
    case 'alias-bomb': {
      const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (let i = 1; i < 9; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
      return `${plain}\n${lines.map((l) => `x${l}`).join('\n')}\n`;
    }
    case 'cycle':
      return 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: fz-1\n  labels: *m\n';
    case 'merge-keys':
      return 'base: &b {a: 1}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  <<: *b\n  name: fz-2\ndata:\n  <<: [*b, *b]\n';
    case 'tags':
      return `${plain}\nx: !!binary aGVsbG8=\ny: !!js/function "function(){}"\nz: !!set {a, b}\nw: !custom 1\n`;
    case 'multi-doc':
      return `${plain}\n---\n${plain}\n`;
    case 'tabs':
      return `metadata:\n\tname: fz-1\n`;
    default:
      return plain;
  }
}

export const PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML] as const;

/** A patch body of a random type for an object like `obj` (its fields give the patch's paths). */
export function patchBody(rng: Rng, obj: Record<string, unknown>): Body {
  const type = rng.weighted([
    [4, JSON_PATCH],
    [4, MERGE_PATCH],
    [4, STRATEGIC_MERGE_PATCH],
    [4, APPLY_PATCH_YAML],
    [1, 'application/apply-patch+cbor'],
    [1, 'application/json'],
    [1, 'application/merge-patch+yaml'],
  ] as const);
  const partial = maybeMutated(rng, partialOf(rng, obj), 0.4);
  switch (type) {
    case JSON_PATCH: {
      const ops = jsonPatchOps(rng, obj);
      return { contentType: type, bytes: Buffer.from(JSON.stringify(ops)), note: `json-patch(${ops.length})` };
    }
    case STRATEGIC_MERGE_PATCH:
      return { contentType: type, bytes: Buffer.from(JSON.stringify(withDirectives(rng, partial.value))), note: `smp-${partial.note}` };
    case APPLY_PATCH_YAML: {
      const full = maybeMutated(rng, obj, 0.4);
      const text = rng.chance(0.6) ? yamlText(rng, full.value) : JSON.stringify(full.value);
      return { contentType: type, bytes: Buffer.from(text), note: `apply-${full.note}` };
    }
    default:
      return { contentType: type, bytes: Buffer.from(JSON.stringify(partial.value) ?? 'null'), note: `merge-${partial.note}` };
  }
}

/** A few of `obj`'s top-level members (metadata labels often), as a merge patch would carry. */
function partialOf(rng: Rng, obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of rng.some(Object.keys(obj), 3)) out[k] = obj[k];
  if (rng.chance(0.5)) out.metadata = { labels: { [rng.pick(['a', 'b', 'app'])]: rng.chance(0.8) ? rng.text(3) : null } };
  return out;
}

/** Strategic-merge directives placed at random object positions. */
function withDirectives(rng: Rng, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  let copy: Record<string, unknown>;
  try {
    copy = structuredClone(value) as Record<string, unknown>;
  } catch {
    return value; // nested too deep to copy: sent without directives
  }
  const objs = positions(copy).filter((p) => {
    let at: unknown = copy;
    for (const k of p) at = (at as Record<string | number, unknown>)[k];
    return at && typeof at === 'object' && !Array.isArray(at);
  });
  for (let n = rng.int(0, 2); n > 0; n--) {
    let at: unknown = copy;
    for (const k of objs.length > 0 ? rng.pick(objs) : []) at = (at as Record<string | number, unknown>)[k];
    if (!at || typeof at !== 'object' || Array.isArray(at)) continue; // replaced by an earlier directive
    const target = at as Record<string, unknown>;
    const d = rng.pick(['$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', '$setElementOrder/ports']);
    target[d] = d === '$patch' ? rng.pick(['delete', 'replace', 'merge', 'bogus', 7]) : rng.pick<unknown>([['a'], [{ name: 'c' }], 'x', {}, [null]]);
  }
  return copy;
}

/** JSON patch operations on paths inside `obj` (and some outside it), of every op type. */
export function jsonPatchOps(rng: Rng, obj: Record<string, unknown>): unknown[] {
  const paths = positions(obj).map((p) => `/${p.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);
  const anyPath = () => (paths.length > 0 && rng.chance(0.7) ? rng.pick(paths) : rng.pick(['', '/', '/metadata/labels/x', '/data/-', '/spec/containers/-', '/a/b/c', '/metadata/name', '/x~2', '/0', '/-']));
  const ops = [];
  for (let n = rng.weighted([[8, rng.int(1, 4)], [1, 0], [1, rng.int(20, 40)]] as const); n > 0; n--) {
    const op = rng.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']);
    const entry: Record<string, unknown> = { op, path: anyPath() };
    if (op === 'move' || op === 'copy') entry.from = anyPath();
    if (op !== 'remove') entry.value = rng.pick<unknown>([rng.text(4), 1, null, {}, [], { a: 'b' }, rng.pick(ODD_STRINGS), deepNest(rng.pick([3, 300]), false)]);
    if (rng.chance(0.05)) delete entry.op;
    ops.push(entry);
  }
  return rng.chance(0.05) ? ({ op: 'add' } as unknown as unknown[]) : ops;
}

/** DeleteOptions for a DELETE body, sometimes invalid. */
export function deleteOptions(rng: Rng): Body {
  const opts: Record<string, unknown> = { apiVersion: rng.pick(['v1', `${META_GROUP}/v1`, `${REFERENCE_META_GROUP_ALIAS}/v1`, 'bogus/v9']), kind: 'DeleteOptions' };
  if (rng.chance(0.5)) opts.propagationPolicy = rng.pick(['Foreground', 'Background', 'Orphan', 'bogus', 7]);
  if (rng.chance(0.4)) opts.gracePeriodSeconds = rng.pick<unknown>([0, -1, 30, 'x', 2 ** 40]);
  if (rng.chance(0.3)) opts.preconditions = rng.pick<unknown>([{ uid: 'x' }, { resourceVersion: '1' }, 'x', { resourceVersion: 5 }]);
  if (rng.chance(0.3)) opts.dryRun = rng.pick<unknown>([['All'], ['bogus'], 'All']);
  if (rng.chance(0.2)) opts.orphanDependents = rng.pick<unknown>([true, false, 'yes']);
  return encodeObject(rng, opts);
}
