/**
 * Per-item retry delays of the work queue, as the reference's default controller rate limiter: the larger
 * of a per-item exponential backoff (5 ms doubling to 1000 s) and an overall token bucket (10 qps, burst 100).
 */
import type { Clock } from './clock.js';

export interface RateLimiter<K> {
  /** How long `item` waits before its next try (each call counts as one more failure). */
  when(item: K): number;
  forget(item: K): void;
  numRequeues(item: K): number;
}

export class ItemExponentialRateLimiter<K> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(readonly baseMs = 5, readonly maxMs = 1000_000) {}

  when(item: K): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    // Past 2^60 the product only overflows; the cap is long reached by then.
    return n > 60 ? this.maxMs : Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(item: K): void {
    this.failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.failures.get(item) ?? 0;
  }
}

/** Reserves one token per call; the delay is how long until that token exists (debt allowed). */
export class TokenBucketRateLimiter<K> implements RateLimiter<K> {
  private tokens: number;
  private last: number;

  constructor(readonly qps: number, readonly burst: number, private readonly clock: Clock) {
    if (!(qps > 0) || !(burst >= 1)) throw new Error('token bucket: qps must be > 0 and burst >= 1');
    this.tokens = burst;
    this.last = clock.now();
  }

  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(): void {}

  numRequeues(): number {
    return 0;
  }
}

export class MaxOfRateLimiter<K> implements RateLimiter<K> {
  constructor(private readonly limiters: RateLimiter<K>[]) {}

  when(item: K): number {
    let most = 0;
    for (const l of this.limiters) most = Math.max(most, l.when(item));
    return most;
  }

  forget(item: K): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let most = 0;
    for (const l of this.limiters) most = Math.max(most, l.numRequeues(item));
    return most;
  }
}

export const defaultControllerRateLimiter = <K>(clock: Clock): RateLimiter<K> =>
  new MaxOfRateLimiter<K>([new ItemExponentialRateLimiter<K>(5, 1000_000), new TokenBucketRateLimiter<K>(10, 100, clock)]);
