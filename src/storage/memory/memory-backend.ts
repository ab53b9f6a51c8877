import type { Backend, HistoryOptions, KeyValue, ListOptions, ListResult, WatchEvent, ProgressNotify } from '../backend.js';
import { compacted, conflict, futureRevision, keyExists, keyNotFound, StorageError } from '../errors.js';
import { HistoryWindow } from '../history-window.js';
import { eventKey, WatchHub } from '../watch-hub.js';

/** One entry of a key's history: a value, or a tombstone (value undefined) from a delete. */
interface Version {
  revision: number;
  kv: KeyValue | undefined;
}

/**
 * The in-memory backend, for unit tests: the same contract as the durable backends, nothing on disk.
 * It keeps the event log for the history window and per-key version lists for reads at past revisions.
 */
export class MemoryBackend implements Backend {
  readonly name = 'memory';
  private revision = 0;
  private compactRev = 0;
  private log: WatchEvent[] = [];
  private versions = new Map<string, Version[]>();
  private hub = new WatchHub();
  private window: HistoryWindow;
  private closed = false;

  constructor(opts: HistoryOptions = {}) {
    this.window = new HistoryWindow(opts);
    this.window.start(async () => {
      const target = this.window.sample(this.revision);
      if (target > this.compactRev) await this.compact(target);
    });
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    return this.compactRev;
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    const at = this.readRevision(opts.revision);
    return this.valueAt(key, at);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const at = this.readRevision(opts.revision);
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const keys = [...this.versions.keys()].filter((k) => k >= start && k.startsWith(prefix)).sort(compareKeys);
    const items: KeyValue[] = [];
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    let more = false;
    for (const k of keys) {
      const kv = this.valueAt(k, at);
      if (!kv) continue;
      if (items.length >= limit) {
        more = true;
        break;
      }
      items.push(kv);
    }
    return { items, revision: at, more };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    let n = 0;
    for (const k of this.versions.keys()) if (k.startsWith(prefix) && this.valueAt(k, this.revision)) n++;
    return n;
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.checkOpen();
    if (this.valueAt(key, this.revision)) throw keyExists(key);
    const rev = ++this.revision;
    const kv: KeyValue = { key, value: copy(value), createRevision: rev, modRevision: rev };
    this.append(key, kv, { type: 'PUT', revision: rev, kv });
    return kv;
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    const prev = this.valueAt(key, this.revision);
    if (!prev) throw keyNotFound(key);
    if (prev.modRevision !== expectedModRevision) throw conflict(key, expectedModRevision, prev.modRevision);
    const rev = ++this.revision;
    const kv: KeyValue = { key, value: copy(value), createRevision: prev.createRevision, modRevision: rev };
    this.append(key, kv, { type: 'PUT', revision: rev, kv, prev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const prev = this.valueAt(key, this.revision);
    if (!prev) throw keyNotFound(key);
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      throw conflict(key, expectedModRevision, prev.modRevision);
    }
    const rev = ++this.revision;
    this.append(key, undefined, { type: 'DELETE', revision: rev, key, prev });
    return prev;
  }

  requestProgress(revision: number): void {
    this.hub.requestProgress(revision);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: { progress: true }): AsyncIterable<WatchEvent | ProgressNotify>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts?: { progress: true }): AsyncIterable<WatchEvent | ProgressNotify> {
    this.checkOpen();
    if (fromRevision < this.compactRev) throw compacted(fromRevision, this.compactRev);
    const history = this.log.filter((e) => e.revision > fromRevision && eventKey(e).startsWith(prefix));
    return this.hub.open(prefix, fromRevision, history, signal, opts?.progress === true);
  }

  async compact(revision?: number): Promise<number> {
    this.checkOpen();
    const target = Math.min(revision ?? this.window.sample(this.revision), this.revision);
    if (target <= this.compactRev) return this.compactRev;
    this.compactRev = target;
    this.log = this.log.filter((e) => e.revision > target);
    for (const [key, list] of this.versions) {
      // Keep the newest version at or before the target (reads at the target need it), and everything after.
      let keepFrom = 0;
      for (let i = 0; i < list.length; i++) if ((list[i] as Version).revision <= target) keepFrom = i;
      const kept = list.slice(keepFrom);
      if (kept.length === 1 && !(kept[0] as Version).kv) this.versions.delete(key);
      else this.versions.set(key, kept);
    }
    return target;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.window.stop();
    this.hub.failAll(undefined);
  }

  private append(key: string, kv: KeyValue | undefined, event: WatchEvent): void {
    let list = this.versions.get(key);
    if (!list) this.versions.set(key, (list = []));
    list.push({ revision: event.revision, kv });
    this.log.push(event);
    this.hub.publish([event]);
  }

  private valueAt(key: string, revision: number): KeyValue | undefined {
    const list = this.versions.get(key);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const v = list[i] as Version;
      if (v.revision <= revision) return v.kv;
    }
    return undefined;
  }

  private readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    if (requested > this.revision) throw futureRevision(requested, this.revision);
    if (requested < this.compactRev) throw compacted(requested, this.compactRev);
    return requested;
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'memory backend is closed');
  }
}

function copy(value: Uint8Array): Uint8Array {
  return Uint8Array.from(value);
}

/** Keys compare by their UTF-8 bytes, as in etcd and SQLite's BINARY collation. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
