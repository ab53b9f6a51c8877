/**
 * Server-side apply (spec 4.3, errors in spec 7) as a pure function: the write path passes the live object
 * and the applied configuration, and stores the returned object (or skips the write when it deep-equals live).
 */
import type { ApiObject } from '../api/types.js';
import type { Schema } from '../api/index.js';
import { StatusError, badRequest, quote } from '../errors/index.js';
import { cloneJson, isJsonObject, jsonEqual } from '../patch/json.js';
import {
  ancestorKeys,
  difference,
  emptySet,
  fieldSet,
  fieldSetOf,
  intersection,
  leaves,
  pathKey,
  pathString,
  setsEqual,
  union,
  type FieldSet,
} from './fieldset.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  managedSetsEqual,
  sameManager,
  type ManagedFieldsEntry,
  type ManagedSet,
  type ManagerId,
} from './managed.js';
import { mergeApplied } from './merge.js';
import { lookup, removeAt, sameValue } from './paths.js';

export interface ApplyArgs {
  live: ApiObject | undefined;
  applied: ApiObject;
  schema: Schema;
  manager: string;
  force: boolean;
  apiVersion: string;
  subresource?: string;
  /** RFC 3339 time of this request, recorded in the manager's entry when something changed. */
  now: string;
  /** Leave `status` out of ownership (the main resource of a kind with a status subresource). */
  ignoreStatus?: boolean;
}

export interface ApplyResult {
  /** The merged object; `metadata.managedFields` is set to `managedFields` (omitted when empty). */
  object: ApiObject;
  managedFields: ManagedFieldsEntry[];
}

export interface FieldConflict {
  entry: ManagedSet;
  path: string[];
}

export function apply(args: ApplyArgs): ApplyResult {
  const { live, applied, schema, manager } = args;
  if (!isJsonObject(applied)) throw badRequest('the apply configuration must be an object');
  const meta = applied.metadata;
  if (isJsonObject(meta) && meta.managedFields !== undefined && meta.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const self: ManagerId = { manager, operation: 'Apply', subresource: args.subresource ?? '' };
  const entries = decodeManagedFields(live?.metadata?.managedFields);
  const appliedSet = fieldSetOf(applied, schema, { ignoreStatus: args.ignoreStatus });

  const conflicts = findConflicts(live ?? {}, applied, appliedSet, entries.filter((e) => !sameManager(e, self)));
  if (conflicts.length > 0 && !args.force) throw conflictError(conflicts);

  // Forced fields leave their previous owners; fields with an equal value stay shared.
  const next: ManagedSet[] = entries.map((e) => {
    if (sameManager(e, self)) return e;
    const lost = fieldSet(conflicts.filter((c) => c.entry === e).map((c) => c.path));
    return lost.size === 0 ? e : { ...e, set: difference(e.set, lost) };
  });

  const object = mergeApplied(live ?? {}, applied, schema) as ApiObject;
  const prev = entries.find((e) => sameManager(e, self));
  const others = next.filter((e) => !sameManager(e, self));
  prune(object, difference(prev?.set ?? emptySet, appliedSet), union(appliedSet, ...others.map((e) => e.set)));

  const unchanged =
    prev !== undefined &&
    prev.apiVersion === args.apiVersion &&
    setsEqual(prev.set, appliedSet) &&
    equalBesidesManaged(live ?? {}, object);
  const mine: ManagedSet = { ...self, apiVersion: args.apiVersion, time: unchanged ? prev.time : args.now, set: appliedSet };
  const list = prev ? next.map((e) => (sameManager(e, self) ? mine : e)) : [...next, mine];

  // Nothing changed: keep the stored entries byte for byte so that the result deep-equals live.
  const managedFields =
    live && managedSetsEqual(list, entries)
      ? (cloneJson(live.metadata?.managedFields ?? []) as ManagedFieldsEntry[])
      : encodeManagedFields(list);
  setManagedFields(object, managedFields);
  return { object, managedFields };
}

/**
 * A field conflicts when another entry owns it and the configuration gives it a different value than live.
 * For a path with members below it (a list element, a map entry holding an object) only its presence
 * counts; its values are compared at its leaves.
 */
export function findConflicts(live: unknown, applied: unknown, appliedSet: FieldSet, others: readonly ManagedSet[]): FieldConflict[] {
  const inner = ancestorKeys(appliedSet);
  const out: FieldConflict[] = [];
  for (const entry of others) {
    for (const path of leaves(intersection(appliedSet, entry.set))) {
      const lv = lookup(live, path);
      const container = inner.has(pathKey(path)) || !path[path.length - 1]?.startsWith('f:');
      const differs = container ? lv === undefined : !sameValue(lv, lookup(applied, path));
      if (differs) out.push({ entry, path });
    }
  }
  return out;
}

const describe = (e: ManagedSet) =>
  `${quote(e.manager)}${e.subresource ? ` with subresource ${quote(e.subresource)}` : ''}${
    e.operation === 'Update' ? ` using ${e.apiVersion}` : ''
  }`;

/** 409 Conflict listing every conflicting field, one message line and one cause each. */
export function conflictError(conflicts: readonly FieldConflict[]): StatusError {
  const n = conflicts.length;
  const lines = conflicts.map((c) => `conflict with ${describe(c.entry)}: ${pathString(c.path)}`);
  return new StatusError(409, 'Conflict', `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${lines.join('\n')}`, {
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${quote(c.entry.manager)}: ${pathString(c.path)}`,
      field: pathString(c.path),
    })),
  });
}

/**
 * Removes the fields the applier gave up (`removed`) unless someone still owns them or anything below them.
 * Deeper paths go first, so an element's own fields are handled before the element. Key fields of an element
 * are never removed alone: the element goes as a whole (its `k:` path) or stays whole.
 */
function prune(object: ApiObject, removed: FieldSet, owned: FieldSet): void {
  const ownedInner = ancestorKeys(owned);
  const keep = (key: string) => owned.has(key) || ownedInner.has(key);
  for (const path of leaves(removed).sort((a, b) => b.length - a.length)) {
    if (keep(pathKey(path)) || isKeyField(path)) continue;
    removeAt(object, path, keep);
  }
}

function isKeyField(path: readonly string[]): boolean {
  const parent = path[path.length - 2];
  const last = path[path.length - 1];
  if (!parent?.startsWith('k:') || !last?.startsWith('f:')) return false;
  return Object.hasOwn(JSON.parse(parent.slice(2)) as object, last.slice(2));
}

/** Deep equality that skips `metadata.managedFields`, without copying either object. */
function equalBesidesManaged(a: ApiObject, b: ApiObject): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k)) return false;
    const [x, y] = [(a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]];
    if (k === 'metadata' && isJsonObject(x) && isJsonObject(y)) {
      const mx = Object.keys(x).filter((m) => m !== 'managedFields');
      const my = Object.keys(y).filter((m) => m !== 'managedFields');
      if (mx.length !== my.length || mx.some((m) => !Object.hasOwn(y, m) || !jsonEqual(x[m], y[m]))) return false;
    } else if (!jsonEqual(x, y)) return false;
  }
  return true;
}

function setManagedFields(o: ApiObject, managedFields: ManagedFieldsEntry[]): void {
  if (managedFields.length > 0) o.metadata = { ...o.metadata, managedFields: managedFields as unknown as Record<string, unknown>[] };
  else if (o.metadata) delete o.metadata.managedFields;
}
