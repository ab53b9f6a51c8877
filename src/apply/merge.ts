/**
 * Merges an applied configuration into the live object, driven by the schema: object fields and granular
 * maps merge member by member, map lists by key, set lists by value; atomic values are replaced.
 * An explicit `null` in the applied configuration removes the member (the field is still owned).
 */
import type { Schema } from '../api/index.js';
import { badRequest } from '../errors/index.js';
import { cloneJson, isJsonObject, setOwn, type JsonObject } from '../patch/json.js';
import { DEDUCED, elementSegment, isObjectSchema, listShape, memberSchema, pathString } from './fieldset.js';

export function mergeApplied(live: unknown, applied: unknown, schema: Schema | undefined, path: string[] = []): unknown {
  return merge(cloneJson(live), applied, schema, path);
}

/** `live` is already a private copy (cloned once at the top), so no level copies it again. */
function merge(live: unknown, applied: unknown, schema: Schema | undefined, path: string[]): unknown {
  if (schema && isJsonObject(applied) && isObjectSchema(schema) && schema['x-kubernetes-map-type'] !== 'atomic') {
    const out = (isJsonObject(live) ? live : {}) as JsonObject;
    for (const key of Object.keys(applied)) {
      const value = applied[key];
      if (value === null) {
        delete out[key];
        continue;
      }
      setOwn(out, key, merge(out[key], value, memberSchema(schema, key).schema, [...path, `f:${key}`]));
    }
    return out;
  }
  if (schema && Array.isArray(applied) && (schema.type === 'array' || schema.items !== undefined)) {
    const shape = listShape(schema);
    if (shape.type === 'atomic') return cloneJson(applied);
    const appliedIds = applied.map((el, i) => elementSegment(shape, el, path, i));
    const seen = new Set<string>();
    for (const id of appliedIds) {
      if (seen.has(id)) throw badRequest(`${pathString(path)}: duplicate entries for key ${pathString([id])}`);
      seen.add(id);
    }
    const liveList = Array.isArray(live) ? live : [];
    // A live element without its key fields gets an id no applied element can have: it is kept as it is.
    const liveIds = liveList.map((el, i) => {
      try {
        return elementSegment(shape, el, path, i);
      } catch {
        return `#${i}`;
      }
    });
    return mergeOrder(liveIds, appliedIds).map((slot) => {
      const lv = slot.live === undefined ? undefined : liveList[slot.live];
      if (slot.applied === undefined) return lv;
      const av = applied[slot.applied];
      return shape.type === 'map' ? merge(lv, av, schema.items ?? DEDUCED, [...path, slot.id]) : cloneJson(av);
    });
  }
  return cloneJson(applied);
}

export interface Slot {
  id: string;
  /** Index in the live list, when the element exists there. */
  live?: number;
  /** Index in the applied list, when the configuration names the element. */
  applied?: number;
}

/**
 * Order of a merged list. Live elements the configuration does not name keep their places; the places of
 * the named ones are refilled in the configuration's order; new elements follow their predecessor in the
 * configuration. Example: live [a, b, c], applied [c, x, a] -> [c, x, b, a]
 * (slots of a and c are refilled as c, a; b stays; x goes right after c).
 */
export function mergeOrder(liveIds: readonly string[], appliedIds: readonly string[]): Slot[] {
  const appliedAt = new Map(appliedIds.map((id, i) => [id, i] as const));
  const liveAt = new Map<string, number>();
  liveIds.forEach((id, i) => liveAt.has(id) || liveAt.set(id, i));
  const shared = appliedIds.filter((id) => liveAt.has(id));
  const out: Slot[] = [];
  let next = 0;
  liveIds.forEach((id, i) => {
    if (!appliedAt.has(id)) out.push({ id, live: i });
    // Later live copies of a named element vanish: the configuration says there is one.
    else if (liveAt.get(id) === i) {
      const sid = shared[next++] as string;
      out.push({ id: sid, live: liveAt.get(sid), applied: appliedAt.get(sid) });
    }
  });
  // New elements form runs: a run follows the named element before it, or (at the start of the
  // configuration) goes before the first named slot. Collected first and placed in one pass, since
  // inserting one by one was quadratic in the list length.
  const head: Slot[] = [];
  const runAfter = new Map<string, Slot[]>();
  let run = head;
  appliedIds.forEach((id, j) => {
    if (liveAt.has(id)) return;
    const previous = appliedIds[j - 1];
    if (previous !== undefined && liveAt.has(previous)) runAfter.set(previous, (run = []));
    run.push({ id, applied: j });
  });
  const merged: Slot[] = [];
  let headPlaced = head.length === 0;
  for (const slot of out) {
    if (!headPlaced && slot.applied !== undefined) {
      for (const s of head) merged.push(s);
      headPlaced = true;
    }
    merged.push(slot);
    const following = slot.applied !== undefined ? runAfter.get(slot.id) : undefined;
    if (following) for (const s of following) merged.push(s);
  }
  if (!headPlaced) for (const s of head) merged.push(s);
  return merged;
}
