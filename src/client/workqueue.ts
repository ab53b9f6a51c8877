/**
 * The controllers' work queue, with the reference's rules: a key waiting is queued once however often it
 * is added; a key being processed is never handed to a second worker, and if added meanwhile it comes back
 * after `done`; retries wait per the rate limiter; delayed adds keep only the earliest time per key.
 */
import { realClock, type Clock } from './clock.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface WorkQueueOptions<K> {
  clock?: Clock;
  rateLimiter?: RateLimiter<K>;
}

export class WorkQueue<K = string> {
  private readonly clock: Clock;
  private readonly limiter: RateLimiter<K>;
  private readonly queue: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiting = new Map<K, { at: number; timer: unknown }>();
  private readonly getters: ((item: K | undefined) => void)[] = [];
  private shuttingDown = false;
  private drained: (() => void) | undefined;

  constructor(opts: WorkQueueOptions<K> = {}) {
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
  }

  /** Keys queued and not yet handed out. */
  len(): number {
    return this.queue.length - this.head;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  add(item: K): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    // Being processed: it is queued again by `done`.
    if (this.processing.has(item)) return;
    const getter = this.getters.shift();
    if (getter) this.handOut(item, getter);
    else this.queue.push(item);
  }

  /** The next key (waits for one); undefined once the queue is shut down and empty. */
  get(): Promise<K | undefined> {
    if (this.len() > 0) {
      const item = this.queue[this.head] as K;
      this.head++;
      // Compact now and then so a long-lived queue does not keep its whole history.
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return new Promise((resolve) => this.handOut(item, resolve));
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Processing of `item` finished (successfully or not); a re-add meanwhile queues it again. */
  done(item: K): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      const getter = this.getters.shift();
      if (getter) this.handOut(item, getter);
      else this.queue.push(item);
    }
    if (this.drained && this.processing.size === 0) this.drained();
  }

  /** Adds `item` after `delayMs`; with a delayed add already pending, the earlier time wins. */
  addAfter(item: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(item);
    const at = this.clock.now() + delayMs;
    const pending = this.waiting.get(item);
    if (pending && pending.at <= at) return;
    if (pending) this.clock.clearTimeout(pending.timer);
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    this.waiting.set(item, { at, timer });
  }

  /** Adds `item` after the rate limiter's delay for it (one more failure counted). */
  addRateLimited(item: K): void {
    this.addAfter(item, this.limiter.when(item));
  }

  /** Clears `item`'s failure count (call after it was processed successfully). */
  forget(item: K): void {
    this.limiter.forget(item);
  }

  numRequeues(item: K): number {
    return this.limiter.numRequeues(item);
  }

  /** Stops handing out keys: waiting `get`s get undefined; queued keys are still returned until empty. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.waiting.values()) this.clock.clearTimeout(timer);
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** Shuts down, then resolves once every key handed out has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = () => {
        this.drained = undefined;
        resolve();
      };
    });
  }

  private handOut(item: K, to: (item: K | undefined) => void): void {
    this.dirty.delete(item);
    this.processing.add(item);
    to(item);
  }
}
