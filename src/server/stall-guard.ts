/**
 * Cuts off clients that stop reading. A response with bytes waiting to be sent that makes no progress for
 * `stallMs` is destroyed: the connection (HTTP/1.1) or stream (HTTP/2) is reset, its buffers are freed and
 * a handler waiting for the socket to drain wakes up (the 'close' event). Without this a client that never
 * reads would hold a list's bytes and its in-flight slot for ever, and enough of them would lock everyone
 * out. Quiet responses (a watch with nothing to send) hold no bytes and are never cut.
 */

export interface Watched {
  readonly writableLength?: number;
  readonly writableEnded: boolean;
  destroy?(): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
}

interface Entry {
  /** Bytes waiting at the last sample. */
  pending: number;
  /** When the response last made progress (sent bytes, drained, or had nothing waiting). */
  progressAt: number;
  /** Set once the response was seen holding bytes: most answer before the first sample and never need it. */
  onDrain?: () => void;
}

export class StallGuard {
  private readonly entries = new Map<Watched, Entry>();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    readonly stallMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (stallMs > 0) this.timer = setInterval(() => this.sweep(), Math.max(10, Math.min(1000, stallMs / 4))).unref();
  }

  /** Watches `res` until `remove` (the owner calls it on the response's 'close'). Cheap: one map entry. */
  add(res: Watched): void {
    if (this.timer) this.entries.set(res, { pending: 0, progressAt: this.now() });
  }

  remove(res: Watched): void {
    const entry = this.entries.get(res);
    if (!entry) return;
    this.entries.delete(res);
    if (entry.onDrain) res.removeListener('drain', entry.onDrain);
  }

  /** One sample of every response: destroys those stuck for `stallMs`. Public for tests. */
  sweep(): void {
    const now = this.now();
    for (const [res, entry] of this.entries) {
      const pending = res.writableLength ?? 0;
      if (pending === 0 || pending < entry.pending) entry.progressAt = now;
      else if (!entry.onDrain) {
        entry.onDrain = () => (entry.progressAt = this.now());
        res.on('drain', entry.onDrain);
      }
      entry.pending = pending;
      if (now - entry.progressAt >= this.stallMs) {
        this.remove(res);
        res.destroy?.();
      }
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.entries.clear();
  }
}
