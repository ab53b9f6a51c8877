import type { Backend, KeyValue } from '../storage/index.js';
import { isStorageError, type StorageError } from '../storage/index.js';
import { EventWindow } from './event-window.js';
import { ValueSlab } from './value-slab.js';
import type { CacheEvent, CachedItem } from './types.js';

export interface CacherOptions {
  /** History kept for watches that resume (spec 8: 5 minutes). */
  windowMs?: number;
  /** At most this many events in the window. */
  maxEvents?: number;
  /** Extracts labels from a stored value once, when it enters the cache. */
  labelsOf(value: Uint8Array): Record<string, string> | undefined;
  log?(msg: string): void;
}

type Listener = (event: CacheEvent) => void;

/**
 * The watch cache of one resource type (architecture rules 1-3): the current objects under `prefix` and a
 * window of recent events, fed only by the storage change feed. Lists and watches are answered from here.
 *
 * Freshness: `revision` is the store revision up to which every change under the prefix has been applied.
 * It moves with each event and with the backend's progress notifications, so a consistent read can compare
 * it with the backend's current revision and wait until the cache has caught up.
 */
export class Cacher {
  revision = 0;
  private items = new Map<string, CachedItem>();
  /** Keys of items whose value could not be read back (see CachedItem.unreadable). */
  private unreadable = new Set<string>();
  /** Where small values are copied to (see ValueSlab). */
  private readonly slab = new ValueSlab();
  private sorted: string[] | undefined;
  private window: EventWindow;
  private listeners = new Set<Listener>();
  private resetListeners = new Set<() => void>();
  private waiters: { revision: number; resolve: (ok: boolean) => void }[] = [];
  private readonly ac = new AbortController();
  private readyResolve!: () => void;
  /** Resolves once the first list has been loaded. */
  readonly ready = new Promise<void>((r) => (this.readyResolve = r));

  constructor(private readonly backend: Backend, readonly prefix: string, private readonly opts: CacherOptions) {
    this.window = new EventWindow(opts.windowMs ?? 5 * 60_000, opts.maxEvents ?? 200_000);
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.ac.abort();
    for (const w of this.waiters.splice(0)) w.resolve(false);
    // Watches of a cache that stops (its type is no longer served) end; clients re-watch and learn why.
    for (const r of [...this.resetListeners]) r();
  }

  /**
   * Whether the feed has shown that it sends progress notifications (memory and SQLite do; etcd here does
   * not). Only then does the revision follow writes to other prefixes, so only then is waiting for the
   * store's current revision worth it: otherwise it would last until the next write under this prefix.
   */
  progressNotified = false;

  /** Resolves true once the cache has reached `revision`, false after `timeoutMs`. */
  waitFor(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.revision >= revision) return Promise.resolve(true);
    // Writes elsewhere move the store's revision without an event here: ask the feed to say how far it is.
    this.backend.requestProgress?.(revision);
    return new Promise((resolve) => {
      const w = { revision, resolve };
      this.waiters.push(w);
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(this.revision >= revision);
      }, timeoutMs);
      w.resolve = (ok) => {
        clearTimeout(t);
        resolve(ok);
      };
    });
  }

  get(key: string): CachedItem | undefined {
    return this.items.get(key);
  }

  /** Items whose key starts with `prefix`, in key order, from `startKey` (inclusive) on. */
  *range(prefix: string, startKey?: string): Generator<CachedItem> {
    const keys = this.sortedKeys();
    const from = startKey && startKey > prefix ? startKey : prefix;
    for (let i = lowerBound(keys, from); i < keys.length; i++) {
      const k = keys[i] as string;
      if (!k.startsWith(prefix)) return;
      const item = this.items.get(k);
      if (item) yield item;
    }
  }

  /** Number of items under `prefix` from `startKey` (inclusive) on, by binary search (no scan). */
  count(prefix: string, startKey?: string): number {
    if (prefix === this.prefix && !startKey) return this.items.size;
    const keys = this.sortedKeys();
    const from = startKey && startKey > prefix ? startKey : prefix;
    return lowerBound(keys, prefixEnd(prefix)) - lowerBound(keys, from);
  }

  /** Events after `revision`, or undefined when the window no longer reaches back that far. */
  eventsSince(revision: number): CacheEvent[] | undefined {
    return this.window.since(revision);
  }

  get oldestResumable(): number {
    return this.window.oldestResumable;
  }

  /** Events held for resuming watches (the watch cache size metric). */
  get eventCount(): number {
    return this.window.size;
  }

  /** Calls `fn` synchronously for each event as it is applied. Returns the unsubscribe function. */
  subscribe(fn: Listener, onReset: () => void): () => void {
    this.listeners.add(fn);
    this.resetListeners.add(onReset);
    return () => {
      this.listeners.delete(fn);
      this.resetListeners.delete(onReset);
    };
  }

  private sortedKeys(): string[] {
    // Membership changes invalidate the order; updates of existing keys do not.
    this.sorted ??= [...this.items.keys()].sort();
    return this.sorted;
  }

  private async run(): Promise<void> {
    let delay = 100;
    while (!this.ac.signal.aborted) {
      try {
        const revision = await this.loadAll();
        this.readyResolve();
        delay = 100;
        const feed = this.backend.watch(this.prefix, revision, this.ac.signal, { progress: true, markUnreadable: true });
        for await (const e of feed) {
          if (e.type === 'PROGRESS') {
            this.progressNotified = true;
            this.advance(e.revision);
          }
          else if (e.type === 'PUT') this.apply('PUT', e.kv.key, this.toItem(e.kv), e.prev ? this.items.get(e.kv.key) : undefined, e.revision);
          else this.apply('DELETE', e.key, this.items.get(e.key) ?? this.toItem(e.prev), undefined, e.revision);
        }
        if (this.ac.signal.aborted) return;
      } catch (err) {
        if (this.ac.signal.aborted) return;
        // Compacted (history lost) or storage trouble: start over from a fresh list.
        this.opts.log?.(`watch cache ${this.prefix}: ${isStorageError(err) ? err.message : String(err)}; relisting`);
        await new Promise((r) => setTimeout(r, delay).unref());
        delay = Math.min(delay * 2, 5000);
      }
    }
  }

  /** Reads the whole prefix in pages at one revision (a bounded peak of memory), then swaps it in. */
  private async loadAll(): Promise<number> {
    const items = new Map<string, CachedItem>();
    let revision: number | undefined;
    let startKey: string | undefined;
    for (;;) {
      const page = await this.backend.list(this.prefix, { limit: 5000, markUnreadable: true, ...(revision ? { revision } : {}), ...(startKey ? { startKey } : {}) });
      revision = page.revision;
      for (const kv of page.items) items.set(kv.key, this.toItem(kv));
      const last = page.items[page.items.length - 1];
      if (!page.more || !last) break;
      startKey = `${last.key}\x00`;
    }
    this.load(items, revision);
    return revision;
  }

  private load(items: Map<string, CachedItem>, revision: number): void {
    const hadData = this.revision > 0;
    this.items = items;
    this.unreadable = new Set([...items.values()].filter((i) => i.unreadable).map((i) => i.key));
    this.sorted = undefined;
    this.window.reset(revision);
    // Watchers cannot be continued across a relist (they could miss events): end them, clients re-watch.
    if (hadData) for (const r of [...this.resetListeners]) r();
    this.advance(revision);
  }

  private apply(type: 'PUT' | 'DELETE', key: string, item: CachedItem, prev: CachedItem | undefined, revision: number): void {
    const before = this.items.get(key);
    if (type === 'PUT') {
      this.items.set(key, item);
      if (!before) this.sorted = undefined;
    } else {
      this.items.delete(key);
      this.sorted = undefined;
    }
    if (item.unreadable && type === 'PUT') this.unreadable.add(key);
    else if (this.unreadable.size > 0) this.unreadable.delete(key);
    const event: CacheEvent = { revision, type, key, item, prev: type === 'PUT' ? prev : undefined };
    this.window.push(event);
    this.revision = revision;
    for (const l of this.listeners) l(event);
    // The shared encodings serve the fan-out above (watchers queue the bytes themselves). Kept on the event
    // they would double what the history window holds for its five minutes; a watcher resuming from the
    // window later encodes again.
    event.encoded = undefined;
    this.wake();
  }

  private advance(revision: number): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    this.wake();
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.revision >= w.revision) w.resolve(true);
      else still.push(w);
    }
    this.waiters = still;
  }

  private toItem(kv: KeyValue): CachedItem {
    if (kv.unreadable) {
      return { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision, labels: undefined, unreadable: kv.unreadable };
    }
    return {
      key: kv.key,
      value: this.slab.copy(kv.value),
      createRevision: kv.createRevision,
      modRevision: kv.modRevision,
      labels: this.opts.labelsOf(kv.value),
    };
  }

  /**
   * The reason the first unreadable item under `prefix` (from `startKey` on) cannot be read, if any: a list
   * over it must fail rather than skip it. Costs nothing while every value is readable.
   */
  firstUnreadable(prefix: string, startKey?: string): StorageError | undefined {
    if (this.unreadable.size === 0) return undefined;
    for (const key of [...this.unreadable].sort()) {
      if (key.startsWith(prefix) && (!startKey || key >= startKey)) return this.items.get(key)?.unreadable;
    }
    return undefined;
  }

  get size(): number {
    return this.items.size;
  }
}

/** Index of the first key >= `k` in a sorted array. */
function lowerBound(keys: readonly string[], k: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The smallest string after every string that starts with `prefix`. */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
