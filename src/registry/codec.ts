import type { ApiObject } from '../api/types.js';
import { apiVersionOf } from '../api/types.js';
import type { KeyValue } from '../storage/index.js';
import type { ResourceType } from './types.js';

/**
 * The stored form of an object: JSON of the storage version, without `resourceVersion` (the storage revision
 * is the resource version, so it is set when reading, never stored).
 */
export function encodeForStorage(type: ResourceType, obj: ApiObject): Uint8Array {
  const stored = type.toStorage ? type.toStorage(obj) : obj;
  const meta = stored.metadata;
  if (meta && meta.resourceVersion !== undefined) {
    const { resourceVersion: _rv, ...rest } = meta;
    return Buffer.from(JSON.stringify({ ...stored, metadata: rest }));
  }
  return Buffer.from(JSON.stringify(stored));
}

export function decodeFromStorage(type: ResourceType, value: Uint8Array, revision: number): ApiObject {
  const stored = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as ApiObject;
  const obj = type.fromStorage ? type.fromStorage(stored) : stored;
  obj.apiVersion = apiVersionOf(type.group, type.version);
  obj.kind = type.kind;
  obj.metadata = { ...(obj.metadata ?? {}), resourceVersion: String(revision) };
  return obj;
}

export const decodeKV = (type: ResourceType, kv: KeyValue) => decodeFromStorage(type, kv.value, kv.modRevision);
