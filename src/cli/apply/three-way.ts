/**
 * The patches of client-side apply and edit, computed from three versions of an object: `original` (what
 * was applied last time), `modified` (what is applied now) and `current` (what the server holds).
 *
 * - Changes and additions: the fields of `modified` that differ from `current`. Fields only `current` has
 *   (set by the server or by other writers) are left alone.
 * - Deletions: the fields `original` had and `modified` no longer has; they are removed.
 *
 * With a schema the result is a strategic merge patch (lists merge by key where the schema says so, with
 * `$patch: delete`, `$setElementOrder`, `$deleteFromPrimitiveList` and `$retainKeys` directives); without
 * one it is a JSON merge patch, where lists are always replaced whole. Pure functions.
 */
import type { SchemaNode } from './patch-schema.js';

type Json = unknown;
type JsonMap = Record<string, Json>;

const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isMap(a) || !isMap(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

interface Pass {
  /** Only removals (the original → modified pass). */
  deletionsOnly: boolean;
  /** Strategic (a schema walk) or JSON merge patch. */
  strategic: boolean;
}

/**
 * The patch taking `current` to `modified` while deleting what `original` had and `modified` dropped.
 * `schema` is the kind's schema for a strategic merge patch; undefined for a JSON merge patch.
 */
export function threeWayPatch(original: JsonMap | undefined, modified: JsonMap, current: JsonMap, schema: SchemaNode | undefined): JsonMap {
  const strategic = schema !== undefined;
  const deletions = diffMaps(original ?? {}, modified, schema, { deletionsOnly: true, strategic });
  const changes = diffMaps(current, modified, schema, { deletionsOnly: false, strategic });
  return mergePatches(deletions, changes, schema);
}

/** The patch taking `from` to `to` (changes, additions and deletions): `edit`'s patch. */
export function twoWayPatch(from: JsonMap, to: JsonMap, schema: SchemaNode | undefined): JsonMap {
  return threeWayPatch(from, to, from, schema);
}

function diffMaps(from: JsonMap, to: JsonMap, schema: SchemaNode | undefined, pass: Pass, retainKeys = false): JsonMap {
  const patch: JsonMap = {};
  for (const [key, next] of Object.entries(to)) {
    const child = schema?.child(key);
    if (!Object.hasOwn(from, key)) {
      if (!pass.deletionsOnly) patch[key] = next;
      continue;
    }
    const prev = from[key];
    if (isMap(prev) && isMap(next)) {
      const sub = diffMaps(prev, next, child, pass, pass.strategic && (child?.retainsKeys() ?? false));
      if (Object.keys(sub).length > 0) patch[key] = sub;
    } else if (Array.isArray(prev) && Array.isArray(next)) {
      diffLists(patch, key, prev, next, child, pass);
    } else if (!pass.deletionsOnly && !jsonEqual(prev, next)) {
      patch[key] = next;
    }
  }
  if (pass.deletionsOnly) for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) patch[key] = null;
  if (retainKeys && !pass.deletionsOnly && Object.keys(patch).length > 0) patch.$retainKeys = Object.keys(to).sort();
  return patch;
}

/** Puts the patch of one list field (and its directives) into `patch`. */
function diffLists(patch: JsonMap, key: string, prev: Json[], next: Json[], schema: SchemaNode | undefined, pass: Pass): void {
  const mode = pass.strategic && schema ? schema.listMode() : { merge: false };
  if (mode.merge && mode.key !== undefined && prev.every(isMap) && next.every(isMap) && next.every((i) => Object.hasOwn(i, mode.key as string))) {
    diffKeyedList(patch, key, prev, next, mode.key, schema, pass);
    return;
  }
  if (mode.merge && mode.key === undefined && !prev.some(isComposite) && !next.some(isComposite)) {
    diffPrimitiveSet(patch, key, prev, next, pass);
    return;
  }
  // Replaced lists: a changed list is sent whole; the deletion pass has nothing to say about them.
  if (!pass.deletionsOnly && !jsonEqual(prev, next)) patch[key] = next;
}

const isComposite = (v: Json) => typeof v === 'object' && v !== null;

function diffKeyedList(patch: JsonMap, key: string, prev: JsonMap[], next: JsonMap[], mergeKey: string, schema: SchemaNode | undefined, pass: Pass): void {
  const itemSchema = schema?.items();
  const retain = schema?.retainsKeys() ?? false;
  const id = (m: JsonMap) => JSON.stringify(m[mergeKey]);
  const before = new Map(prev.filter((m) => Object.hasOwn(m, mergeKey)).map((m) => [id(m), m]));
  const after = new Set(next.map(id));
  const items: JsonMap[] = [];
  for (const item of next) {
    const old = before.get(id(item));
    if (!old) {
      if (!pass.deletionsOnly) items.push(item);
      continue;
    }
    const sub = diffMaps(old, item, itemSchema, pass, retain);
    if (Object.keys(sub).length > 0) items.push({ [mergeKey]: item[mergeKey], ...sub });
  }
  if (pass.deletionsOnly) {
    for (const [k, old] of before) if (!after.has(k)) items.push({ [mergeKey]: old[mergeKey], $patch: 'delete' });
  }
  if (items.length > 0) patch[key] = items;
  if (!pass.deletionsOnly) {
    // The order the user wrote is kept: sent whenever the list changed or the common items moved.
    const common = prev.filter((m) => after.has(id(m))).map(id);
    const order = next.map(id).filter((k) => before.has(k));
    if (items.length > 0 || !jsonEqual(common, order)) patch[`$setElementOrder/${key}`] = next.map((m) => ({ [mergeKey]: m[mergeKey] }));
  }
}

function diffPrimitiveSet(patch: JsonMap, key: string, prev: Json[], next: Json[], pass: Pass): void {
  const has = (list: Json[], v: Json) => list.some((x) => x === v);
  if (pass.deletionsOnly) {
    const removed = prev.filter((v) => !has(next, v));
    if (removed.length > 0) patch[`$deleteFromPrimitiveList/${key}`] = removed;
    return;
  }
  const added = next.filter((v) => !has(prev, v));
  if (added.length > 0) patch[key] = added;
  const order = next.filter((v) => has(prev, v));
  const common = prev.filter((v) => has(next, v));
  if (added.length > 0 || !jsonEqual(order, common)) patch[`$setElementOrder/${key}`] = next;
}

/** Joins the deletion patch and the change patch of one object (keyed list items by their key). */
function mergePatches(a: JsonMap, b: JsonMap, schema: SchemaNode | undefined): JsonMap {
  const out: JsonMap = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prev = out[key];
    const child = schema?.child(key);
    if (isMap(prev) && isMap(value)) out[key] = mergePatches(prev, value, child);
    else if (Array.isArray(prev) && Array.isArray(value) && schema) out[key] = mergeItemLists(prev, value, child);
    else out[key] = value;
  }
  return out;
}

function mergeItemLists(a: Json[], b: Json[], schema: SchemaNode | undefined): Json[] {
  const mergeKey = schema?.listMode().key;
  if (mergeKey === undefined) return [...a, ...b];
  const out = [...a];
  for (const item of b) {
    const at = isMap(item) ? out.findIndex((x) => isMap(x) && jsonEqual(x[mergeKey], item[mergeKey])) : -1;
    if (at >= 0 && isMap(item)) out[at] = mergePatches(out[at] as JsonMap, item, schema?.items());
    else out.push(item);
  }
  return out;
}
