/**
 * Whether a stored custom resource, read in one served version, is its stored JSON unchanged: stored in
 * that version and already holding every default the version's schema fills in. Such a value is served
 * as its stored bytes (the resourceVersion spliced in, as for built-in types) instead of being decoded,
 * defaulted and encoded again on every read.
 *
 * The answer depends only on the bytes and on this version's schema, so it is remembered per stored value
 * (the watch cache keeps one Buffer per object revision) for as long as the value lives; a schema change
 * makes new ResourceTypes and with them a new memory. An object stored before a default was added is not
 * a fixed point of defaulting, so it keeps taking the decoding path and gets the default.
 */
import type { ApiObject } from '../../api/types.js';
import type { CustomSchema } from './contract.js';

/** `readsStoredAsIs` of a custom ResourceType whose `fromStorage` sets `apiVersion` and (with `defaults`) fills defaults. */
export function storedViewCheck(apiVersion: string, kind: string, schema: CustomSchema, defaults: boolean): (value: Uint8Array) => boolean {
  const known = new WeakMap<Uint8Array, boolean>();
  return (value) => {
    let asIs = known.get(value);
    if (asIs === undefined) {
      asIs = isStoredView(value, apiVersion, kind, schema, defaults);
      known.set(value, asIs);
    }
    return asIs;
  };
}

/** The check itself, without memory: what reading would change besides the resourceVersion. */
export function isStoredView(value: Uint8Array, apiVersion: string, kind: string, schema: CustomSchema, defaults: boolean): boolean {
  let obj: ApiObject;
  try {
    obj = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as ApiObject;
  } catch {
    return false; // the decoding path reports it
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return false;
  if (obj.apiVersion !== apiVersion || obj.kind !== kind) return false;
  return !(defaults && schema.applyDefaults(obj));
}
