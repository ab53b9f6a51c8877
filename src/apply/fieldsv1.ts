/**
 * The FieldsV1 wire form of a field set (spec 2.4): a trie keyed by path segments whose leaves are `{}`.
 * A path that is a member and also has members below it (a map-list element) carries a `.` entry:
 * `{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}`.
 */
import { badRequest } from '../errors/index.js';
import { isJsonObject, setOwn, type JsonObject } from '../patch/json.js';
import { canonicalJson, compareSegments, parsePathKey, pathKey, pathString, type FieldSet } from './fieldset.js';

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

export function toFieldsV1(set: FieldSet): JsonObject {
  const root: Node = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const seg of parsePathKey(key)) {
      let next = node.children.get(seg);
      if (!next) node.children.set(seg, (next = { member: false, children: new Map() }));
      node = next;
    }
    node.member = true;
  }
  return render(root);
}

function render(node: Node): JsonObject {
  const out: JsonObject = {};
  if (node.member && node.children.size > 0) out['.'] = {};
  for (const seg of [...node.children.keys()].sort(compareSegments)) setOwn(out, seg, render(node.children.get(seg) as Node));
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
