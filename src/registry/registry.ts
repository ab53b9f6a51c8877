import { Cacher, type CachedItem } from '../cacher/index.js';
import type { Backend } from '../storage/index.js';
import { labelsOfStored } from './codec.js';
import { collectionPrefix } from './keys.js';
import { listObjects } from './list-watch.js';
import { ResourceReader } from './reader.js';
import { GenericStore, type NamespaceState } from './store.js';
import type { ResourceType } from './types.js';

/**
 * All served resource types and their stores, looked up the way URLs name them. Several types may share
 * one storage (e.g. core and events.orch.io Events); they get one store per served view.
 */
export interface RegistryOptions {
  /** How long reads wait for the watch cache to reach a revision (then 504). Default 3 s. */
  cacheWaitMs?: number;
  /** History kept by each watch cache. Default 5 minutes. */
  cacheWindowMs?: number;
  log?(msg: string): void;
  /** The served create-only types (reviews, bindings): nothing is stored for them, their handlers answer. */
  createOnly?: ResourceType[];
}

export class Registry {
  private readonly stores: GenericStore[] = [];
  private readonly byPlural = new Map<string, GenericStore[]>();
  private readonly cachers = new Map<string, Cacher>();
  /** Per registered type object (found per request without building a key). */
  private readonly readers = new Map<ResourceType, ResourceReader>();
  /** Namespace state per cached item (items are replaced, never changed, on update). */
  private readonly nsStates = new WeakMap<object, NamespaceState>();
  readonly types: ResourceType[];

  constructor(readonly backend: Backend, types: ResourceType[], private readonly opts: RegistryOptions = {}) {
    this.types = types;
    const deps = { backend, namespaceState: (ns: string) => this.namespaceState(ns) };
    for (const t of types) {
      const store = new GenericStore(t, deps);
      this.stores.push(store);
      const same = this.byPlural.get(t.plural);
      if (same) same.push(store);
      else this.byPlural.set(t.plural, [store]);
    }
  }

  /** Whether a create-only resource (a review, bindings) is served at this group/version. */
  servesCreateOnly(group: string, version: string, plural: string): boolean {
    return this.createOnly.some((t) => t.group === group && t.version === version && t.plural === plural);
  }

  /** The served create-only types, for discovery and OpenAPI. */
  get createOnly(): readonly ResourceType[] {
    return this.opts.createOnly ?? [];
  }

  store(group: string, version: string, plural: string): GenericStore | undefined {
    // Found per request without joining a key: a plural names one or a few types (views in other groups).
    const candidates = this.byPlural.get(plural);
    if (candidates) for (const s of candidates) if (s.type.group === group && s.type.version === version) return s;
    return undefined;
  }

  /** The cached reader of a type; its watch cache (one per storage, shared by views) starts on first use. */
  reader(type: ResourceType): ResourceReader {
    let r = this.readers.get(type);
    if (!r) {
      let cacher = this.cachers.get(type.storageKey);
      if (!cacher) {
        cacher = new Cacher(this.backend, collectionPrefix(type.storageKey), {
          labelsOf: labelsOfStored,
          ...(this.opts.cacheWindowMs ? { windowMs: this.opts.cacheWindowMs } : {}),
          ...(this.opts.log ? { log: this.opts.log } : {}),
        });
        this.cachers.set(type.storageKey, cacher);
        cacher.start();
      }
      r = new ResourceReader(type, this.backend, cacher, { waitMs: this.opts.cacheWaitMs ?? 3000 });
      this.readers.set(type, r);
    }
    return r;
  }

  /** Starts every watch cache and resolves when all have loaded their first list. */
  async startCaches(): Promise<void> {
    await Promise.all(this.types.map((t) => this.reader(t).cacher.ready));
  }

  stopCaches(): void {
    for (const c of this.cachers.values()) c.stop();
  }

  /** The namespaces store (the core group's `namespaces`). */
  get namespaces(): GenericStore {
    const s = this.store('', 'v1', 'namespaces');
    if (!s) throw new Error('the namespaces type is not registered');
    return s;
  }

  /**
   * Whether a namespace accepts new objects (spec 3.1), checked on every create.
   *
   * A namespace the watch cache holds as active is taken at its word, without asking storage for its
   * revision, as the reference's admission trusts its informer. In one process the cache applies a commit
   * in the same turn that acknowledges it, so a client that saw its namespace delete succeed is refused
   * next; across processes (workers, etcd) the cache trails by the feed's delay, the reference's race too,
   * and the namespace lifecycle removes whatever lands in a terminating namespace. Anything else (missing
   * or terminating in the cache) is confirmed by the consistent cache, else by a storage read, so a
   * namespace created a moment ago elsewhere is found.
   */
  namespaceState(namespace: string): NamespaceState | Promise<NamespaceState> {
    const key = this.namespaces.key(undefined, namespace);
    const reader = this.reader(this.namespaces.type);
    // Answered at once when active (the common case); a cache that has not loaded yet holds nothing.
    const cached = reader.cacher.get(key);
    if (cached && this.cachedState(cached) === 'active') return 'active';
    return this.confirmedNamespaceState(key, reader);
  }

  private async confirmedNamespaceState(key: string, reader: ResourceReader): Promise<NamespaceState> {
    await reader.cacher.ready;
    const cached = reader.cacher.get(key);
    if (cached && this.cachedState(cached) === 'active') return 'active';
    if (await reader.consistent()) {
      const item = reader.cacher.get(key);
      return item ? this.cachedState(item) : 'missing';
    }
    const kv = await this.backend.get(key);
    return kv ? stateOf(kv.value) : 'missing';
  }

  private cachedState(item: CachedItem): NamespaceState {
    let state = this.nsStates.get(item);
    if (!state) this.nsStates.set(item, (state = stateOf(item.value)));
    return state;
  }

  /** One store per storage (the first view registered), for work that must touch every stored object once. */
  storageOwners(): GenericStore[] {
    const seen = new Set<string>();
    const out: GenericStore[] = [];
    for (const s of this.stores) {
      if (seen.has(s.type.storageKey)) continue;
      seen.add(s.type.storageKey);
      out.push(s);
    }
    return out;
  }

  /** Counts what is left in a namespace (used by the namespace lifecycle). */
  async namespaceContents(namespace: string): Promise<number> {
    let n = 0;
    for (const s of this.storageOwners()) {
      if (!s.type.namespaced) continue;
      n += (await listObjects(s.type, this.backend, namespace, {})).items.length;
    }
    return n;
  }
}

function stateOf(value: Uint8Array): NamespaceState {
  const ns = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as { metadata?: { deletionTimestamp?: string } };
  return ns.metadata?.deletionTimestamp ? 'terminating' : 'active';
}
