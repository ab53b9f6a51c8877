/**
 * Strategic merge patch (spec 4.3, `application/strategic-merge-patch+json`), following the reference's
 * documented semantics ("Update API Objects in Place Using kubectl patch", the strategic-merge-patch and
 * preserve-order design docs). Pure: the result is a fresh value sharing nothing with either input.
 *
 * Maps merge recursively and `null` deletes a key, as in merge patch. Lists merge only where the schema
 * says so (see `listMode`); every other list, including lists under free-form or unknown fields, is
 * replaced. Directives: `$patch` (replace | merge | delete) on maps and list items, `$retainKeys`,
 * `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>`. Only those spellings are directives:
 * other `$`-keys are ordinary fields (CRD schemas carry `$ref`, `$schema`). A malformed directive is a
 * 400 BadRequest naming the path; nothing here throws anything but StatusError.
 */
import { badRequest, quote } from '../errors/index.js';
import type { Schema } from '../api/index.js';
import { cloneJson, hasOwn, isJsonObject, setOwn, type JsonObject } from './json.js';

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const ORDER_PREFIX = '$setElementOrder/';
const DELETE_PREFIX = '$deleteFromPrimitiveList/';

/** Returned by `mergeMap` for `$patch: delete`: the caller drops the key. */
const DELETED = Symbol('deleted');
/** Identity of a list item without a usable merge key; it never matches anything. */
const NO_ID = Symbol('no-id');

/**
 * Applies `patch` to `original`; `schema` is the schema of the whole object (apiVersion, kind, metadata,
 * ...). Throws a 400 StatusError when the patch is not a JSON object or a directive is malformed.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema): unknown {
  if (!isJsonObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
  const merged = mergeMap(isJsonObject(original) ? original : undefined, patch, schema, '');
  // `$patch: delete` at the root leaves nothing of the object: the reference yields an empty map there.
  return merged === DELETED ? {} : merged;
}

function fail(path: string, detail: string): never {
  throw badRequest(`invalid strategic merge patch at ${path || '<root>'}: ${detail}`);
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

function childSchema(schema: Schema | undefined, key: string): Schema | undefined {
  if (!schema) return undefined;
  if (schema.properties && hasOwn(schema.properties, key)) return schema.properties[key];
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

function strategies(schema: Schema | undefined): string[] {
  const s = schema?.['x-kubernetes-patch-strategy'] ?? '';
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

interface ListMode {
  merge: boolean;
  /** Merge key of a list of maps; also the identity used by `$setElementOrder` on replaced lists. */
  key?: string;
}

/**
 * How a list merges. An explicit `x-kubernetes-patch-strategy` decides when present. Without one we also
 * merge lists that our builders only mark with a list type, because the reference's Go types carry the
 * strategy there (e.g. `metadata.finalizers` is `patchStrategy:"merge"` in the reference, `setList` here):
 * `x-kubernetes-list-type: set` of primitives merges as a set, and `map` with a single
 * `x-kubernetes-list-map-keys` entry merges by that key. Multi-key map lists cannot merge by one key and
 * are replaced, like `atomic` lists and lists without any marking.
 */
function listMode(schema: Schema | undefined): ListMode {
  const mapKeys = schema?.['x-kubernetes-list-map-keys'];
  const key = schema?.['x-kubernetes-patch-merge-key'] ?? (mapKeys?.length === 1 ? mapKeys[0] : undefined);
  const mode: ListMode = key === undefined ? { merge: false } : { merge: false, key };
  const explicit = strategies(schema);
  if (explicit.length > 0) mode.merge = explicit.includes('merge');
  else if (schema?.['x-kubernetes-list-type'] === 'set') mode.merge = schema.items?.type !== 'object';
  else if (schema?.['x-kubernetes-list-type'] === 'map') mode.merge = key !== undefined;
  return mode;
}

function withoutKey(o: JsonObject, drop: string): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (k !== drop) setOwn(out, k, v);
  return out;
}

function readRetainKeys(patch: JsonObject, path: string): Set<string> | undefined {
  if (!hasOwn(patch, RETAIN_KEYS)) return undefined;
  const keys = patch[RETAIN_KEYS];
  if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string')) {
    fail(join(path, RETAIN_KEYS), 'must be a list of field names');
  }
  return new Set(keys as string[]);
}

/** Merges a patch map into an original map (absent when there is nothing to merge into). */
function mergeMap(orig: JsonObject | undefined, patch: JsonObject, schema: Schema | undefined, path: string) {
  if (hasOwn(patch, PATCH)) {
    const directive = patch[PATCH];
    if (directive === 'delete') return DELETED;
    // Replace is merge into nothing: nested directives are still consumed and nulls dropped.
    if (directive === 'replace') return mergeMap(undefined, withoutKey(patch, PATCH), schema, path);
    if (directive !== 'merge') fail(join(path, PATCH), `unknown directive ${quote(directive)}`);
  }
  const retain = readRetainKeys(patch, path);
  const out: JsonObject = {};
  // $retainKeys clears every original field it does not name before the patch merges in.
  if (orig) for (const [k, v] of Object.entries(orig)) if (!retain || retain.has(k)) setOwn(out, k, cloneJson(v));

  // List directives are parallel keys; collect them per list field first.
  const order = new Map<string, unknown[]>();
  const deletions = new Map<string, unknown[]>();
  const fields: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === PATCH || k === RETAIN_KEYS) continue;
    const prefix = k.startsWith(ORDER_PREFIX) ? ORDER_PREFIX : k.startsWith(DELETE_PREFIX) ? DELETE_PREFIX : undefined;
    if (prefix === undefined) {
      // The documented rule: $retainKeys must name every field the patch sets.
      if (retain && v !== null && !retain.has(k)) fail(join(path, k), 'field is not listed in $retainKeys');
      fields.push(k);
      continue;
    }
    const field = k.slice(prefix.length);
    if (!field) fail(join(path, k), 'directive names no list field');
    if (!Array.isArray(v)) fail(join(path, k), 'directive value must be a list');
    if (prefix === DELETE_PREFIX && !v.every((d) => kindOf(d) === 'scalar')) fail(join(path, k), 'values must be primitives');
    (prefix === ORDER_PREFIX ? order : deletions).set(field, v);
  }
  const named = new Set(fields);
  for (const field of [...order.keys(), ...deletions.keys()]) {
    if (!hasOwn(patch, field) && !named.has(field)) {
      named.add(field);
      fields.push(field);
    }
  }

  for (const key of fields) {
    const fieldPath = join(path, key);
    const fieldSchema = childSchema(schema, key);
    const value = hasOwn(patch, key) ? patch[key] : undefined; // undefined: only directives name this list
    const current = hasOwn(out, key) ? out[key] : undefined;
    if (value === null) {
      delete out[key];
    } else if (value === undefined || Array.isArray(value)) {
      if (value === undefined && !Array.isArray(current)) continue; // nothing to reorder or delete from
      const origList = Array.isArray(current) ? current : undefined;
      const directives = { order: order.get(key), deletions: deletions.get(key), orderPath: join(path, ORDER_PREFIX + key) };
      setOwn(out, key, mergeList(origList, value, fieldSchema, fieldPath, directives));
    } else if (order.has(key) || deletions.has(key)) {
      fail(fieldPath, 'list directives need a list value');
    } else if (isJsonObject(value)) {
      // A field whose strategy is `replace` takes the patch map as is; a non-map original is replaced too.
      const base = isJsonObject(current) && !strategies(fieldSchema).includes('replace') ? current : undefined;
      const merged = mergeMap(base, value, fieldSchema, fieldPath);
      if (merged === DELETED) delete out[key];
      else setOwn(out, key, merged);
    } else {
      setOwn(out, key, value);
    }
  }
  return out;
}

type Kind = 'map' | 'list' | 'scalar';
const kindOf = (v: unknown): Kind => (isJsonObject(v) ? 'map' : Array.isArray(v) ? 'list' : 'scalar');

/** A patch value under no original: directives consumed, nulls in maps dropped (as merge patch does). */
function fresh(value: unknown, schema: Schema | undefined, path: string): unknown {
  if (isJsonObject(value)) {
    const merged = mergeMap(undefined, value, schema, path);
    return merged === DELETED ? {} : merged;
  }
  if (Array.isArray(value)) return mergeList(undefined, value, schema, path, { orderPath: path });
  return value;
}

/** The parallel directives naming one list field; `orderPath` names `$setElementOrder/<field>` in errors. */
interface ListDirectives {
  order?: unknown[] | undefined;
  deletions?: unknown[] | undefined;
  orderPath: string;
}

/**
 * Merges a patch list (absent when only `$setElementOrder`/`$deleteFromPrimitiveList` name the field)
 * into an original list (absent when the field is new or was not a list).
 */
function mergeList(
  orig: unknown[] | undefined,
  patch: unknown[] | undefined,
  schema: Schema | undefined,
  path: string,
  { order, deletions, orderPath }: ListDirectives,
): unknown[] {
  const mode = listMode(schema);
  const itemSchema = schema?.items;
  const original = orig ?? [];

  // Split `$patch` items off: they steer the merge and never reach the result.
  let replace = !mode.merge;
  const items: { value: unknown; path: string }[] = [];
  const deleteIds: unknown[] = [];
  for (const [i, item] of (patch ?? []).entries()) {
    const itemPath = `${path}[${i}]`;
    if (!isJsonObject(item) || !hasOwn(item, PATCH)) {
      items.push({ value: item, path: itemPath });
      continue;
    }
    const directive = item[PATCH];
    if (directive === 'replace') {
      // As in the reference, the directive item itself is dropped, whatever else it holds.
      replace = true;
    } else if (directive === 'merge') {
      items.push({ value: withoutKey(item, PATCH), path: itemPath });
    } else if (directive === 'delete') {
      if (!mode.merge) continue; // nothing to delete from in a list the patch replaces
      if (mode.key === undefined) fail(itemPath, '$patch: delete needs a list merged by key');
      const id = item[mode.key];
      if (id === undefined || id === null) fail(itemPath, `does not contain the merge key "${mode.key}"`);
      deleteIds.push(id);
    } else {
      fail(join(itemPath, PATCH), `unknown directive ${quote(directive)}`);
    }
  }
  const deleted = deletions && new Set(deletions.map(idKey));
  const dropDeleted = (list: unknown[]) => (deleted ? list.filter((v) => !deleted.has(idKey(v))) : list);

  if (replace) {
    // Directive-only patches (no list in the patch) still reorder or delete from the original.
    const result =
      patch === undefined
        ? dropDeleted(original).map(cloneJson)
        : items.map((it) => fresh(it.value, itemSchema, it.path));
    const firstKind = result.length > 0 ? kindOf(result[0]) : 'scalar';
    const key = firstKind === 'map' ? mode.key : undefined;
    if (!order || (firstKind === 'map' && key === undefined) || firstKind === 'list') return result;
    return arrange(result, orderIds(order, key, orderPath), original.map(identity(key)), identity(key));
  }

  // Merge: every item (original and patch) must be of one kind, and not a list.
  const kinds = new Set([...original, ...items.map((it) => it.value)].map(kindOf));
  if (kinds.has('list')) fail(path, 'lists of lists cannot be merged');
  if (kinds.size > 1) fail(path, 'list mixes maps and primitive values');
  if (kinds.has('map') || (kinds.size === 0 && mode.key !== undefined)) {
    if (mode.key === undefined) fail(path, 'list of maps has no merge key');
    if (deletions) fail(path, '$deleteFromPrimitiveList applies only to lists of primitives');
    return mergeMapList(original, items, deleteIds, mode.key, itemSchema, order && orderIds(order, mode.key, orderPath));
  }

  // Primitive set: deletions leave the original first, then patch values join; duplicates collapse.
  const merged: unknown[] = [];
  const seen = new Set<string | undefined>();
  for (const v of [...dropDeleted(original), ...items.map((it) => it.value)]) {
    const k = idKey(v);
    if (seen.has(k)) continue;
    seen.add(k);
    merged.push(cloneJson(v));
  }
  const wanted = order ? orderIds(order, undefined, orderPath) : items.map((it) => it.value);
  return arrange(merged, wanted, original, identity(undefined));
}

function mergeMapList(
  original: unknown[],
  items: { value: unknown; path: string }[],
  deleteIds: unknown[],
  key: string,
  itemSchema: Schema | undefined,
  orderedIds: unknown[] | undefined,
): unknown[] {
  const id = identity(key);
  // `$patch: delete` removes every entry with that key, as the design doc notes.
  const deleted = new Set(deleteIds.map(idKey));
  const merged = original.filter((o) => !deleted.has(idKey(id(o)))).map(cloneJson);
  // Where each key sits in `merged` (its first entry), so that matching is not quadratic.
  const position = firstPositions(merged.map(id));
  for (const it of items) {
    const item = it.value as JsonObject; // kinds were checked by the caller
    if (item[key] === undefined || item[key] === null) fail(it.path, `does not contain the merge key "${key}"`);
    // Later patch items with the same key merge into the result of earlier ones.
    const itemKey = idKey(item[key]);
    const at = position.get(itemKey) ?? -1;
    const into = at >= 0 && isJsonObject(merged[at]) ? (merged[at] as JsonObject) : undefined;
    const result = mergeMap(into, item, itemSchema, it.path);
    const value = result === DELETED ? {} : result;
    if (at >= 0) merged[at] = value;
    else {
      position.set(itemKey, merged.length);
      merged.push(value);
    }
    // An entry emptied by `$patch: delete` has no key left: later items with that key start anew.
    if (result === DELETED) position.delete(itemKey);
  }
  const wanted = orderedIds ?? items.map((it) => (it.value as JsonObject)[key]);
  return arrange(merged, wanted, original.map(id), id);
}

function identity(key: string | undefined): (v: unknown) => unknown {
  if (key === undefined) return (v) => v;
  return (v) => (isJsonObject(v) && v[key] !== undefined && v[key] !== null ? v[key] : NO_ID);
}

/** The identities a `$setElementOrder` list names: `{key: value}` maps for map lists, else the values. */
function orderIds(order: unknown[], key: string | undefined, at: string): unknown[] {
  return order.map((entry, i) => {
    if (key === undefined) {
      if (kindOf(entry) !== 'scalar') fail(`${at}[${i}]`, 'entries of a primitive list order must be primitives');
      return entry;
    }
    if (!isJsonObject(entry) || entry[key] === undefined || entry[key] === null) {
      fail(`${at}[${i}]`, `does not contain the merge key "${key}"`);
    }
    return entry[key];
  });
}

/**
 * A Map key standing for an identity under RFC equality (what `jsonEqual` compares): primitives by type and
 * value, maps and lists by their canonical JSON. `undefined` for NO_ID, which equals nothing.
 */
function idKey(id: unknown): string | undefined {
  switch (typeof id) {
    case 'string':
      return `s${id}`;
    case 'number':
      return `n${id}`;
    case 'boolean':
      return `b${id}`;
    case 'symbol':
      return undefined;
    default:
      return id === null ? 'null' : `j${canonicalJson(id)}`;
  }
}

/** JSON with object members sorted, so that equal values (in any member order) have equal text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** The index of the first occurrence of each identity. */
function firstPositions(ids: unknown[]): Map<string | undefined, number> {
  const at = new Map<string | undefined, number>();
  ids.forEach((x, i) => {
    const k = idKey(x);
    if (k !== undefined && !at.has(k)) at.set(k, i);
  });
  return at;
}

const indexIn = (positions: Map<string | undefined, number>, id: unknown) => (id === NO_ID ? -1 : (positions.get(idKey(id)) ?? -1));

/**
 * Final order, as the reference documents it: items named by the patch (or by `$setElementOrder`) keep the
 * patch's order; the others keep their original order; the two runs interleave, taking a server-only item
 * first only while both it and the next patch item are in the original and it came earlier there. So a
 * new item lands before the server-only items that follow it (the kubectl patch docs show a new container
 * listed first), while an update in place keeps an item's position.
 */
function arrange(merged: unknown[], wantedIds: unknown[], serverIdList: unknown[], id: (v: unknown) => unknown): unknown[] {
  const wanted = firstPositions(wantedIds);
  const serverIds = firstPositions(serverIdList);
  const named: { value: unknown; rank: number }[] = [];
  const rest: unknown[] = [];
  for (const value of merged) {
    const rank = indexIn(wanted, id(value));
    if (rank >= 0) named.push({ value, rank });
    else rest.push(value);
  }
  const ordered = named.sort((a, b) => a.rank - b.rank).map((n) => n.value);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < rest.length || j < ordered.length) {
    if (j >= ordered.length) out.push(rest[i++]);
    else if (i >= rest.length) out.push(ordered[j++]);
    else {
      const left = indexIn(serverIds, id(rest[i]));
      const right = indexIn(serverIds, id(ordered[j]));
      out.push(left >= 0 && right >= 0 && left < right ? rest[i++] : ordered[j++]);
    }
  }
  return out;
}
