import type { ApiObject } from '../api/types.js';
import { jsonContainerEnd, jsonStringEnd } from '../encoding/index.js';
import { apiVersionOf } from '../api/types.js';
import { setOwn } from '../patch/index.js';
import { internalError } from '../errors/index.js';
import type { KeyValue } from '../storage/index.js';
import type { ResourceType } from './types.js';

/**
 * The stored form of an object: JSON of the storage version with `metadata` as the FIRST key and without
 * `resourceVersion` (the storage revision is the resource version; it is never stored).
 *
 * Keeping metadata first lets a reader serve the stored bytes as the response without decoding them
 * (encode once): the resourceVersion is spliced in right after `{"metadata":{`. Example: stored
 * `{"metadata":{"name":"a"},"kind":"ConfigMap"}` at revision 7 is served as
 * `{"metadata":{"resourceVersion":"7","name":"a"},"kind":"ConfigMap"}`.
 */
export function encodeForStorage(type: ResourceType, obj: ApiObject): Uint8Array {
  const stored = type.toStorage ? type.toStorage(obj) : obj;
  let meta = stored.metadata ?? {};
  if (meta.resourceVersion !== undefined) {
    const { resourceVersion: _rv, ...rest } = meta;
    meta = rest;
  }
  // One new object: metadata first, then the other fields in their order.
  const out: Record<string, unknown> = { metadata: meta };
  for (const k in stored) if (k !== 'metadata' && Object.hasOwn(stored, k)) setOwn(out, k, (stored as Record<string, unknown>)[k]);
  return Buffer.from(JSON.stringify(out));
}

export function decodeFromStorage(type: ResourceType, value: Uint8Array, revision: number): ApiObject {
  const stored = parseStored(value);
  // A type converted asynchronously cannot be read here: refuse rather than relabel another version's data.
  if (type.asyncConversion && stored.apiVersion !== apiVersionOf(type.group, type.version)) {
    throw internalError(`${type.kind} ${stored.metadata?.name ?? ''} is stored as ${String(stored.apiVersion)} and must be converted asynchronously to ${apiVersionOf(type.group, type.version)}`);
  }
  return finishDecode(type, stored, revision);
}

function parseStored(value: Uint8Array): ApiObject {
  return JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as ApiObject;
}

function finishDecode(type: ResourceType, stored: ApiObject, revision: number): ApiObject {
  const obj = type.fromStorage ? type.fromStorage(stored) : stored;
  obj.apiVersion = apiVersionOf(type.group, type.version);
  obj.kind = type.kind;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(revision) };
  return obj;
}

export const decodeKV = (type: ResourceType, kv: KeyValue) => decodeFromStorage(type, kv.value, kv.modRevision);

/**
 * A stored object as written, in whatever version that was, with its resourceVersion: what selectors of a
 * type converted asynchronously look at (the reference filters the stored form too).
 */
export function decodeUnconverted(value: Uint8Array, revision: number): ApiObject {
  const obj = parseStored(value);
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(revision) };
  return obj;
}

/** Stored values decoded in the type's version; a type converted asynchronously converts them in one batch. */
export async function decodeConverted(type: ResourceType, values: readonly { value: Uint8Array; modRevision: number }[]): Promise<ApiObject[]> {
  const conversion = type.asyncConversion;
  if (!conversion) return values.map((v) => decodeFromStorage(type, v.value, v.modRevision));
  return convertUnconverted(type, values.map((v) => decodeUnconverted(v.value, v.modRevision)));
}

/** Objects from `decodeUnconverted` in the type's version, in one batch of its asynchronous conversion. */
export async function convertUnconverted(type: ResourceType, objects: ApiObject[]): Promise<ApiObject[]> {
  if (objects.length === 0) return [];
  const revisions = objects.map((o) => o.metadata?.resourceVersion);
  const converted = type.asyncConversion ? await type.asyncConversion.convert(objects, apiVersionOf(type.group, type.version)) : objects;
  return converted.map((o, i) => finishDecode(type, o, Number(revisions[i])));
}

/** `encodeForStorage` after converting to the storage version where that needs a call out. */
export async function encodeConverted(type: ResourceType, obj: ApiObject): Promise<Uint8Array> {
  const conversion = type.asyncConversion;
  if (!conversion) return encodeForStorage(type, obj);
  const [stored] = await conversion.convert([obj], conversion.storageApiVersion);
  return encodeForStorage(type, stored as ApiObject);
}

/** JSON response bytes of stored values in the type's version (`objectJson`, or one conversion batch). */
export async function objectsJson(type: ResourceType, values: readonly { value: Uint8Array; modRevision: number }[]): Promise<Buffer[]> {
  if (!type.asyncConversion) return values.map((v) => objectJson(type, v.value, v.modRevision));
  return (await decodeConverted(type, values)).map((o) => Buffer.from(JSON.stringify(o)));
}

const PREFIX = Buffer.from('{"metadata":{');
const EMPTY_META = PREFIX.length; // index of the byte after `{"metadata":{`

/**
 * The JSON response bytes of a stored object at `revision`, for one view. When the view is the stored form
 * (no conversion, or one that would change nothing: `readsStoredAsIs`) the stored bytes are reused with
 * the resourceVersion spliced in; otherwise decode, convert and encode.
 */
export function objectJson(type: ResourceType, value: Uint8Array, revision: number): Buffer {
  const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (buf.length > EMPTY_META && PREFIX.compare(buf, 0, EMPTY_META) === 0 && (!type.fromStorage || type.readsStoredAsIs?.(value) === true)) {
    const empty = buf[EMPTY_META] === 0x7d; // `}`: metadata has no other fields
    const rv = `"resourceVersion":"${revision}"${empty ? '' : ','}`; // ASCII: one byte per character
    const out = Buffer.allocUnsafe(buf.length + rv.length);
    out.set(PREFIX, 0);
    out.write(rv, EMPTY_META, 'latin1');
    out.set(buf.subarray(EMPTY_META), EMPTY_META + rv.length);
    return out;
  }
  return Buffer.from(JSON.stringify(decodeFromStorage(type, value, revision)));
}

/** Labels of a stored object (the watch cache keeps them for label selectors). */
const LABELS = Buffer.from('"labels":');
const QUOTE = 0x22;
const isOpen = (c: number) => c === 0x7b || c === 0x5b; // { [
const isClose = (c: number) => c === 0x7d || c === 0x5d; // } ]

/**
 * `metadata.labels` of a stored object, for the watch cache's label index. The stored form puts metadata
 * first, so the labels are found by scanning the bytes up to them and parsing only their object: a
 * workload whose pod template carries labels is not parsed whole on every write. Any other shape falls
 * back to a full parse.
 */
export function labelsOfStored(value: Uint8Array): Record<string, string> | undefined {
  const buf = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  // Most objects carry no labels: skip the parse (and its garbage) unless the key is there at all.
  const at = buf.indexOf(LABELS);
  if (at < 0) return undefined;
  if (PREFIX.compare(buf, 0, EMPTY_META) === 0) {
    const depth = depthAt(buf, EMPTY_META, at);
    if (depth === 0) return undefined; // metadata ended before the first "labels": it has none
    // Inside metadata itself (not in a string, which reads as -1): its labels object.
    if (depth === 1) {
      const start = at + LABELS.length;
      const end = buf[start] === 0x7b ? jsonContainerEnd(buf, start) : -1;
      if (end > 0) return parseLabels(buf.subarray(start, end + 1));
    }
  }
  return parseLabels(buf, true);
}

/**
 * Nesting depth at `to`, starting inside metadata (depth 1) at `from`; 0 as soon as metadata closes, -1 when
 * `to` is inside a string.
 */
function depthAt(buf: Buffer, from: number, to: number): number {
  let depth = 1;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c === QUOTE) {
      i = jsonStringEnd(buf, i);
      if (i >= to) return -1;
    } else if (isOpen(c)) depth++;
    else if (isClose(c) && --depth === 0) return 0;
  }
  return depth;
}

function parseLabels(bytes: Buffer, whole = false): Record<string, string> | undefined {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    return whole ? (v as ApiObject).metadata?.labels : (v as Record<string, string>);
  } catch {
    return undefined;
  }
}
