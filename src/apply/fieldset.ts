/**
 * Field sets of server-side apply (spec 2.4): which leaf paths an object sets, as seen through its schema.
 *
 * A path is a list of segments: `f:<field>`, `k:<json of the key fields>` (map-list element),
 * `v:<json value>` (set-list element) and `i:<index>`. A FieldSet holds each path as a string key
 * (`pathKey`), so plain `Set` membership works. List elements and granular map entries are members themselves
 * (the `.` entry of FieldsV1) besides the leaves below them.
 */
import type { Schema } from '../api/index.js';
import { badRequest } from '../errors/index.js';
import { isJsonObject } from '../patch/json.js';

export type FieldPath = readonly string[];
export type FieldSet = ReadonlySet<string>;

export const emptySet: FieldSet = new Set<string>();

/**
 * A path's key: its segments joined by NUL. A segment holding a NUL or a backslash (possible inside field
 * names and `k:`/`v:` JSON) is escaped first (`\\` and `\0`), so every key maps back to exactly one path.
 * Several times cheaper than JSON text, and apply builds and parses thousands of these per request.
 * Example: ['f:data', 'f:a\u0000b'] -> 'f:data\u0000f:a\\0b'; [] -> ''.
 */
export function pathKey(path: FieldPath): string {
  let out = '';
  for (let i = 0; i < path.length; i++) out = i === 0 ? escapeSegment(path[i] as string) : `${out}\0${escapeSegment(path[i] as string)}`;
  return out;
}

const escapeSegment = (seg: string) => (seg.indexOf('\\') < 0 && seg.indexOf('\0') < 0 ? seg : seg.replace(/\\/g, '\\\\').replace(/\0/g, '\\0'));

export function parsePathKey(key: string): string[] {
  if (key === '') return [];
  const segs = key.split('\0');
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i] as string;
    if (s.indexOf('\\') >= 0) segs[i] = s.replace(/\\(\\|0)/g, (_, c: string) => (c === '0' ? '\0' : '\\'));
  }
  return segs;
}

export const fieldSet = (paths: Iterable<FieldPath>): FieldSet => new Set([...paths].map(pathKey));

export function union(...sets: FieldSet[]): FieldSet {
  const out = new Set<string>();
  for (const s of sets) for (const p of s) out.add(p);
  return out;
}
export const difference = (a: FieldSet, b: FieldSet): FieldSet => new Set([...a].filter((p) => !b.has(p)));
export const intersection = (a: FieldSet, b: FieldSet): FieldSet => new Set([...a].filter((p) => b.has(p)));
export const has = (set: FieldSet, path: FieldPath): boolean => set.has(pathKey(path));
export const isEmpty = (set: FieldSet): boolean => set.size === 0;
export const setsEqual = (a: FieldSet, b: FieldSet): boolean => a.size === b.size && [...a].every((p) => b.has(p));

const kindOrder = (c: number) => (c === 0x66 /* f */ ? 0 : c === 0x6b /* k */ ? 1 : c === 0x76 /* v */ ? 2 : c === 0x69 /* i */ ? 3 : 4);
/** Order of segments in FieldsV1 output and in `leaves`: fields, then keys, values, indexes; each by text. */
export function compareSegments(a: string, b: string): number {
  // Most comparisons are between segments of one kind; only different first letters need the kind table.
  const ca = a.charCodeAt(0);
  const cb = b.charCodeAt(0);
  if (ca !== cb) {
    const d = kindOrder(ca) - kindOrder(cb);
    if (d !== 0) return d;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareSegments(a[i] as string, b[i] as string);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Every member path, sorted (parents before children). */
export const leaves = (set: FieldSet): string[][] => [...set].map(parsePathKey).sort(comparePaths);

/** Keys of every strict ancestor of the set's paths: a path in here has members below it. */
export function ancestorKeys(set: FieldSet): Set<string> {
  const out = new Set<string>();
  for (const key of set) {
    // Separators in a key are exactly its NULs (escaping never writes one), so prefixes are slices.
    for (let i = key.indexOf('\0'); i >= 0; i = key.indexOf('\0', i + 1)) out.add(key.slice(0, i));
  }
  return out;
}

/**
 * `Object.keys(o).sort()`, the same order (UTF-16 code units), sorting small arrays by insertion: the
 * built-in sort with no comparator costs several times more for the handful of keys most objects have,
 * and every object written is walked through here.
 */
export function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  const n = keys.length;
  if (n > 16) return keys.sort();
  for (let i = 1; i < n; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** JSON with object keys sorted, so equal values give equal `k:`/`v:` segments. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = sortedKeys(v);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The reference's readable path: `.spec.containers[name="c"].image`, `.metadata.finalizers[="a"]`, `[3]`. */
export function pathString(path: FieldPath): string {
  return path
    .map((seg) => {
      const body = seg.slice(2);
      switch (seg.slice(0, 2)) {
        case 'f:':
          return `.${body}`;
        case 'k:': {
          const keys = JSON.parse(body) as Record<string, unknown>;
          return `[${Object.keys(keys)
            .sort()
            .map((k) => `${k}=${JSON.stringify(keys[k])}`)
            .join(',')}]`;
        }
        case 'v:':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}

// ---- schema classification, shared with merge and apply ----

/** Schema of fields below a preserve-unknown-fields object: maps granular, lists atomic. */
export const DEDUCED: Schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

export const isObjectSchema = (s: Schema) =>
  s.type === 'object' || s.properties !== undefined || s.additionalProperties !== undefined || s['x-kubernetes-preserve-unknown-fields'] === true;

/** Schema of member `key` of an object, and whether it is a declared field (not a map entry). */
export function memberSchema(s: Schema, key: string): { schema: Schema | undefined; declared: boolean } {
  const declared = s.properties?.[key];
  if (declared) return { schema: declared, declared: true };
  const ap = s.additionalProperties;
  if (typeof ap === 'object') return { schema: ap, declared: false };
  if (ap === true || s['x-kubernetes-preserve-unknown-fields'] === true) return { schema: DEDUCED, declared: false };
  return { schema: undefined, declared: false };
}

export type ListShape = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: string[] };

/** A patch merge key stands in for a missing list type (built-in kinds); no type at all means atomic. */
export function listShape(s: Schema): ListShape {
  const mergeKey = s['x-kubernetes-patch-merge-key'];
  const t = s['x-kubernetes-list-type'] ?? (mergeKey ? 'map' : 'atomic');
  if (t === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? (mergeKey ? [mergeKey] : []);
    return keys.length > 0 ? { type: 'map', keys } : { type: 'atomic' };
  }
  return { type: t };
}

/** The segment naming one list element; throws when a map-list element lacks a key field. */
export function elementSegment(shape: ListShape, el: unknown, where: FieldPath, index: number): string {
  if (shape.type === 'set') return `v:${canonicalJson(el)}`;
  if (shape.type !== 'map') return `i:${index}`;
  if (!isJsonObject(el)) throw badRequest(`${pathString(where)}: element ${index}: map list element must be an object`);
  // One key field holding a scalar (containers by name, ports by containerPort): its canonical JSON is
  // `{"<field>":<value>}`, written out without building the key object.
  if (shape.keys.length === 1) {
    const k = shape.keys[0] as string;
    const v = el[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return `k:{${JSON.stringify(k)}:${JSON.stringify(v)}}`;
  }
  const key: Record<string, unknown> = {};
  for (const k of shape.keys) {
    if (el[k] === undefined || el[k] === null) {
      throw badRequest(`${pathString(where)}: element ${index}: associative list with keys has an element that omits key field "${k}"`);
    }
    key[k] = el[k];
  }
  return `k:${canonicalJson(key)}`;
}

// ---- the field set of an object ----

export interface FieldSetOptions {
  /** Leave out `status` (apply and updates through the main resource of a kind with a status subresource). */
  ignoreStatus?: boolean;
}

/** Paths the server owns; they and everything below them never belong to a manager. */
const SERVER_OWNED: string[][] = [
  ['f:apiVersion'],
  ['f:kind'],
  ...['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'deletionTimestamp', 'selfLink'].map(
    (f) => ['f:metadata', `f:${f}`],
  ),
];
const WITH_STATUS = [...SERVER_OWNED, ['f:status']];
const SKIP = skipTree(SERVER_OWNED);
const SKIP_WITH_STATUS = skipTree(WITH_STATUS);


/** A path that is never a member itself (its members below it stay): nobody should own the whole metadata as one leaf. */
export const NEVER_MEMBER: FieldPath = ['f:metadata'];

/**
 * What a walk of an object's fields reports to: `child` is the node one segment below `at` (asked for on the
 * way down, so it may end up with no members), `add` makes a node a member. Field sets and the one-walk
 * FieldsV1 builder share the walk, so the schema rules live in one place.
 */
export interface FieldSink<N> {
  readonly root: N;
  child(at: N, seg: string): N;
  add(at: N): void;
}

/** Nodes are path keys: a child's key extends its parent's, so no path is joined twice. */
class KeySink implements FieldSink<string> {
  readonly root = '';
  readonly out = new Set<string>();
  child(at: string, seg: string): string {
    // Segments are never empty (they carry a kind prefix), so '' is only ever the root.
    return at === '' ? escapeSegment(seg) : `${at}\0${escapeSegment(seg)}`;
  }
  add(at: string): void {
    this.out.add(at);
  }
}

const NEVER_MEMBER_KEY = pathKey(NEVER_MEMBER);

/**
 * The set of paths `obj` sets. Example with `spec.containers` a map list keyed by name:
 * `{spec: {containers: [{name: 'c', image: 'i'}]}}` gives `f:spec.f:containers.k:{"name":"c"}` (the element),
 * its `.f:name` and its `.f:image`. A bare `f:metadata` (from `metadata: {}`) is dropped with the server-owned
 * paths: nobody should own the whole metadata as one leaf.
 */
export function fieldSetOf(obj: unknown, schema: Schema | undefined, opts: FieldSetOptions = {}): FieldSet {
  const sink = new KeySink();
  walkFields(obj, schema, sink, opts);
  sink.out.delete(NEVER_MEMBER_KEY);
  return sink.out;
}

/**
 * Reports every path `obj` sets, as seen through `schema`, to `sink`; throws 400 on a map-list element
 * without its keys. With `ignore`, the ignored paths (server-owned fields, maybe status) are not walked.
 */
export function walkFields<N>(obj: unknown, schema: Schema | undefined, sink: FieldSink<N>, ignore?: FieldSetOptions): void {
  if (!isJsonObject(obj)) return;
  const skip = skipTreeFor(ignore);
  walkObject(obj, schema ?? DEDUCED, sink.root, [], sink, skip);
}

/** A sink that records nothing: walks made only for their checks. */
const CHECK_ONLY: FieldSink<null> = { root: null, child: () => null, add: () => undefined };

/** The ignored paths of a walk with `opts` (undefined: none), as `walkFields` uses them. */
export function skipTreeFor(opts: FieldSetOptions | undefined): SkipTree | undefined {
  return opts === undefined ? undefined : opts.ignoreStatus ? SKIP_WITH_STATUS : SKIP;
}

/** Walks an ignored value for its checks only: a map-list element without its keys fails the write anyway. */
export function checkIgnoredValue(value: unknown, schema: Schema, path: string[]): void {
  walkValue(value, schema, null, path, CHECK_ONLY);
}

/** The ignored paths as a tree of member names: `true` drops the member and everything below it. */
export type SkipTree = Map<string, SkipTree | true>;
function skipTree(paths: readonly FieldPath[]): SkipTree {
  const root: SkipTree = new Map();
  for (const p of paths) {
    let at = root;
    p.forEach((seg, i) => {
      const key = seg.slice(2); // every ignored segment is a field (`f:`)
      if (i === p.length - 1) at.set(key, true);
      else {
        let next = at.get(key);
        if (next === undefined || next === true) at.set(key, (next = new Map()));
        at = next;
      }
    });
  }
  return root;
}

// `path` is the walk's position (pushed and popped), kept for error messages. `skip`: the ignored members
// at this level.
function walkObject<N>(o: Record<string, unknown>, s: Schema, at: N, path: string[], sink: FieldSink<N>, skip?: SkipTree): void {
  for (const key of Object.keys(o)) {
    const skipped = skip?.get(key);
    const value = o[key];
    if (skipped === true) {
      // Not recorded, but an ignored object is still checked (status): a map-list element without its keys
      // fails the write wherever it is, as the reference converts the whole object before filtering.
      if (value !== null && typeof value === 'object') {
        const { schema } = memberSchema(s, key);
        if (schema) {
          path.push(`f:${key}`);
          walkValue(value, schema, null, path, CHECK_ONLY);
          path.pop();
        }
      }
      continue;
    }
    const { schema, declared } = memberSchema(s, key);
    const seg = `f:${key}`;
    const child = sink.child(at, seg);
    // Map entries and unknown fields are members themselves; so are empty and null values (SMD's rule).
    if (!declared || value === null || (isJsonObject(value) && Object.keys(value).length === 0)) sink.add(child);
    if (value !== null && schema) {
      path.push(seg);
      walkValue(value, schema, child, path, sink, skipped);
      path.pop();
    }
  }
}

function walkValue<N>(value: unknown, s: Schema, at: N, path: string[], sink: FieldSink<N>, skip?: SkipTree): void {
  if (isJsonObject(value) && isObjectSchema(s)) {
    if (s['x-kubernetes-map-type'] === 'atomic') sink.add(at);
    else walkObject(value, s, at, path, sink, skip);
    return;
  }
  if (Array.isArray(value) && (s.type === 'array' || s.items !== undefined)) {
    const shape = listShape(s);
    if (shape.type === 'atomic') {
      sink.add(at);
      return;
    }
    value.forEach((el, i) => {
      const seg = elementSegment(shape, el, path, i);
      const elAt = sink.child(at, seg);
      sink.add(elAt);
      if (shape.type === 'map' && isJsonObject(el)) {
        path.push(seg);
        walkObject(el, s.items ?? DEDUCED, elAt, path, sink);
        path.pop();
      }
    });
    return;
  }
  // Scalars, int-or-string and values that do not match their schema are one leaf.
  sink.add(at);
}
