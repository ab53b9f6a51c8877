import type { ApiObject } from '../api/types.js';
import { apiVersionOf, isObject } from '../api/types.js';
import { badRequest, clip, conflict, fieldError, invalid, tooLarge, type FieldError } from '../errors/index.js';
import { recordUpdate } from '../apply/index.js';
import { cloneJson, MERGE_PATCH } from '../patch/index.js';
import type { KeyValue } from '../storage/index.js';
import { MAX_REQUEST_BYTES } from '../encoding/limits.js';
import { decodeConverted, decodeKV, encodeConverted, encodeForStorage } from './codec.js';
import { metaOf, nowTimestamp } from './object-meta.js';
import type { StoreContext, StoreWriteOptions, WriteOptions } from './store-options.js';

// Steps shared by the store's operations. Each is one step of the fixed order that the operations
// (store-create.ts, store-update.ts, store-apply.ts, store-delete.ts) follow.

/** The body must be an object of this kind and version, in the namespace of the URL. */
export function checkBody(s: StoreContext, body: unknown, namespace: string | undefined, owned = false): ApiObject {
  const t = s.type;
  if (!isObject(body)) throw badRequest(`the body of the request must be a JSON or YAML object (${t.kind})`);
  const obj = (owned ? body : cloneJson(body)) as ApiObject;
  const want = apiVersionOf(t.group, t.version);
  if (obj.kind !== undefined && obj.kind !== t.kind) {
    throw badRequest(`the kind in the data (${clip(String(obj.kind))}) does not match the expected kind (${t.kind}) of ${t.plural}`);
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
    throw badRequest(`the API version in the data (${clip(String(obj.apiVersion))}) does not match the expected API version (${want})`);
  }
  obj.apiVersion = want;
  obj.kind = t.kind;
  if (obj.metadata !== undefined && !isObject(obj.metadata)) {
    throw invalid(s.target(), [fieldError.typeInvalid('metadata', obj.metadata, 'must be an object')]);
  }
  const meta = metaOf(obj);
  if (t.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (namespace) meta.namespace = namespace;
  } else {
    delete meta.namespace;
  }
  return obj;
}

export function checkFieldsOf(obj: ApiObject, opts: WriteOptions): ApiObject {
  return opts.checkFields ? opts.checkFields(obj) : obj;
}

/**
 * The object a mutating stage handed back: it must still be an object of this type, in the same
 * namespace and (unless generated) with the same name, as the request addressed.
 */
export function admitted(s: StoreContext, result: ApiObject | undefined, before: ApiObject): ApiObject {
  if (result === before) return result;
  if (!isObject(result)) throw badRequest(`admission did not return a ${s.type.kind} object`);
  const was = metaOf(before);
  const now = metaOf(result);
  if (now.namespace !== was.namespace) throw badRequest('admission may not change the namespace of the object');
  if (now.name !== was.name) throw badRequest('admission may not change the name of the object');
  return result;
}

/** Records the writer's changes in managedFields (spec 2.4); `[{}]` in the request resets them (spec 4.3). */
export function recordManager(s: StoreContext, obj: ApiObject, old: ApiObject | undefined, opts: StoreWriteOptions): void {
  if (!opts.fieldManager || opts.applied) return;
  const t = s.type;
  const managed = recordUpdate({
    live: old,
    updated: obj,
    schema: t.schema,
    manager: opts.fieldManager,
    apiVersion: apiVersionOf(t.group, t.version),
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
    now: nowTimestamp(s.deps.clock),
    ignoreStatus: t.subresources.includes('status') && opts.subresource !== 'status',
  });
  const m = metaOf(obj);
  if (managed.length > 0) m.managedFields = managed as unknown as Record<string, unknown>[];
  else delete m.managedFields;
}

export function validateOrThrow(s: StoreContext, obj: ApiObject, errors: FieldError[]): void {
  if (errors.length > 0) throw invalid({ ...s.target(obj.metadata?.name), resource: undefined }, errors);
}

/**
 * The stored form of a created or updated object, refused (413) past the request body limit: whatever
 * built it (a patch, apply, defaulting), no write stores more than a client could send. Deletion's own
 * write (deletionTimestamp) is not held to it, so an object can always be deleted.
 */
export function encodeBounded(s: StoreContext, obj: ApiObject): Uint8Array {
  return bounded(encodeForStorage(s.type, obj));
}

export async function encodeBoundedAsync(s: StoreContext, obj: ApiObject): Promise<Uint8Array> {
  return bounded(await encodeConverted(s.type, obj));
}

function bounded(bytes: Uint8Array): Uint8Array {
  if (bytes.length > MAX_REQUEST_BYTES) {
    throw tooLarge(`Request entity too large: the object is too large to store: ${bytes.length} bytes, the limit is ${MAX_REQUEST_BYTES} bytes`);
  }
  return bytes;
}

/** A stored object in this type's version through its asynchronous conversion (a CRD's webhook). */
export async function decodeAsync(s: StoreContext, kv: KeyValue): Promise<ApiObject> {
  return (await decodeConverted(s.type, [kv]))[0] as ApiObject;
}

/** Finalizers that keep a deleted object in storage (metadata.finalizers, plus type-specific ones). */
export function pendingFinalizers(s: StoreContext, obj: ApiObject): string[] {
  const own = Array.isArray(obj.metadata?.finalizers) ? (obj.metadata.finalizers as string[]) : [];
  return [...own, ...(s.type.strategy.pendingFinalizers?.(obj) ?? [])];
}

export function tracksGeneration(s: StoreContext, obj: ApiObject): boolean {
  return s.type.strategy.tracksGeneration ?? 'spec' in obj;
}

export function staleConflict(s: StoreContext, name: string) {
  return conflict(s.target(name), 'the object has been modified; please apply your changes to the latest version and try again');
}

/** True when a patch does not itself set metadata.resourceVersion (so it may be re-applied to a newer object). */
export function patchRVUnset(patch: unknown, patchType: string): boolean {
  if (patchType === MERGE_PATCH) return !(isObject(patch) && isObject(patch.metadata) && 'resourceVersion' in patch.metadata);
  return !(Array.isArray(patch) && patch.some((op) => isObject(op) && typeof op.path === 'string' && op.path.startsWith('/metadata/resourceVersion')));
}
