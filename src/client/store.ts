/**
 * The informer's cache: objects by `namespace/name` key, with indexes kept up to date on every change.
 * Single-threaded (one event loop), so no locks; callers must treat returned objects as read-only.
 */
import { objectKey, type KubeObject } from './types.js';

/** The index values an object is filed under (several allowed, none = not indexed). */
export type IndexFunc<T> = (obj: T) => string[];

export const NAMESPACE_INDEX = 'namespace';
const byNamespace: IndexFunc<KubeObject> = (o) => [o.metadata.namespace ?? ''];

export interface ReplaceResult<T> {
  added: T[];
  updated: { old: T; obj: T }[];
  removed: T[];
}

export class Store<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name -> value -> keys */
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    this.addIndexers({ [NAMESPACE_INDEX]: byNamespace as IndexFunc<T>, ...indexers });
  }

  /** Adds indexes (existing items are filed at once); a name already in use is an error. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`store: index ${JSON.stringify(name)} already exists`);
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indexes.set(name, index);
      for (const [key, obj] of this.items) file(index, fn(obj), key);
    }
  }

  get size(): number {
    return this.items.size;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  /** The objects filed under `value` in index `name`. */
  byIndex(name: string, value: string): T[] {
    const index = this.indexes.get(name);
    if (!index) throw new Error(`store: no index named ${JSON.stringify(name)}`);
    const keys = index.get(value);
    return keys ? [...keys].map((k) => this.items.get(k) as T) : [];
  }

  /** Stores `obj`; returns the object it replaced. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) file(this.indexes.get(name) as Map<string, Set<string>>, fn(obj), key);
    return old;
  }

  /** Removes the key; returns the last object stored under it. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /** Makes the store hold exactly `items`; says what changed (updates only where resourceVersion moved). */
  replace(items: T[]): ReplaceResult<T> {
    const result: ReplaceResult<T> = { added: [], updated: [], removed: [] };
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.upsert(obj);
      if (!old) result.added.push(obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) result.updated.push({ old, obj });
    }
    for (const key of [...this.items.keys()]) if (!seen.has(key)) result.removed.push(this.remove(key) as T);
    return result;
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name) as Map<string, Set<string>>;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

function file(index: Map<string, Set<string>>, values: string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (!keys) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}
