import type { ApiObject } from '../api/types.js';
import { alreadyExists } from '../errors/index.js';
import { isStorageError, type KeyValue } from '../storage/index.js';
import { generateName, initCreateMeta, metaOf } from './object-meta.js';
import { fromStorageError } from './storage-errors.js';
import { validateObjectMeta } from './validation/index.js';
import { decodeKV } from './codec.js';
import { MAX_RETRIES, type StoreContext, type StoreWriteOptions } from './store-options.js';
import { admitted, checkBody, checkFieldsOf, decodeAsync, encodeBounded, encodeBoundedAsync, recordManager, tracksGeneration, validateOrThrow } from './store-steps.js';

/** Create, answering with the object as stored. */
export async function createObject(s: StoreContext, namespace: string | undefined, body: unknown, opts: StoreWriteOptions): Promise<ApiObject> {
  const created = await createStored(s, namespace, body, opts);
  if ('object' in created) return created.object;
  return s.type.asyncConversion ? decodeAsync(s, created.kv) : decodeKV(s.type, created.kv);
}

/**
 * Create, answering with what storage holds (the response is then the stored bytes, encoded once), or
 * with the object itself for a dry run, which stores nothing.
 */
export async function createStored(
  s: StoreContext,
  namespace: string | undefined,
  body: unknown,
  opts: StoreWriteOptions,
): Promise<{ kv: KeyValue } | { object: ApiObject }> {
  let obj = checkFieldsOf(checkBody(s, body, namespace, opts.bodyOwned), opts);
  let meta = metaOf(obj);
  const t = s.type;
  const generated = !meta.name && typeof meta.generateName === 'string' && meta.generateName !== '';
  if (generated) meta.name = generateName(meta.generateName as string);
  initCreateMeta(obj, tracksGeneration(s, obj), s.deps.clock);
  t.strategy.prepareForCreate?.(obj, opts.user ? { user: opts.user } : undefined);
  if (opts.admission) {
    // Each await costs a turn of the microtask queue, so only what is pending is awaited.
    const mutated = opts.admission.mutate('CREATE', obj, undefined, generated ? '' : (meta.name as string));
    obj = admitted(s, mutated instanceof Promise ? await mutated : mutated, obj);
    meta = metaOf(obj);
    t.strategy.afterCreateAdmission?.(obj);
  }
  recordManager(s, obj, undefined, opts);
  validateOrThrow(s, obj, [
    ...validateObjectMeta(meta, { namespaced: t.namespaced, nameRule: t.strategy.nameRule }),
    ...t.strategy.validate(obj),
  ]);
  const validated = opts.admission?.validate();
  if (validated) await validated;
  const reservation = t.allocations ? await t.allocations.reserve(s.deps.backend, obj, undefined, opts.dryRun === true) : undefined;
  if (opts.dryRun) return { object: obj };
  for (let attempt = 0; ; attempt++) {
    try {
      const bytes = t.asyncConversion ? await encodeBoundedAsync(s, obj) : encodeBounded(s, obj);
      const kv = await s.deps.backend.create(s.key(meta.namespace, meta.name as string), bytes);
      if (reservation) await reservation.commit();
      return { kv };
    } catch (e) {
      // What was reserved for the object is given back unless a generated name is drawn again.
      if (!(isStorageError(e, 'KeyExists') && generated && attempt < MAX_RETRIES)) await reservation?.revert();
      if (!isStorageError(e, 'KeyExists')) fromStorageError(e);
      // A generated name that collides is drawn again; a chosen name is the client's conflict.
      if (!generated || attempt >= MAX_RETRIES) throw alreadyExists(s.target(meta.name));
      meta.name = generateName(meta.generateName as string);
    }
  }
}
