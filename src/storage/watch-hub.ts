import { AsyncQueue } from '../util/async-queue.js';
import type { ProgressNotify, WatchEvent } from './backend.js';
import type { StorageError } from './errors.js';

interface Watcher {
  prefix: string;
  /** Events at or before this revision were already replayed from history (or predate the watch). */
  after: number;
  queue: AsyncQueue<WatchEvent | ProgressNotify>;
  progress: boolean;
}

export function eventKey(e: WatchEvent): string {
  return e.type === 'PUT' ? e.kv.key : e.key;
}

/**
 * Fans the change feed of one backend out to its watchers. The backend publishes every change exactly once,
 * in revision order, from its feed (never from the code path of the write), and replays history for a new
 * watcher synchronously up to `lastRevision`, so that no event is lost or duplicated at the seam.
 */
export class WatchHub {
  private watchers = new Set<Watcher>();
  /**
   * Watchers by prefix, for prefixes that end in `/` (every watch cache's): an event reaches them through
   * the prefixes of its key, so a write costs a few map lookups however many resources are watched.
   */
  private byPrefix = new Map<string, Set<Watcher>>();
  /** Watchers of any other prefix, matched one by one. */
  private others = new Set<Watcher>();
  /**
   * Progress watchers are told of progress while a reader waits for a revision up to this one (see
   * requestProgress), not after every write: with one watch cache per resource, a notification per write to
   * each would wake them all for every change.
   */
  private progressWanted = 0;
  /** The newest revision published. */
  lastRevision = 0;

  /**
   * Registers a watcher. `history` must hold the events after `fromRevision` up to `lastRevision`,
   * read synchronously by the caller in the same tick.
   */
  open(
    prefix: string,
    fromRevision: number,
    history: Iterable<WatchEvent>,
    signal: AbortSignal,
    progress = false,
  ): AsyncQueue<WatchEvent | ProgressNotify> {
    const watcher: Watcher = {
      prefix,
      after: Math.max(fromRevision, this.lastRevision),
      queue: new AsyncQueue<WatchEvent | ProgressNotify>(signal, () => this.remove(watcher)),
      progress,
    };
    for (const e of history) if (eventKey(e).startsWith(prefix)) watcher.queue.push(e);
    // A progress watch learns at once how far the feed is (and that it sends progress at all).
    if (progress) watcher.queue.push({ type: 'PROGRESS', revision: watcher.after });
    if (!watcher.queue.closed) this.add(watcher);
    return watcher.queue;
  }

  private add(w: Watcher): void {
    this.watchers.add(w);
    if (!w.prefix.endsWith('/')) {
      this.others.add(w);
      return;
    }
    let set = this.byPrefix.get(w.prefix);
    if (!set) this.byPrefix.set(w.prefix, (set = new Set()));
    set.add(w);
  }

  private remove(w: Watcher): void {
    this.watchers.delete(w);
    this.others.delete(w);
    const set = this.byPrefix.get(w.prefix);
    if (set?.delete(w) && set.size === 0) this.byPrefix.delete(w.prefix);
  }

  /**
   * A reader waits for `revision`: progress watchers are sent the published revision now, and after every
   * publish until the feed has passed `revision`.
   */
  requestProgress(revision: number): void {
    if (revision > this.progressWanted) this.progressWanted = revision;
    this.notifyProgress();
  }

  private notifyProgress(): void {
    for (const w of this.watchers) {
      if (w.progress && this.lastRevision > w.after) w.queue.push({ type: 'PROGRESS', revision: this.lastRevision });
    }
  }

  private deliver(w: Watcher, e: WatchEvent): void {
    if (e.revision > w.after) w.queue.push(e);
  }

  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0) return;
    const before = this.lastRevision;
    for (const e of events) {
      const key = eventKey(e);
      // Every prefix of the key that ends at a `/`, longest last: `/`, `/registry/`, `/registry/core/`, ...
      for (let i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
        const set = this.byPrefix.get(key.slice(0, i + 1));
        if (set) for (const w of set) this.deliver(w, e);
      }
      for (const w of this.others) if (key.startsWith(w.prefix)) this.deliver(w, e);
    }
    this.lastRevision = (events[events.length - 1] as WatchEvent).revision;
    // Progress is queued after the events it covers, so a consumer that reads it has applied them all.
    if (this.progressWanted > before) this.notifyProgress();
  }

  /** Ends every watch with an error (e.g. the backend closed or history was lost). */
  failAll(error: StorageError | undefined): void {
    for (const w of [...this.watchers]) {
      if (error) w.queue.fail(error);
      else w.queue.end();
    }
    this.watchers.clear();
    this.byPrefix.clear();
    this.others.clear();
  }

  get size(): number {
    return this.watchers.size;
  }
}
