/**
 * `metadata.managedFields` (spec 2.4): the wire entries and their decoded form with a FieldSet per entry.
 * An entry is identified by (manager, operation, subresource); the reference's version of an Update entry is
 * just recorded, not part of the identity here, so one manager's updates through any version share an entry.
 */
import { badRequest, quote } from '../errors/index.js';
import { isJsonObject, type JsonObject } from '../patch/json.js';
import { fromFieldsV1, toFieldsV1 } from './fieldsv1.js';
import { isEmpty, setsEqual, union, type FieldSet } from './fieldset.js';

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  /** Always written by this package; entries a client stored without one decode and encode without it. */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** A decoded entry; `subresource` is '' for the main resource. */
export interface ManagedSet {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  time: string | undefined;
  set: FieldSet;
}

export interface ManagerId {
  manager: string;
  operation: Operation;
  subresource: string;
}

export const sameManager = (a: ManagerId, b: ManagerId) =>
  a.manager === b.manager && a.operation === b.operation && a.subresource === b.subresource;

/** Spec 4.3: a write whose managedFields is exactly one empty entry wipes the recorded ownership. */
export function isResetRequest(v: unknown): boolean {
  return Array.isArray(v) && v.length === 1 && isJsonObject(v[0]) && Object.keys(v[0]).length === 0;
}

/**
 * Decodes stored or submitted entries (`undefined`/`null` = none). Duplicate Update entries of one manager are
 * merged (union of sets, later time); a duplicate Apply entry is an error, as one applier has one intent.
 */
export function decodeManagedFields(entries: unknown): ManagedSet[] {
  if (entries === undefined || entries === null) return [];
  if (!Array.isArray(entries)) throw badRequest('metadata.managedFields: must be a list');
  const out: ManagedSet[] = [];
  entries.forEach((raw, i) => {
    const at = `metadata.managedFields[${i}]`;
    if (!isJsonObject(raw)) throw badRequest(`${at}: must be an object`);
    const str = (field: string): string | undefined => {
      const v = raw[field];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw badRequest(`${at}.${field}: must be a string`);
      return v;
    };
    const operation = str('operation');
    if (operation !== 'Apply' && operation !== 'Update') {
      throw badRequest(`${at}.operation: must be "Apply" or "Update", got ${quote(raw['operation'] ?? '')}`);
    }
    const fieldsType = str('fieldsType');
    const hasFields = raw['fieldsV1'] !== undefined && raw['fieldsV1'] !== null;
    if (fieldsType !== 'FieldsV1' && (hasFields || fieldsType !== undefined)) {
      throw badRequest(`${at}.fieldsType: must be "FieldsV1", got ${quote(fieldsType ?? '')}`);
    }
    const time = str('time');
    if (time !== undefined && Number.isNaN(Date.parse(time))) throw badRequest(`${at}.time: invalid timestamp ${quote(time)}`);
    const entry: ManagedSet = {
      manager: str('manager') ?? '',
      operation,
      apiVersion: str('apiVersion') ?? '',
      subresource: str('subresource') ?? '',
      time,
      set: hasFields ? fromFieldsV1(raw['fieldsV1'], `${at}.fieldsV1`) : new Set(),
    };
    const dup = out.find((e) => sameManager(e, entry));
    if (!dup) out.push(entry);
    else if (operation === 'Apply') throw badRequest(`${at}: duplicate Apply entry for manager ${quote(entry.manager)}`);
    else {
      dup.set = union(dup.set, entry.set);
      if (seconds(entry.time) >= seconds(dup.time)) {
        dup.time = entry.time;
        dup.apiVersion = entry.apiVersion;
      }
    }
  });
  return out;
}

const seconds = (t: string | undefined) => {
  const ms = t === undefined ? NaN : Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/**
 * Encodes for storage: empty sets are dropped; Apply entries come before Update entries, each group by time
 * (whole seconds, as the reference compares them). The sort is stable, so entries with equal times keep their
 * order: existing entries first, new ones appended.
 */
export function encodeManagedFields(list: readonly ManagedSet[]): ManagedFieldsEntry[] {
  const kept = list.filter((e) => !isEmpty(e.set));
  const order = kept
    .map((e, i) => ({ e, i }))
    .sort((a, b) => {
      if (a.e.operation !== b.e.operation) return a.e.operation === 'Apply' ? -1 : 1;
      return seconds(a.e.time) - seconds(b.e.time) || a.i - b.i;
    });
  return order.map(({ e }) => wireEntry(e, toFieldsV1(e.set)));
}

/** One stored entry, its members in the order the reference writes them. */
export function wireEntry(e: Omit<ManagedSet, 'set'>, fieldsV1: JsonObject): ManagedFieldsEntry {
  const { manager, operation, apiVersion, time } = e;
  // Literals rather than conditional spreads: this runs for every write.
  const out: ManagedFieldsEntry =
    time !== undefined
      ? { manager, operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1 }
      : { manager, operation, apiVersion, fieldsType: 'FieldsV1', fieldsV1 };
  if (e.subresource) out.subresource = e.subresource;
  return out;
}

/** Same entries (ignoring order and empty sets) with the same version, time and fields. */
export function managedSetsEqual(a: readonly ManagedSet[], b: readonly ManagedSet[]): boolean {
  const x = a.filter((e) => !isEmpty(e.set));
  const y = b.filter((e) => !isEmpty(e.set));
  return (
    x.length === y.length &&
    x.every((e) => {
      const o = y.find((f) => sameManager(e, f));
      return o !== undefined && o.apiVersion === e.apiVersion && o.time === e.time && setsEqual(o.set, e.set);
    })
  );
}
