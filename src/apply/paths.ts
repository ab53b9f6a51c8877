/** Reading, comparing and removing the value at a field path inside a plain JSON object. */
import { hasOwn, isJsonObject, jsonEqual } from '../patch/json.js';
import { ancestorKeys, canonicalJson, parsePathKey, pathKey, type FieldPath, type FieldSet } from './fieldset.js';

/** Index of the element a segment names in `list`, or -1. */
function elementIndex(list: unknown[], seg: string): number {
  const body = seg.slice(2);
  if (seg.startsWith('i:')) return Number(body) < list.length ? Number(body) : -1;
  if (seg.startsWith('v:')) return list.findIndex((el) => canonicalJson(el) === body);
  if (seg.startsWith('k:')) {
    const key = JSON.parse(body) as Record<string, unknown>;
    return list.findIndex((el) => isJsonObject(el) && Object.keys(key).every((k) => canonicalJson(el[k]) === canonicalJson(key[k])));
  }
  return -1;
}

function step(cur: unknown, seg: string): unknown {
  if (seg.startsWith('f:')) {
    const name = seg.slice(2);
    return isJsonObject(cur) && hasOwn(cur, name) ? cur[name] : undefined;
  }
  if (!Array.isArray(cur)) return undefined;
  const i = elementIndex(cur, seg);
  return i < 0 ? undefined : cur[i];
}

/** The value at `path`, or `undefined` when absent. */
export function lookup(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const seg of path) {
    cur = step(cur, seg);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Absent and `null` are the same value for ownership purposes. */
export const sameValue = (a: unknown, b: unknown) => jsonEqual(a ?? null, b ?? null);

/**
 * Paths of `newSet` that an update from `oldObj` to `newObj` added or changed. A path with members below
 * it (a list element, a map entry holding an object) only counts when it appears; its own value changes are
 * reported at the leaves.
 */
export function changedPaths(oldObj: unknown, oldSet: FieldSet, newObj: unknown, newSet: FieldSet): FieldSet {
  // Only the new shape decides: an entry that turned from an object into a scalar is a changed leaf.
  const inner = ancestorKeys(newSet);
  const out = new Set<string>();
  for (const key of newSet) {
    if (!oldSet.has(key)) out.add(key);
    else if (!inner.has(key)) {
      const p = parsePathKey(key);
      if (!sameValue(lookup(oldObj, p), lookup(newObj, p))) out.add(key);
    }
  }
  return out;
}

const isEmptyContainer = (v: unknown) => (Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0);

/** Whether something was removed. */
function removeChild(parent: unknown, seg: string): boolean {
  if (seg.startsWith('f:')) {
    if (!isJsonObject(parent) || !hasOwn(parent, seg.slice(2))) return false;
    delete parent[seg.slice(2)];
    return true;
  }
  const i = Array.isArray(parent) ? elementIndex(parent, seg) : -1;
  if (i >= 0) (parent as unknown[]).splice(i, 1);
  return i >= 0;
}

/**
 * Removes the value at `path` (in place), then every object or list that this left empty, walking up until a
 * container is non-empty, is a list element, or is itself owned (`keep`): `labels: {}` is not left behind
 * when the last owned label goes, but an explicitly applied empty map stays.
 */
export function removeAt(root: unknown, path: FieldPath, keep: (key: string) => boolean): void {
  const chain: unknown[] = [root];
  for (const seg of path.slice(0, -1)) {
    const next = step(chain[chain.length - 1], seg);
    if (next === undefined) return;
    chain.push(next);
  }
  for (let d = path.length - 1; d >= 0; d--) {
    if (!removeChild(chain[d], path[d] as string)) return;
    if (d === 0 || !(path[d - 1] as string).startsWith('f:')) return;
    if (!isEmptyContainer(chain[d]) || keep(pathKey(path.slice(0, d)))) return;
  }
}
