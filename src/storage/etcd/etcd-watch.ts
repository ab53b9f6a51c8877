import { AsyncQueue } from '../../util/async-queue.js';
import type { WatchEvent } from '../backend.js';
import { compacted, StorageError } from '../errors.js';
import { num, toStorageError, type EtcdRpc, type PbEvent, type WatchCall, type WatchResponse } from './etcd-rpc.js';

const INITIAL_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;

export interface WatchContext {
  rpc: EtcdRpc;
  decode(event: PbEvent): WatchEvent;
  /** Called with every compact revision etcd reports, so the backend learns about compactions. */
  onCompactRevision(revision: number): void;
  /** How long a lost watch keeps trying to re-establish itself before it fails with Unavailable. */
  retryTimeoutMs: number;
}

/**
 * One backend watch, backed by one etcd Watch stream at a time. It remembers the next revision it owes the
 * consumer (`next`), so when the stream breaks (etcd restarted, connection lost) it re-creates the server
 * watch from exactly that revision: whatever was delivered is not sent again, whatever happened while the
 * stream was down is replayed by etcd from its history.
 */
export class ResumableWatch {
  readonly queue: AsyncQueue<WatchEvent>;
  private next: number;
  private call: WatchCall | undefined;
  private watchId: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = INITIAL_BACKOFF_MS;
  /** When the current outage began; undefined while a server watch is established. */
  private downSince: number | undefined;

  constructor(
    private readonly ctx: WatchContext,
    private readonly key: Buffer,
    private readonly rangeEnd: Buffer,
    fromRevision: number,
    signal: AbortSignal,
    onDone: () => void,
  ) {
    this.next = fromRevision + 1;
    this.queue = new AsyncQueue<WatchEvent>(signal, () => {
      clearTimeout(this.timer);
      this.dropStream();
      onDone();
    });
    if (!this.queue.closed) this.connect();
  }

  /** Ends the watch cleanly (backend closing). */
  end(): void {
    this.queue.end();
  }

  private connect(): void {
    if (this.queue.closed) return;
    const call = this.ctx.rpc.watchStream();
    this.call = call;
    this.watchId = undefined;
    call.on('data', (res: WatchResponse) => {
      if (this.call !== call) return;
      try {
        this.onResponse(res);
      } catch (e) {
        this.queue.fail(toStorageError(e, 'etcd watch'));
      }
    });
    // A stream we dropped ourselves reports CANCELLED here; only the current stream's end matters.
    call.on('error', (e) => this.call === call && this.retry(toStorageError(e, 'etcd watch')));
    call.on('end', () => this.call === call && this.retry(new StorageError('Unavailable', 'etcd watch stream ended')));
    call.write({
      create_request: { key: this.key, range_end: this.rangeEnd, start_revision: String(this.next), prev_kv: true },
    });
  }

  private onResponse(res: WatchResponse): void {
    const compactRevision = num(res.compact_revision);
    if (compactRevision > 0) {
      // The revisions we still owe are gone: the consumer must relist. Carry etcd's compact revision.
      this.ctx.onCompactRevision(compactRevision);
      this.queue.fail(compacted(this.next, compactRevision));
      return;
    }
    if (res.created) {
      this.watchId = res.watch_id;
      this.downSince = undefined;
      this.backoffMs = INITIAL_BACKOFF_MS;
    }
    // One response holds whole revisions (we never ask for fragments), so `next` moves past all of them.
    let last = 0;
    for (const ev of res.events) {
      const rev = num(ev.kv?.mod_revision);
      if (rev < this.next) continue; // already delivered before a reconnect
      this.queue.push(this.ctx.decode(ev));
      last = Math.max(last, rev);
    }
    if (last > 0) this.next = last + 1;
    if (res.canceled) {
      this.retry(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
    }
  }

  /** Drops the broken stream and schedules a new one from `next`, with backoff, until the retry deadline. */
  private retry(cause: StorageError): void {
    this.dropStream();
    if (this.queue.closed) return;
    const now = Date.now();
    this.downSince ??= now;
    const left = this.downSince + this.ctx.retryTimeoutMs - now;
    if (left <= 0) {
      const msg = `etcd watch lost and not re-established in ${this.ctx.retryTimeoutMs} ms: ${cause.message}`;
      this.queue.fail(new StorageError('Unavailable', msg, { cause }));
      return;
    }
    const delay = Math.min(left, this.backoffMs * (0.5 + Math.random() / 2));
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect();
    }, delay);
  }

  /** Cancels the server watch (politely, then by resetting the stream, which cancels all of its watches). */
  private dropStream(): void {
    const call = this.call;
    this.call = undefined;
    if (!call) return;
    try {
      if (this.watchId !== undefined) call.write({ cancel_request: { watch_id: this.watchId } });
    } catch {
      // the stream is already gone
    }
    call.cancel();
  }
}
