/**
 * The FieldsV1 wire form of a field set (spec 2.4): a trie keyed by path segments whose leaves are `{}`.
 * A path that is a member and also has members below it (a map-list element) carries a `.` entry:
 * `{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}`.
 */
import type { Schema } from '../api/index.js';
import { badRequest, quote } from '../errors/index.js';
import { isJsonObject, setOwn, type JsonObject } from '../patch/json.js';
import {
  canonicalJson,
  checkIgnoredValue,
  compareSegments,
  DEDUCED,
  elementSegment,
  isObjectSchema,
  listShape,
  memberSchema,
  skipTreeFor,
  sortedKeys,
  type SkipTree,
  NEVER_MEMBER,
  parsePathKey,
  pathKey,
  pathString,
  type FieldSet,
  type FieldSetOptions,
  type FieldSink,
} from './fieldset.js';

/** A trie node; most are leaves, so `children` is made on the first child. */
interface Node {
  member: boolean;
  children: Map<string, Node> | undefined;
}

const newNode = (): Node => ({ member: false, children: undefined });

class TrieSink implements FieldSink<Node> {
  readonly root = newNode();
  child(at: Node, seg: string): Node {
    const children = (at.children ??= new Map());
    let next = children.get(seg);
    if (!next) children.set(seg, (next = newNode()));
    return next;
  }
  add(at: Node): void {
    at.member = true;
  }
}

export function toFieldsV1(set: FieldSet): JsonObject {
  const sink = new TrieSink();
  for (const key of set) {
    let node = sink.root;
    for (const seg of parsePathKey(key)) node = sink.child(node, seg);
    node.member = true;
  }
  return render(sink.root) ?? {};
}

/**
 * `toFieldsV1(fieldSetOf(obj, schema, opts))` in one walk that builds the FieldsV1 object directly: members
 * are visited in sorted order, so no trie is kept and nothing is sorted twice. Duplicate list elements
 * meet in one entry, as their keys do in a set. The rules are `walkFields`'s (fieldset.ts); a test holds
 * the two to the same answers.
 */
export function fieldsV1Of(obj: unknown, schema: Schema | undefined, opts: FieldSetOptions = {}): JsonObject {
  if (!isJsonObject(obj)) return {};
  return objectFields(obj, schema ?? DEDUCED, [], skipTreeFor(opts), true) ?? {};
}

/**
 * `f:<key>` for a declared property, made once per schema: a string built per call must be hashed again
 * each time it becomes a property key, a cached one is hashed already. Only declared names are kept, so
 * the cache is bounded by the schemas, not by what clients send.
 */
const declaredSegments = new WeakMap<Schema, Map<string, string>>();
function segmentsOf(s: Schema): Map<string, string> {
  let segs = declaredSegments.get(s);
  if (segs === undefined) declaredSegments.set(s, (segs = new Map()));
  return segs;
}
function addSegment(segs: Map<string, string>, key: string): string {
  const seg = `f:${key}`;
  segs.set(key, seg);
  return seg;
}

/** A value that is a member and has nothing below it: the empty entry. */
const LEAF = Symbol('leaf');
type Built = JsonObject | typeof LEAF | undefined;

const DOT = '.';
/** The field name of `NEVER_MEMBER` (`metadata`), compared with the root's members. */
const NEVER_MEMBER_FIELD = NEVER_MEMBER[0]!.slice(2);

/**
 * The entries of an object's members (undefined when none); `root`: `metadata` is never a member itself.
 * `dot`: the object is a member itself (a map-list element), so its entries start with `.`.
 */
function objectFields(o: JsonObject, s: Schema, path: string[], skip: SkipTree | undefined, root = false, dot = false): JsonObject | undefined {
  const keys = sortedKeys(o);
  let out: JsonObject | undefined;
  const props = s.properties;
  let segs: Map<string, string> | undefined;
  for (const key of keys) {
    const skipped = skip?.get(key);
    const value = o[key];
    if (skipped === true) {
      if (value !== null && typeof value === 'object') {
        const { schema } = memberSchema(s, key);
        if (schema) {
          path.push(`f:${key}`);
          checkIgnoredValue(value, schema, path);
          path.pop();
        }
      }
      continue;
    }
    // memberSchema(), inlined: this loop runs for every member of every object written.
    const own = props?.[key];
    const declared = own !== undefined;
    const schema = own ?? memberSchema(s, key).schema;
    const seg = declared ? (segs ??= segmentsOf(s)).get(key) ?? addSegment(segs, key) : `f:${key}`;
    // Map entries and unknown fields are members themselves; so are empty and null values (SMD's rule).
    let member = !declared || value === null || (isJsonObject(value) && isEmptyObject(value));
    let below: JsonObject | undefined;
    if (value !== null && schema) {
      path.push(seg);
      const built = valueFields(value, schema, path, skipped);
      path.pop();
      if (built === LEAF) member = true;
      else below = built;
    }
    if (root && key === NEVER_MEMBER_FIELD) member = false;
    const entry = below === undefined ? (member ? {} : undefined) : member ? withDot(below) : below;
    if (entry !== undefined) (out ??= dot ? { [DOT]: {} } : {})[seg] = entry;
  }
  return out;
}

function valueFields(value: unknown, s: Schema, path: string[], skip: SkipTree | undefined): Built {
  if (isJsonObject(value) && isObjectSchema(s)) {
    if (s['x-kubernetes-map-type'] === 'atomic') return LEAF;
    return objectFields(value, s, path, skip);
  }
  if (Array.isArray(value) && (s.type === 'array' || s.items !== undefined)) {
    const shape = listShape(s);
    if (shape.type === 'atomic') return LEAF;
    const entries: [string, JsonObject][] = [];
    let seen: Map<string, number> | undefined;
    value.forEach((el, i) => {
      const seg = elementSegment(shape, el, path, i);
      let entry: JsonObject = {};
      if (shape.type === 'map' && isJsonObject(el)) {
        path.push(seg);
        const below = objectFields(el, s.items ?? DEDUCED, path, undefined, false, true);
        path.pop();
        if (below !== undefined) entry = below;
      }
      seen ??= new Map();
      const at = seen.get(seg);
      if (at === undefined) {
        seen.set(seg, entries.length);
        entries.push([seg, entry]);
      } else entries[at]![1] = mergeEntries(entries[at]![1], entry);
    });
    if (entries.length === 0) return undefined;
    if (entries.length > 1) entries.sort((a, b) => compareSegments(a[0], b[0]));
    const out: JsonObject = {};
    for (const [seg, entry] of entries) setOwn(out, seg, entry);
    return out;
  }
  // Scalars, int-or-string and values that do not match their schema are one leaf.
  return LEAF;
}

function isEmptyObject(o: JsonObject): boolean {
  for (const _ in o) return false;
  return true;
}

/** A member that also has members below it: `.` first, then the rest. */
function withDot(below: JsonObject): JsonObject {
  const out: JsonObject = { [DOT]: {} };
  for (const k in below) setOwn(out, k, below[k]);
  return out;
}

/** Two entries of one list element (a duplicate), as their union; members stay sorted. */
function mergeEntries(a: JsonObject, b: JsonObject): JsonObject {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort((x, y) => (x === DOT ? -1 : y === DOT ? 1 : compareSegments(x, y)));
  const out: JsonObject = {};
  for (const k of keys) {
    const x = a[k];
    const y = b[k];
    setOwn(out, k, isJsonObject(x) && isJsonObject(y) ? mergeEntries(x, y) : (x ?? y));
  }
  return out;
}


/** `undefined` for a node with no members at or below it (a walk visits such nodes, e.g. for an empty set list). */
function render(node: Node): JsonObject | undefined {
  const children = node.children;
  if (children === undefined || children.size === 0) return node.member ? {} : undefined;
  const out: JsonObject = node.member ? { '.': {} } : {};
  let rendered = false;
  const segs = [...children.keys()];
  if (segs.length > 1) segs.sort(compareSegments);
  for (const seg of segs) {
    const sub = render(children.get(seg) as Node);
    if (sub === undefined) continue;
    setOwn(out, seg, sub);
    rendered = true;
  }
  // Every child was empty: a member is a plain leaf (no `.`), anything else is not there at all.
  if (!rendered) return node.member ? {} : undefined;
  return out;
}

/** The inverse of `toFieldsV1`. `where` names the input in messages (e.g. `metadata.managedFields[0].fieldsV1`). */
export function fromFieldsV1(obj: unknown, where = 'fieldsV1'): FieldSet {
  const out = new Set<string>();
  const fail = (path: string[], why: string) => badRequest(`${where}${pathString(path)}: ${why}`);
  const visit = (node: unknown, path: string[]): void => {
    if (!isJsonObject(node)) throw fail(path, 'must be an object');
    const keys = Object.keys(node);
    // An empty node is a leaf; the root itself is never a member.
    if (keys.length === 0 && path.length > 0) out.add(pathKey(path));
    for (const key of keys) {
      const child = node[key];
      if (key === '.') {
        if (path.length === 0) throw fail(path, 'the root cannot be a member');
        if (!isJsonObject(child) || Object.keys(child).length > 0) throw fail(path, '"." must be an empty object');
        out.add(pathKey(path));
        continue;
      }
      visit(child, [...path, parseSegment(key, () => fail(path, `invalid path element ${quote(key)}`))]);
    }
  };
  visit(obj, []);
  return out;
}

/** Checks one segment and returns its canonical spelling (sorted key fields, so membership compares by value). */
function parseSegment(seg: string, fail: () => Error): string {
  const body = seg.slice(2);
  switch (seg.slice(0, 2)) {
    case 'f:':
      return seg;
    case 'k:': {
      const key = parseJson(body, fail);
      if (!isJsonObject(key) || Object.keys(key).length === 0) throw fail();
      return `k:${canonicalJson(key)}`;
    }
    case 'v:':
      return `v:${canonicalJson(parseJson(body, fail))}`;
    case 'i:':
      if (!/^(0|[1-9][0-9]*)$/.test(body)) throw fail();
      return seg;
    default:
      throw fail();
  }
}

function parseJson(text: string, fail: () => Error): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail();
  }
}
