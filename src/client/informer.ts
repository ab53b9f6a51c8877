/**
 * Shared informers: one list-watch per resource feeding a cache and any number of handlers, so many
 * controllers watching one resource cost one watch. Idle informers do nothing: no polling, and a resync
 * timer only when a period is asked for.
 */
import { ListWatcher, type ListWatchOptions } from './list-watcher.js';
import type { ResourceClient } from './resource.js';
import { Store, type IndexFunc } from './store.js';
import { objectKey, type GroupVersionResource, type KubeObject, type WatchEvent } from './types.js';

export interface DeleteInfo {
  /** True when the deletion was inferred from a relist: `obj` is the last state this cache saw. */
  finalStateUnknown: boolean;
}

export interface EventHandlers<T> {
  /** `initialList`: the object came with a list (first sync or relist), not a watch event. */
  onAdd?(obj: T, initialList: boolean): void;
  onUpdate?(old: T, obj: T): void;
  onDelete?(obj: T, info: DeleteInfo): void;
}

export interface InformerOptions<T> extends ListWatchOptions {
  indexers?: Record<string, IndexFunc<T>>;
  /** Re-deliver every cached object to onUpdate this often; 0 or absent = never. */
  resyncPeriodMs?: number;
  /**
   * Applied to every listed or watched object before it reaches the cache and the handlers (the
   * reference's informer transform), e.g. `stripManagedFields` to keep caches small.
   */
  transform?: (obj: T) => T;
}

/** A transform that drops `metadata.managedFields`, which controllers never read (the reference's controller manager strips them too). */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata?.managedFields !== undefined) delete obj.metadata.managedFields;
  return obj;
}

export class SharedInformer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  private readonly handlers = new Set<EventHandlers<T>>();
  private readonly lw: ListWatcher<T>;
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  private resync: NodeJS.Timeout | undefined;

  constructor(readonly resource: ResourceClient<T>, private readonly opts: InformerOptions<T> = {}) {
    if (opts.resyncPeriodMs !== undefined && opts.resyncPeriodMs < 0) throw new Error('informer: resyncPeriodMs must be >= 0');
    this.store = new Store<T>(opts.indexers);
    this.lw = new ListWatcher<T>(resource, { onReplace: (items) => this.onReplace(items), onEvent: (e) => this.onEvent(e) }, opts);
  }

  /**
   * Registers handlers; returns the function that removes them. Added after the first sync, they get
   * onAdd for every cached object first, as if they had been there from the start.
   */
  addEventHandler(h: EventHandlers<T>): () => void {
    this.handlers.add(h);
    if (this.synced) for (const obj of this.store.list()) h.onAdd?.(obj, true);
    return () => this.handlers.delete(h);
  }

  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    this.store.addIndexers(indexers);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list is in the cache; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Starts list-watch (once); runs until `stop` or until `signal` aborts. */
  start(signal?: AbortSignal): void {
    if (this.running) return;
    this.abort = new AbortController();
    signal?.addEventListener('abort', () => this.stop(), { once: true });
    this.running = this.lw.run(this.abort.signal);
    if (this.opts.resyncPeriodMs) {
      this.resync = setInterval(() => this.resyncAll(), this.opts.resyncPeriodMs);
    }
  }

  /** Stops watching; resolves when the loop has ended. A later `start` resumes from the cache's resourceVersion. */
  async stop(): Promise<void> {
    this.abort?.abort();
    if (this.resync) clearInterval(this.resync);
    this.resync = undefined;
    await this.running;
    this.running = undefined;
  }

  /** Lists done so far (1 after the first sync; more after relists on 410). */
  get lists(): number {
    return this.lw.lists;
  }

  get lastResourceVersion(): string {
    return this.lw.resourceVersion;
  }

  private onReplace(items: T[]): void {
    const transform = this.opts.transform;
    if (transform) items = items.map(transform);
    const { added, updated, removed } = this.store.replace(items);
    for (const h of this.handlers) {
      for (const obj of added) h.onAdd?.(obj, true);
      for (const u of updated) h.onUpdate?.(u.old, u.obj);
      for (const obj of removed) h.onDelete?.(obj, { finalStateUnknown: true });
    }
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private onEvent(e: WatchEvent<T>): void {
    const obj = this.opts.transform && e.type !== 'BOOKMARK' ? this.opts.transform(e.object) : e.object;
    if (e.type === 'DELETED') {
      this.store.remove(objectKey(obj));
      for (const h of this.handlers) h.onDelete?.(obj, { finalStateUnknown: false });
      return;
    }
    const old = this.store.upsert(obj);
    for (const h of this.handlers) {
      if (old) h.onUpdate?.(old, obj);
      else h.onAdd?.(obj, false);
    }
  }

  private resyncAll(): void {
    for (const obj of this.store.list()) for (const h of this.handlers) h.onUpdate?.(obj, obj);
  }
}

/** A resource client source: the factory does not depend on how clients are built. */
export interface ResourceSource {
  resource<T extends KubeObject>(gvr: GroupVersionResource, namespace?: string): ResourceClient<T>;
}

export interface InformerKey {
  gvr: GroupVersionResource;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** A metadata informer: its cache holds PartialObjectMetadata (the reference's metadata informers). */
  metadataOnly?: boolean;
}

/** One informer per resource (and namespace and selectors) shared by every controller that asks. */
export class InformerFactory {
  private readonly informers = new Map<string, SharedInformer<KubeObject>>();
  private signal: AbortSignal | undefined;

  constructor(private readonly client: ResourceSource, private readonly defaults: Omit<InformerOptions<KubeObject>, 'indexers' | 'labelSelector' | 'fieldSelector'> = {}) {}

  informerFor<T extends KubeObject = KubeObject>(key: InformerKey): SharedInformer<T> {
    const id = [key.gvr.group, key.gvr.version, key.gvr.plural, key.namespace ?? '', key.labelSelector ?? '', key.fieldSelector ?? '', key.metadataOnly ? 'meta' : ''].join('|');
    let inf = this.informers.get(id);
    if (!inf) {
      const resource = this.client.resource(key.gvr, key.namespace);
      inf = new SharedInformer(key.metadataOnly ? resource.metadata() : resource, { ...this.defaults, labelSelector: key.labelSelector, fieldSelector: key.fieldSelector });
      this.informers.set(id, inf);
      // Asked for after start: runs at once, like the ones before.
      if (this.signal && !this.signal.aborted) inf.start(this.signal);
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** Starts every informer made so far and every one made later, until `signal` aborts. */
  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const inf of this.informers.values()) inf.start(signal);
  }

  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }
}
