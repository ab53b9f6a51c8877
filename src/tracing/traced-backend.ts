/**
 * A child span for each storage call a traced request makes. Calls outside a traced request (unsampled
 * requests, the watch caches' feeds, controllers) go straight through after one lookup of the current span.
 */
import type { Backend, KeyValue, ListOptions, ListResult, ProgressNotify, WatchEvent } from '../storage/index.js';
import { currentSpan } from './span.js';

export class TracedBackend implements Backend {
  readonly name: string;
  readonly healthCheck?: () => Promise<void>;
  readonly requestProgress?: (revision: number) => void;

  constructor(private readonly inner: Backend) {
    this.name = inner.name;
    if (inner.healthCheck) this.healthCheck = () => (inner.healthCheck as () => Promise<void>).call(inner);
    if (inner.requestProgress) this.requestProgress = (r) => (inner.requestProgress as (r: number) => void).call(inner, r);
  }

  /** Runs `call` inside a span named after the operation, with the key and the backend as attributes. */
  private traced<T>(operation: string, key: string, call: () => Promise<T>): Promise<T> {
    const parent = currentSpan();
    if (!parent) return call();
    const span = parent.child(`storage.${operation}`, 'client', { 'db.system': this.name, 'db.operation': operation, key });
    const p = span.run(call);
    p.then(
      () => span.end(),
      (e: unknown) => {
        span.fail(e instanceof Error ? e.message : String(e));
        span.end();
      },
    );
    return p;
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }
  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    return this.traced('get', key, () => this.inner.get(key, opts));
  }
  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.traced('list', prefix, () => this.inner.list(prefix, opts));
  }
  count(prefix: string): Promise<number> {
    return this.traced('count', prefix, () => this.inner.count(prefix));
  }
  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.traced('create', key, () => this.inner.create(key, value));
  }
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.traced('update', key, () => this.inner.update(key, value, expectedModRevision));
  }
  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.traced('delete', key, () => this.inner.delete(key, expectedModRevision));
  }
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: { progress: true; markUnreadable?: boolean }): AsyncIterable<WatchEvent | ProgressNotify>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts?: { progress: true; markUnreadable?: boolean }): AsyncIterable<WatchEvent | ProgressNotify> {
    return opts ? this.inner.watch(prefix, fromRevision, signal, opts) : this.inner.watch(prefix, fromRevision, signal);
  }
  compact(revision?: number): Promise<number> {
    return this.inner.compact(revision);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
