import type { ApiObject } from '../api/types.js';
import { badRequest, clip, fieldError, invalid, notFound } from '../errors/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, cloneJson, JSON_PATCH, jsonEqual, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch/index.js';
import { isStorageError, type KeyValue } from '../storage/index.js';
import { decodeKV } from './codec.js';
import { keepServerMeta, metaOf } from './object-meta.js';
import { fromStorageError } from './storage-errors.js';
import { validateObjectMetaUpdate } from './validation/index.js';
import { MAX_RETRIES, type StoreContext, type StoreWriteOptions, type WriteOptions } from './store-options.js';
import { createObject } from './store-create.js';
import {
  admitted,
  checkBody,
  checkFieldsOf,
  decodeAsync,
  encodeBounded,
  encodeBoundedAsync,
  patchRVUnset,
  pendingFinalizers,
  recordManager,
  staleConflict,
  tracksGeneration,
  validateOrThrow,
} from './store-steps.js';

/** PUT: replaces the object (or its status), creating it where the type allows (spec 4.1). */
export async function updateObject(
  s: StoreContext,
  namespace: string | undefined,
  name: string,
  body: unknown,
  opts: WriteOptions,
): Promise<{ object: ApiObject; created: boolean }> {
  const obj = checkFieldsOf(checkBody(s, body, namespace), opts);
  const meta = metaOf(obj);
  if (meta.name === undefined || meta.name === '') meta.name = name;
  if (meta.name !== name) {
    throw badRequest(`the name of the object (${clip(String(meta.name))}) does not match the name on the URL (${clip(name)})`);
  }
  const wantRV = meta.resourceVersion;
  for (let attempt = 0; ; attempt++) {
    const cur = await s.deps.backend.get(s.key(namespace, name)).catch(fromStorageError);
    if (!cur) {
      if (!s.type.strategy.allowCreateOnUpdate || opts.subresource) throw notFound(s.target(name));
      if (wantRV !== undefined && wantRV !== '') throw notFound(s.target(name));
      try {
        return { object: await createObject(s, namespace, obj, opts), created: true };
      } catch (e) {
        // Someone else created it in between: retry as an update.
        if (attempt < MAX_RETRIES && (e as { reason?: string }).reason === 'AlreadyExists') continue;
        throw e;
      }
    }
    if (wantRV === undefined || wantRV === '') {
      if (!s.type.strategy.allowUnconditionalUpdate) {
        throw invalid(s.target(name), [fieldError.invalid('metadata.resourceVersion', 0, 'must be specified for an update')]);
      }
    } else if (wantRV !== String(cur.modRevision)) {
      throw staleConflict(s, name);
    }
    try {
      return { object: await replaceObject(s, cur, cloneJson(obj) as ApiObject, opts), created: false };
    } catch (e) {
      // Only an unconditional update may retry on a concurrent write; a conditional one reports it.
      if (isStorageError(e, 'Conflict') && (wantRV === undefined || wantRV === '') && attempt < MAX_RETRIES) continue;
      if (isStorageError(e, 'Conflict')) throw staleConflict(s, name);
      if (isStorageError(e, 'NotFound')) throw notFound(s.target(name));
      throw e;
    }
  }
}

/** PATCH with a JSON patch (RFC 6902) or a merge patch (RFC 7386), applied to the latest object. */
export async function patchObject(
  s: StoreContext,
  namespace: string | undefined,
  name: string,
  patchType: string,
  patch: unknown,
  opts: WriteOptions,
): Promise<ApiObject> {
  for (let attempt = 0; ; attempt++) {
    const cur = await s.deps.backend.get(s.key(namespace, name)).catch(fromStorageError);
    if (!cur) throw notFound(s.target(name));
    const old = s.type.asyncConversion ? await decodeAsync(s, cur) : decodeKV(s.type, cur);
    let patched: unknown;
    if (patchType === JSON_PATCH) patched = applyJsonPatch(old, patch);
    else if (patchType === MERGE_PATCH) patched = applyMergePatch(old, patch);
    else if (patchType === STRATEGIC_MERGE_PATCH) patched = applyStrategicMergePatch(old, patch, s.type.schema);
    else throw badRequest(`unsupported patch type ${patchType}`);
    const obj = checkFieldsOf(checkBody(s, patched, namespace), opts);
    const meta = metaOf(obj);
    if (meta.name !== name) throw invalid(s.target(name), [fieldError.invalid('metadata.name', meta.name, 'field is immutable')]);
    // A resourceVersion in the patch is a precondition; otherwise the patch applies to what we just read.
    const rvInPatch = meta.resourceVersion;
    if (rvInPatch !== undefined && rvInPatch !== String(cur.modRevision)) throw staleConflict(s, name);
    try {
      // A converted old object is handed on (as a copy: patching may share parts of it), not converted again.
      return await replaceObject(s, cur, obj, opts, s.type.asyncConversion ? (cloneJson(old) as ApiObject) : undefined);
    } catch (e) {
      if (isStorageError(e, 'Conflict') && rvInPatch === old.metadata?.resourceVersion && patchRVUnset(patch, patchType) && attempt < MAX_RETRIES) continue;
      if (isStorageError(e, 'Conflict')) throw staleConflict(s, name);
      if (isStorageError(e, 'NotFound')) throw notFound(s.target(name));
      throw e;
    }
  }
}

/** The common tail of update, patch and apply: prepare, validate, and compare-and-swap against `cur`. */
export async function replaceObject(s: StoreContext, cur: KeyValue, obj: ApiObject, opts: StoreWriteOptions, converted?: ApiObject): Promise<ApiObject> {
  const t = s.type;
  const old = converted ?? (t.asyncConversion ? await decodeAsync(s, cur) : decodeKV(t, cur));
  keepServerMeta(obj, old);
  const custom = opts.subresource ? t.strategy.subresourceWrites?.[opts.subresource] : undefined;
  if (custom) {
    custom.prepare(obj, old);
  } else if (opts.subresource === 'status') {
    t.strategy.prepareForStatusUpdate?.(obj, old);
  } else if (opts.subresource === 'finalize') {
    t.strategy.prepareForFinalizeUpdate?.(obj, old);
  } else {
    t.strategy.prepareForUpdate?.(obj, old);
  }
  if (opts.admission) {
    const mutated = opts.admission.mutate('UPDATE', obj, old, metaOf(obj).name as string);
    obj = admitted(s, mutated instanceof Promise ? await mutated : mutated, obj);
  }
  // After admission, so that a mutating plugin's change to the spec counts as one.
  const plainUpdate = !custom && opts.subresource !== 'status' && opts.subresource !== 'finalize';
  const changed = t.strategy.generationChanged ? t.strategy.generationChanged(obj, old) : tracksGeneration(s, obj) && !jsonEqual(obj.spec, old.spec);
  if (plainUpdate && changed) {
    metaOf(obj).generation = (typeof old.metadata?.generation === 'number' ? old.metadata.generation : 0) + 1;
  }
  if (!opts.applied) recordManager(s, obj, old, opts);
  validateOrThrow(s, obj, [
    ...validateObjectMetaUpdate(obj.metadata, old.metadata),
    ...t.strategy.validate(obj),
    ...(custom?.validateUpdate ? custom.validateUpdate(obj, old) : (t.strategy.validateUpdate?.(obj, old) ?? [])),
  ]);
  const validated = opts.admission?.validate();
  if (validated) await validated;
  metaOf(obj).resourceVersion = old.metadata?.resourceVersion as string;
  // An update that changes nothing is not written: same resourceVersion, no watch event. Unless the value
  // was read with an older encryption key (stale): writing it again re-encrypts it with the current one.
  if (jsonEqual(obj, old) && !cur.stale) return old;
  const reservation = t.allocations ? await t.allocations.reserve(s.deps.backend, obj, old, opts.dryRun === true) : undefined;
  if (opts.dryRun) return obj;
  try {
    if (obj.metadata?.deletionTimestamp && pendingFinalizers(s, obj).length === 0) {
      // The last finalizer is gone: the object leaves storage (spec 3.1).
      await s.deps.backend.delete(cur.key, cur.modRevision);
      await reservation?.revert();
      await t.allocations?.release(s.deps.backend, old);
      return obj;
    }
    const bytes = t.asyncConversion ? await encodeBoundedAsync(s, obj) : encodeBounded(s, obj);
    const kv = await s.deps.backend.update(cur.key, bytes, cur.modRevision);
    if (reservation) await reservation.commit();
    return t.asyncConversion ? await decodeAsync(s, kv) : decodeKV(t, kv);
  } catch (e) {
    await reservation?.revert();
    throw e;
  }
}
