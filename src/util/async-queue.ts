/**
 * An unbounded push queue consumed as an async iterable. Producers push synchronously; the single consumer
 * awaits. `fail` ends the iteration with an error after the items already queued; `end` ends it cleanly.
 * Aborting `signal` ends it at once (queued items are dropped).
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: (() => void) | undefined;
  private done = false;
  private error: unknown;
  private onAbort = () => this.end();

  constructor(private readonly signal?: AbortSignal, private readonly onClose?: () => void) {
    if (signal?.aborted) this.done = true;
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get closed(): boolean {
    return this.done;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
    this.wake();
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.error = error;
    this.finish();
  }

  end(): void {
    if (this.done) return;
    this.finish();
  }

  private finish(): void {
    this.done = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.onClose?.();
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      for (;;) {
        if (this.signal?.aborted) return;
        if (this.head < this.items.length) {
          const item = this.items[this.head] as T;
          this.items[this.head++] = undefined as T;
          if (this.head > 1024 && this.head * 2 > this.items.length) {
            this.items = this.items.slice(this.head);
            this.head = 0;
          }
          yield item;
          continue;
        }
        if (this.done) {
          if (this.error !== undefined) throw this.error;
          return;
        }
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    } finally {
      // The consumer stopped early (break/return): release the producer side.
      this.end();
    }
  }
}
