/**
 * One decorator for everything that observes storage calls (latency metrics, tracing spans): it forwards
 * every Backend method and lets a hook act before and after the key-value operations. The reads and
 * writes (`get`, `list`, `count`, `create`, `update`, `delete`) go through the hook; the revision queries,
 * the change feed (`watch`, `requestProgress`), `compact`, `close` and `healthCheck` are forwarded untouched.
 *
 * Storage calls are on every request, so a hook that declines a call (its `start` answers undefined) costs
 * that one call and nothing else: the inner promise is returned as is, with no closure and no extra hop.
 */
import type { Backend, KeyValue, ListOptions, ListResult, ProgressNotify, WatchEvent } from './backend.js';

export type StorageOperation = 'get' | 'list' | 'count' | 'create' | 'update' | 'delete';

export interface StorageCallHook<S> {
  /**
   * Called before each operation with its key (the prefix for `list` and `count`). Answers what `finish`
   * needs, or undefined to let the call through without any further work.
   */
  start(operation: StorageOperation, key: string): S | undefined;
  /**
   * Makes the call for a started operation (to run it inside a context, for instance). Without it the
   * decorator calls the inner backend directly.
   */
  run?<T>(state: S, call: () => Promise<T>): Promise<T>;
  /** After a started operation settles: `failed` with the rejection reason in `error`. */
  finish(state: S, operation: StorageOperation, key: string, failed: boolean, error: unknown): void;
}

type WatchOptions = { progress: true; markUnreadable?: boolean };

export class InstrumentedBackend<S> implements Backend {
  readonly name: string;
  readonly healthCheck?: () => Promise<void>;
  readonly requestProgress?: (revision: number) => void;

  constructor(
    protected readonly inner: Backend,
    private readonly hook: StorageCallHook<S>,
  ) {
    this.name = inner.name;
    if (inner.healthCheck) this.healthCheck = () => (inner.healthCheck as () => Promise<void>).call(inner);
    if (inner.requestProgress) this.requestProgress = (r) => (inner.requestProgress as (r: number) => void).call(inner, r);
  }

  /** Reports the end of a started operation; the caller's promise is the inner one, unchanged. */
  private settle<T>(p: Promise<T>, state: S, operation: StorageOperation, key: string): Promise<T> {
    const hook = this.hook;
    p.then(
      () => hook.finish(state, operation, key, false, undefined),
      (e: unknown) => hook.finish(state, operation, key, true, e),
    );
    return p;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  // Each operation is written out (rather than through one generic helper taking a closure) so the
  // declined path allocates nothing.
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const s = this.hook.start('get', key);
    if (s === undefined) return this.inner.get(key, opts);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.get(key, opts)) : this.inner.get(key, opts);
    return this.settle(p, s, 'get', key);
  }
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const s = this.hook.start('list', prefix);
    if (s === undefined) return this.inner.list(prefix, opts);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.list(prefix, opts)) : this.inner.list(prefix, opts);
    return this.settle(p, s, 'list', prefix);
  }
  count(prefix: string): Promise<number> {
    const s = this.hook.start('count', prefix);
    if (s === undefined) return this.inner.count(prefix);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.count(prefix)) : this.inner.count(prefix);
    return this.settle(p, s, 'count', prefix);
  }
  create(key: string, value: Uint8Array): Promise<KeyValue> {
    const s = this.hook.start('create', key);
    if (s === undefined) return this.inner.create(key, value);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.create(key, value)) : this.inner.create(key, value);
    return this.settle(p, s, 'create', key);
  }
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    const s = this.hook.start('update', key);
    if (s === undefined) return this.inner.update(key, value, expectedModRevision);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.update(key, value, expectedModRevision)) : this.inner.update(key, value, expectedModRevision);
    return this.settle(p, s, 'update', key);
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const s = this.hook.start('delete', key);
    if (s === undefined) return this.inner.delete(key, expectedModRevision);
    const p = this.hook.run ? this.hook.run(s, () => this.inner.delete(key, expectedModRevision)) : this.inner.delete(key, expectedModRevision);
    return this.settle(p, s, 'delete', key);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: WatchOptions): AsyncIterable<WatchEvent | ProgressNotify>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts?: WatchOptions): AsyncIterable<WatchEvent | ProgressNotify> {
    return opts ? this.inner.watch(prefix, fromRevision, signal, opts) : this.inner.watch(prefix, fromRevision, signal);
  }
  compact(revision?: number): Promise<number> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
