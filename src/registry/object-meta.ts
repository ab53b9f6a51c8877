import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiObject, ObjectMeta } from '../api/types.js';
import { systemClock, type Clock } from '../util/clock.js';

/** RFC 3339 with second precision, as object timestamps are serialized. */
/** The current time in RFC 3339 at whole seconds, as the API writes timestamps. */
export function nowTimestamp(clock: Clock = systemClock): string {
  // Every write stamps at least one time; formatting a Date costs more than the rest of the stamp, and
  // within one second the text is the same (whichever clock gave the second).
  const second = Math.floor(clock.now() / 1000);
  if (second !== stamp.second) {
    stamp.second = second;
    stamp.text = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return stamp.text;
}
const stamp = { second: -1, text: '' };

const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789'; // no vowels or confusable digits, like the reference
/** `generateName` + 5 random characters (spec 2.1). */
export function generateName(prefix: string): string {
  const bytes = randomBytes(5);
  let s = '';
  for (const b of bytes) s += ALPHANUMS[b % ALPHANUMS.length];
  const max = 253 - 5;
  return (prefix.length > max ? prefix.slice(0, max) : prefix) + s;
}

export function metaOf(obj: ApiObject): ObjectMeta {
  if (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata;
}

/** Server-owned metadata set at creation; whatever the client sent for these fields is replaced. */
export function initCreateMeta(obj: ApiObject, tracksGeneration: boolean, clock: Clock = systemClock): void {
  const m = metaOf(obj);
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp(clock);
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  if (tracksGeneration) m.generation = 1;
  else delete m.generation;
}

/** On update the client may not change these; they are copied from the stored object. */
export function keepServerMeta(obj: ApiObject, old: ApiObject): void {
  const m = metaOf(obj);
  const o = metaOf(old);
  for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (o[k] === undefined) delete m[k];
    else (m as Record<string, unknown>)[k] = o[k];
  }
  // A client that does not send managedFields keeps the recorded ones (spec 2.4).
  if (m.managedFields === undefined && o.managedFields !== undefined) m.managedFields = o.managedFields;
}

/**
 * Metadata for a status write: the main resource owns these fields, so a write through /status keeps the
 * stored ones (the reference's ResetObjectMetaForStatus).
 */
export function metadataForStatusWrite(o: ApiObject, old: ApiObject): ApiObject['metadata'] {
  const meta = { ...(o.metadata ?? {}) };
  for (const k of ['deletionTimestamp', 'generation', 'labels', 'annotations', 'finalizers', 'ownerReferences']) {
    const v = old.metadata?.[k];
    if (v === undefined) delete meta[k];
    else meta[k] = v;
  }
  return meta;
}
