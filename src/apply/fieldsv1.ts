/**
 * The FieldsV1 wire form of a field set (spec 2.4): a trie keyed by path segments whose leaves are `{}`.
 * A path that is a member and also has members below it (a map-list element) carries a `.` entry:
 * `{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}`.
 */
import type { Schema } from '../api/index.js';
import { badRequest } from '../errors/index.js';
import { isJsonObject, setOwn, type JsonObject } from '../patch/json.js';
import {
  canonicalJson,
  compareSegments,
  NEVER_MEMBER,
  parsePathKey,
  pathKey,
  pathString,
  walkFields,
  type FieldPath,
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
 * `toFieldsV1(fieldSetOf(obj, schema, opts))` in one walk: the walk fills the trie directly, so no path is
 * joined into a key and split again. Duplicate list elements meet in one node, as their keys do in a set.
 */
export function fieldsV1Of(obj: unknown, schema: Schema | undefined, opts: FieldSetOptions = {}): JsonObject {
  const sink = new TrieSink();
  walkFields(obj, schema, sink, opts); // the ignored paths are not walked; nodes left empty are not rendered
  const never = nodeAt(sink.root, NEVER_MEMBER, NEVER_MEMBER.length);
  if (never) never.member = false;
  return render(sink.root) ?? {};
}

/** The node at the first `depth` segments of `path`. */
function nodeAt(root: Node, path: FieldPath, depth: number): Node | undefined {
  let node: Node | undefined = root;
  for (let i = 0; i < depth && node; i++) node = node.children?.get(path[i] as string);
  return node;
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
      visit(child, [...path, parseSegment(key, () => fail(path, `invalid path element ${JSON.stringify(key)}`))]);
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
