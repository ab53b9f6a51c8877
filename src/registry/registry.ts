import { Cacher } from '../cacher/index.js';
import type { Clock } from '../util/clock.js';
import { notFoundMessage } from '../errors/index.js';
import type { Backend } from '../storage/index.js';
import { labelsOfStored } from './codec.js';
import { collectionPrefix } from './keys.js';
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
  /** Object timestamps follow it (a test server's controllable clock; default the system clock). */
  clock?: Clock;
}

/** What one change of the served types added and removed (listeners rebuild discovery, OpenAPI, ...). */
export interface TypesChange {
  added: readonly ResourceType[];
  removed: readonly ResourceType[];
}

const gvrKey = (group: string, version: string, plural: string) => `${group}/${version}/${plural}`;

/** Adds `v` to the list under `k`. */
function pushTo<V>(m: Map<string, V[]>, k: string, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Removes `v` from the list under `k` (and the key when it empties). */
function dropFrom<V>(m: Map<string, V[]>, k: string, v: V): void {
  const list = m.get(k);
  if (!list) return;
  const rest = list.filter((x) => x !== v);
  if (rest.length > 0) m.set(k, rest);
  else m.delete(k);
}

export class Registry {
  private stores: GenericStore[] = [];
  /** Per request lookups, by `group/version/plural`: O(1) however many custom types are served. */
  private readonly byGvr = new Map<string, GenericStore>();
  private readonly byPlural = new Map<string, GenericStore[]>();
  /** Types by `group/plural` (every version), by storage identity and by `group/version/kind`. */
  private readonly byResource = new Map<string, ResourceType[]>();
  private readonly byStorage = new Map<string, ResourceType[]>();
  private readonly byKind = new Map<string, ResourceType[]>();
  private readonly cachers = new Map<string, Cacher>();
  /** Per registered type object (found per request without building a key). */
  private readonly readers = new Map<ResourceType, ResourceReader>();
  private readonly listeners = new Set<(change: TypesChange) => void>();
  private current: ResourceType[] = [];

  constructor(readonly backend: Backend, types: ResourceType[], private readonly opts: RegistryOptions = {}) {
    for (const t of types) this.register(t);
    this.current = [...types];
  }

  /** The served types, in registration order; a new array after each change (callers may keep a snapshot). */
  get types(): ResourceType[] {
    return this.current;
  }

  /**
   * Changes the served types at run time (custom resources): added types are served at once; a removed
   * type's store and reader go, and its watch cache stops (ending its watches) unless another served view
   * shares the storage. Listeners run after both steps, so one change that replaces a type keeps its cache.
   */
  changeTypes(change: { add?: readonly ResourceType[]; remove?: readonly ResourceType[] }): void {
    const add = (change.add ?? []).filter((t) => this.byGvr.get(gvrKey(t.group, t.version, t.plural))?.type !== t);
    const remove = (change.remove ?? []).filter((t) => this.byGvr.get(gvrKey(t.group, t.version, t.plural))?.type === t);
    if (add.length === 0 && remove.length === 0) return;
    for (const t of remove) this.unregister(t);
    for (const t of add) {
      const clash = this.byGvr.get(gvrKey(t.group, t.version, t.plural));
      if (clash) this.unregister(clash.type);
      this.register(t);
    }
    const gone = new Set(remove);
    this.current = [...this.current.filter((t) => !gone.has(t) && this.byGvr.get(gvrKey(t.group, t.version, t.plural))?.type === t), ...add];
    // A storage no served view reads any more: its cache stops, which ends its open watches.
    for (const t of remove) {
      if (this.byStorage.has(t.storageKey)) continue;
      this.cachers.get(t.storageKey)?.stop();
      this.cachers.delete(t.storageKey);
    }
    const event: TypesChange = { added: add, removed: remove };
    for (const l of this.listeners) l(event);
  }

  addTypes(types: readonly ResourceType[]): void {
    this.changeTypes({ add: types });
  }

  removeTypes(types: readonly ResourceType[]): void {
    this.changeTypes({ remove: types });
  }

  /** Calls `fn` after every change of the served types. Returns the function that stops it. */
  onTypesChange(fn: (change: TypesChange) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The served type at a group/version/plural. */
  typeAt(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byGvr.get(gvrKey(group, version, plural))?.type;
  }

  /** Every served version of a group's resource, in registration order. */
  typesOf(group: string, plural: string): readonly ResourceType[] {
    return this.byResource.get(`${group}/${plural}`) ?? [];
  }

  /** Every served view of one storage. */
  typesOfStorage(storageKey: string): readonly ResourceType[] {
    return this.byStorage.get(storageKey) ?? [];
  }

  /** The types serving a group/version/kind (usually one). */
  typesOfKind(group: string, version: string, kind: string): readonly ResourceType[] {
    return this.byKind.get(gvrKey(group, version, kind)) ?? [];
  }

  private register(t: ResourceType): void {
    const store = new GenericStore(t, { backend: this.backend, ...(this.opts.clock ? { clock: this.opts.clock } : {}) });
    this.stores.push(store);
    this.byGvr.set(gvrKey(t.group, t.version, t.plural), store);
    pushTo(this.byPlural, t.plural, store);
    pushTo(this.byResource, `${t.group}/${t.plural}`, t);
    pushTo(this.byStorage, t.storageKey, t);
    pushTo(this.byKind, gvrKey(t.group, t.version, t.kind), t);
  }

  private unregister(t: ResourceType): void {
    const store = this.byGvr.get(gvrKey(t.group, t.version, t.plural));
    this.stores = this.stores.filter((s) => s !== store);
    this.byGvr.delete(gvrKey(t.group, t.version, t.plural));
    if (store) dropFrom(this.byPlural, t.plural, store);
    dropFrom(this.byResource, `${t.group}/${t.plural}`, t);
    dropFrom(this.byStorage, t.storageKey, t);
    dropFrom(this.byKind, gvrKey(t.group, t.version, t.kind), t);
    this.readers.delete(t);
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
      // A request that found a type just before it was removed: its storage is no longer served. (Views
      // that are not registered themselves, like pods/ephemeralcontainers, read their type's storage.)
      if (!this.byStorage.has(type.storageKey)) throw notFoundMessage('the server could not find the requested resource');
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
}
