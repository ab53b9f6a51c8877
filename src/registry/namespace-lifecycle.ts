import type { ApiObject } from '../api/types.js';
import { NAMESPACE_FINALIZER } from '../api/naming.js';
import { isStorageError } from '../storage/index.js';
import { decodeKV, encodeForStorage } from './codec.js';
import { collectionPrefix } from './keys.js';
import { listObjects } from './list-watch.js';
import type { Registry } from './registry.js';

const RETRY_MS = 1000;

/**
 * Namespace deletion (spec 3.1, last line): a terminating namespace has everything in it deleted (any
 * resource type, finalizers honoured), then its own finalizer is removed and it leaves storage.
 * It is driven by the storage change feed of namespaces, so a namespace deleted through another server on the
 * same store is finalized too; the work is idempotent, so two servers doing it at once is harmless.
 */
export class NamespaceLifecycle {
  private readonly ac = new AbortController();
  private readonly busy = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly registry: Registry) {}

  async start(): Promise<void> {
    const ns = this.registry.namespaces;
    const initial = await listObjects(ns.type, this.registry.backend, undefined, {});
    for (const obj of initial.items) this.consider(obj);
    void this.follow(Number(initial.resourceVersion));
  }

  stop(): void {
    this.ac.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private async follow(from: number): Promise<void> {
    const ns = this.registry.namespaces;
    const prefix = collectionPrefix(ns.type.storageKey);
    while (!this.ac.signal.aborted) {
      try {
        for await (const e of this.registry.backend.watch(prefix, from, this.ac.signal)) {
          from = e.revision;
          if (e.type === 'PUT') this.consider(decodeKV(ns.type, e.kv));
        }
        return;
      } catch (err) {
        if (this.ac.signal.aborted) return;
        // History lost or storage hiccup: resynchronize from a fresh list.
        if (isStorageError(err, 'Compacted') || isStorageError(err)) {
          await new Promise((r) => setTimeout(r, RETRY_MS).unref());
          try {
            const l = await listObjects(ns.type, this.registry.backend, undefined, {});
            for (const obj of l.items) this.consider(obj);
            from = Number(l.resourceVersion);
          } catch {
            /* retried on the next loop */
          }
        }
      }
    }
  }

  private consider(obj: ApiObject): void {
    const name = obj.metadata?.name;
    if (!name || !obj.metadata?.deletionTimestamp || this.busy.has(name)) return;
    this.busy.add(name);
    void this.finalize(name).finally(() => this.busy.delete(name));
  }

  /** Deletes the namespace's contents; when nothing is left, removes the namespace finalizer. */
  private async finalize(name: string): Promise<void> {
    if (this.ac.signal.aborted) return;
    try {
      let remaining = 0;
      for (const store of this.registry.storageOwners()) {
        if (!store.type.namespaced) continue;
        const { items } = await listObjects(store.type, this.registry.backend, name, {});
        for (const item of items) {
          remaining++;
          if (item.metadata?.deletionTimestamp) continue; // waiting for its own finalizers
          await store.delete(name, item.metadata?.name as string).catch((e: { code?: number }) => {
            if (e.code !== 404) throw e;
          });
        }
      }
      if (remaining > 0 && (await this.registry.namespaceContents(name)) > 0) return this.retry(name);
      await this.removeFinalizer(name);
    } catch {
      this.retry(name);
    }
  }

  private async removeFinalizer(name: string): Promise<void> {
    const ns = this.registry.namespaces;
    const backend = this.registry.backend;
    for (;;) {
      const kv = await backend.get(ns.key(undefined, name));
      if (!kv) return;
      const obj = decodeKV(ns.type, kv);
      const spec = (obj.spec ?? {}) as { finalizers?: string[] };
      spec.finalizers = (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
      obj.spec = spec;
      try {
        if (ns.pendingFinalizers(obj).length === 0) await backend.delete(kv.key, kv.modRevision);
        else await backend.update(kv.key, encodeForStorage(ns.type, obj), kv.modRevision);
        return;
      } catch (e) {
        if (!isStorageError(e, 'Conflict')) throw e;
      }
    }
  }

  private retry(name: string): void {
    if (this.ac.signal.aborted) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.busy.add(name);
      void this.finalize(name).finally(() => this.busy.delete(name));
    }, RETRY_MS);
    t.unref();
    this.timers.add(t);
  }
}
