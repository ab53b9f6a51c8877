/**
 * Ownership tracking for ordinary writes (PUT and non-apply patches): no conflicts, ownership moves to the
 * writer (spec 7), and the managedFields reset rule of spec 4.3.
 */
import type { ApiObject } from '../api/types.js';
import type { Schema } from '../api/index.js';
import { cloneJson } from '../patch/json.js';
import { difference, fieldSetOf, isEmpty, union } from './fieldset.js';
import { fieldsV1Of } from './fieldsv1.js';
import {
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  managedSetsEqual,
  sameManager,
  type ManagedFieldsEntry,
  type ManagedSet,
  type ManagerId,
  wireEntry,
} from './managed.js';
import { changedPaths } from './paths.js';

export interface RecordUpdateArgs {
  live: ApiObject | undefined;
  updated: ApiObject;
  schema: Schema;
  manager: string;
  apiVersion: string;
  subresource?: string;
  now: string;
  ignoreStatus?: boolean;
}

/**
 * The managedFields to store with `updated`. Fields added or changed since `live` move to the writer's
 * Update entry (merged with its earlier updates); removed fields leave every entry; empty entries go.
 * Throws 400 when a map-list element of either object lacks its key fields (validation normally catches it first).
 */
export function recordUpdate(args: RecordUpdateArgs): ManagedFieldsEntry[] {
  const { live, updated, schema } = args;
  const self: ManagerId = { manager: args.manager, operation: 'Update', subresource: args.subresource ?? '' };
  const { base, raw } = startingEntries(live?.metadata?.managedFields, updated.metadata?.managedFields, self.subresource !== '');

  const opts = { ignoreStatus: args.ignoreStatus };
  // A create that starts from no entries: every field it sets is new and the writer's alone, so its one entry
  // is the object's whole field set, built straight into FieldsV1 (the general path below gives the same).
  if (live === undefined && base.length === 0) {
    const fieldsV1 = fieldsV1Of(updated, schema, opts);
    if (Object.keys(fieldsV1).length === 0) return [];
    return [wireEntry({ manager: args.manager, operation: 'Update', subresource: self.subresource, apiVersion: args.apiVersion, time: args.now }, fieldsV1)];
  }
  const liveSet = fieldSetOf(live ?? {}, schema, opts);
  const newSet = fieldSetOf(updated, schema, opts);
  const changed = changedPaths(live ?? {}, liveSet, updated, newSet);
  const removed = difference(liveSet, newSet);
  const lost = union(changed, removed);

  const next: ManagedSet[] = base.map((e) => {
    if (!sameManager(e, self)) return { ...e, set: difference(e.set, lost) };
    const set = union(difference(e.set, removed), changed);
    return isEmpty(changed) ? { ...e, set } : { ...e, set, apiVersion: args.apiVersion, time: args.now };
  });
  if (!isEmpty(changed) && !base.some((e) => sameManager(e, self))) {
    next.push({ ...self, apiVersion: args.apiVersion, time: args.now, set: changed });
  }
  // Nothing moved: hand back the entries as they were given, so a no-op write stays a no-op.
  if (raw !== undefined && managedSetsEqual(next, base)) return cloneJson(raw) as ManagedFieldsEntry[];
  return encodeManagedFields(next);
}

/**
 * Whose ownership the write starts from, as the reference decides it: a subresource write always keeps
 * live's entries; `[{}]` resets to none; another non-empty, valid list replaces live's; an empty, missing or
 * undecodable list keeps live's (clients that do not know managedFields must not wipe it by accident).
 * Undecodable stored entries count as none rather than blocking every later write.
 */
function startingEntries(liveRaw: unknown, requested: unknown, subresource: boolean): { base: ManagedSet[]; raw: unknown } {
  if (!subresource && isResetRequest(requested)) return { base: [], raw: undefined };
  if (!subresource && Array.isArray(requested) && requested.length > 0) {
    const decoded = tryDecode(requested);
    if (decoded) return { base: decoded, raw: requested };
  }
  const decoded = tryDecode(liveRaw);
  return decoded ? { base: decoded, raw: liveRaw ?? undefined } : { base: [], raw: undefined };
}

function tryDecode(raw: unknown): ManagedSet[] | undefined {
  try {
    return decodeManagedFields(raw);
  } catch {
    return undefined;
  }
}
