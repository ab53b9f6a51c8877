import type { ApiObject } from '../api/types.js';
import { conflict, notFound } from '../errors/index.js';
import { cloneJson } from '../patch/index.js';
import { isStorageError } from '../storage/index.js';
import { decodeKV, encodeConverted, encodeForStorage } from './codec.js';
import { metaOf, nowTimestamp } from './object-meta.js';
import { fromStorageError } from './storage-errors.js';
import { checkPropagation, defaultPolicyOf, finalizersAfterDelete } from './deletion-propagation.js';
import { MAX_RETRIES, type DeleteOptions, type StoreContext } from './store-options.js';
import { decodeAsync, pendingFinalizers } from './store-steps.js';

/**
 * Deletion per spec 3.1: with finalizers pending, the first delete only sets deletionTimestamp; otherwise
 * the object is removed at once. Returns the object as it was (or as it now is, when terminating).
 */
export async function deleteObject(
  s: StoreContext,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
): Promise<{ object: ApiObject; removed: boolean }> {
  checkPropagation(opts);
  const t = s.type;
  const typeDefault = defaultPolicyOf(t.group, t.version, t.plural);
  for (let attempt = 0; ; attempt++) {
    const cur = await s.deps.backend.get(s.key(namespace, name)).catch(fromStorageError);
    if (!cur) throw notFound(s.target(name));
    const old = t.asyncConversion ? await decodeAsync(s, cur) : decodeKV(t, cur);
    const p = opts.preconditions;
    if (p?.uid && p.uid !== old.metadata?.uid) {
      throw conflict(s.target(name), `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata?.uid ?? ''}`);
    }
    if (p?.resourceVersion && p.resourceVersion !== old.metadata?.resourceVersion) {
      throw conflict(s.target(name), `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata?.resourceVersion ?? ''}`);
    }
    if (opts.admission) {
      // A delete is admitted with the stored object as oldObject and no new object.
      const mutated = opts.admission.mutate('DELETE', undefined, old, name);
      if (mutated instanceof Promise) await mutated;
      const validated = opts.admission.validate();
      if (validated) await validated;
    }
    try {
      // The propagation policy becomes finalizers for the garbage collector (spec 3.1).
      const own = Array.isArray(old.metadata?.finalizers) ? (old.metadata.finalizers as string[]) : [];
      const finalizers = finalizersAfterDelete(own, opts, typeDefault);
      const changed = finalizers !== own;
      const decided = changed ? ({ ...old, metadata: { ...old.metadata, finalizers: [...finalizers] } } as ApiObject) : old;
      if (pendingFinalizers(s, decided).length > 0) {
        if (old.metadata?.deletionTimestamp && !changed) return { object: old, removed: false };
        const next = cloneJson(decided) as ApiObject;
        // A second delete may switch the policy's finalizers; the first deletion time stays.
        if (!old.metadata?.deletionTimestamp) {
          metaOf(next).deletionTimestamp = nowTimestamp(s.deps.clock);
          metaOf(next).deletionGracePeriodSeconds = 0;
          t.strategy.prepareForTerminating?.(next);
        }
        if (opts.dryRun) return { object: next, removed: false };
        const bytes = t.asyncConversion ? await encodeConverted(t, next) : encodeForStorage(t, next);
        const kv = await s.deps.backend.update(cur.key, bytes, cur.modRevision);
        return { object: t.asyncConversion ? await decodeAsync(s, kv) : decodeKV(t, kv), removed: false };
      }
      if (opts.dryRun) return { object: old, removed: true };
      await s.deps.backend.delete(cur.key, cur.modRevision);
      if (t.allocations) await t.allocations.release(s.deps.backend, old);
      return { object: old, removed: true };
    } catch (e) {
      if ((isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound')) && attempt < MAX_RETRIES) continue;
      return fromStorageError(e);
    }
  }
}
