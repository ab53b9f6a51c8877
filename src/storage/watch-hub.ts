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
      queue: new AsyncQueue<WatchEvent | ProgressNotify>(signal, () => this.watchers.delete(watcher)),
      progress,
    };
    for (const e of history) if (eventKey(e).startsWith(prefix)) watcher.queue.push(e);
    if (!watcher.queue.closed) this.watchers.add(watcher);
    return watcher.queue;
  }

  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0) return;
    for (const w of this.watchers) {
      for (const e of events) {
        if (e.revision > w.after && eventKey(e).startsWith(w.prefix)) w.queue.push(e);
      }
    }
    this.lastRevision = (events[events.length - 1] as WatchEvent).revision;
    // Progress is queued after the events it covers, so a consumer that reads it has applied them all.
    for (const w of this.watchers) {
      if (w.progress && this.lastRevision > w.after) w.queue.push({ type: 'PROGRESS', revision: this.lastRevision });
    }
  }

  /** Ends every watch with an error (e.g. the backend closed or history was lost). */
  failAll(error: StorageError | undefined): void {
    for (const w of [...this.watchers]) {
      if (error) w.queue.fail(error);
      else w.queue.end();
    }
    this.watchers.clear();
  }

  get size(): number {
    return this.watchers.size;
  }
}
