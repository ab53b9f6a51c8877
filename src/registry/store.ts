import type { ApiObject } from '../api/types.js';
import { notFound, type Target } from '../errors/index.js';
import type { KeyValue } from '../storage/index.js';
import { decodeKV } from './codec.js';
import { itemKey } from './keys.js';
import { fromStorageError, tooLargeRV } from './storage-errors.js';
import type { ResourceType } from './types.js';
import type { DeleteOptions, StoreContext, StoreDeps, StoreWriteOptions, WriteOptions } from './store-options.js';
import { createObject, createStored } from './store-create.js';
import { patchObject, updateObject } from './store-update.js';
import { applyObject, type ApplyOptions } from './store-apply.js';
import { deleteObject } from './store-delete.js';
import { decodeAsync, pendingFinalizers } from './store-steps.js';

export type { WriteOptions, DeleteOptions, StoreAdmission, StoreDeps } from './store-options.js';

/**
 * The generic store: create, get, update, patch and delete for any ResourceType, in one fixed order of
 * steps. Per-type behaviour comes from the type's Strategy; watch events come from storage, never from here.
 * Each operation's steps live in its own file (store-create.ts, store-update.ts, store-apply.ts,
 * store-delete.ts), built from the shared steps of store-steps.ts.
 */
export class GenericStore implements StoreContext {
  constructor(readonly type: ResourceType, readonly deps: StoreDeps) {}

  target(name?: string): Target {
    return { group: this.type.group, kind: this.type.kind, resource: this.type.plural, ...(name !== undefined ? { name } : {}) };
  }

  key(namespace: string | undefined, name: string): string {
    return itemKey(this.type.storageKey, this.type.namespaced ? namespace : undefined, name);
  }

  /** The stored bytes of one object at storage's latest revision; `notOlderThan` past it is a 504 (spec 4.5). */
  async getKV(namespace: string | undefined, name: string, notOlderThan?: number): Promise<KeyValue> {
    if (notOlderThan !== undefined) {
      const current = await this.deps.backend.currentRevision().catch(fromStorageError);
      if (notOlderThan > current) throw tooLargeRV(notOlderThan, current);
    }
    const kv = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
    if (!kv) throw notFound(this.target(name));
    return kv;
  }

  async get(namespace: string | undefined, name: string): Promise<ApiObject> {
    const kv = await this.deps.backend.get(this.key(namespace, name)).catch(fromStorageError);
    if (!kv) throw notFound(this.target(name));
    return this.type.asyncConversion ? decodeAsync(this, kv) : decodeKV(this.type, kv);
  }

  create(namespace: string | undefined, body: unknown, opts: StoreWriteOptions = {}): Promise<ApiObject> {
    return createObject(this, namespace, body, opts);
  }

  /**
   * Create, answering with what storage holds (the response is then the stored bytes, encoded once), or
   * with the object itself for a dry run, which stores nothing.
   */
  createStored(namespace: string | undefined, body: unknown, opts: StoreWriteOptions = {}): Promise<{ kv: KeyValue } | { object: ApiObject }> {
    return createStored(this, namespace, body, opts);
  }

  /** PUT: replaces the object (or its status), creating it where the type allows (spec 4.1). */
  update(namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): Promise<{ object: ApiObject; created: boolean }> {
    return updateObject(this, namespace, name, body, opts);
  }

  /** PATCH with a JSON patch (RFC 6902), a merge patch (RFC 7386) or a strategic merge patch. */
  patch(namespace: string | undefined, name: string, patchType: string, patch: unknown, opts: WriteOptions = {}): Promise<ApiObject> {
    return patchObject(this, namespace, name, patchType, patch, opts);
  }

  /** Deletion per spec 3.1: removes the object, or marks it terminating while finalizers are pending. */
  delete(namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<{ object: ApiObject; removed: boolean }> {
    return deleteObject(this, namespace, name, opts);
  }

  /** Server-side apply (spec 2.4, 4.3), creating the object when it is missing. */
  apply(namespace: string | undefined, name: string, body: unknown, opts: ApplyOptions): Promise<{ object: ApiObject; created: boolean }> {
    return applyObject(this, namespace, name, body, opts);
  }

  /** Finalizers that keep a deleted object in storage (metadata.finalizers, plus type-specific ones). */
  pendingFinalizers(obj: ApiObject): string[] {
    return pendingFinalizers(this, obj);
  }
}
