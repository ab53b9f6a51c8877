import { Cacher } from '../cacher/index.js';
import type { Backend } from '../storage/index.js';
import { labelsOfStored } from './codec.js';
import { collectionPrefix } from './keys.js';
import { listObjects } from './list-watch.js';
import { ResourceReader } from './reader.js';
import { GenericStore } from './store.js';
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
  /** The ConsistentListFromCache feature gate (default on): false sends lists without resourceVersion to storage. */
  consistentListFromCache?: boolean;
}

export class Registry {
  private readonly stores: GenericStore[] = [];
  private readonly byPlural = new Map<string, GenericStore[]>();
  private readonly cachers = new Map<string, Cacher>();
  /** Per registered type object (found per request without building a key). */
  private readonly readers = new Map<ResourceType, ResourceReader>();
  readonly types: ResourceType[];

  constructor(readonly backend: Backend, types: ResourceType[], private readonly opts: RegistryOptions = {}) {
    this.types = types;
    const deps = { backend };
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
      r = new ResourceReader(type, this.backend, cacher, { waitMs: this.opts.cacheWaitMs ?? 3000, consistentListFromCache: this.opts.consistentListFromCache !== false });
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
