/**
 * Rate-limiting pieces for EventRateLimit: a token bucket driven by the caller's clock (so tests control
 * time), and a small LRU map that keeps a bounded number of buckets, one per key.
 */

/** Milliseconds from a monotonic source; `performance.now` in the server, a counter in tests. */
export type Clock = () => number;

/**
 * Starts full (`burst` tokens) and refills at `qps` tokens a second up to `burst`; each accepted request
 * takes one token. The bucket is lazy: it refills when asked, so an idle bucket costs nothing.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.at = now;
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.qps) / 1000);
    this.at = now;
  }

  /** Takes a token when one is there. */
  tryTake(now: number): boolean {
    this.refill(now);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Seconds until the next token is there (0 when one is already). */
  secondsUntilToken(now: number): number {
    this.refill(now);
    return this.tokens >= 1 ? 0 : (1 - this.tokens) / this.qps;
  }
}

/** A map of at most `max` entries that forgets the least recently used one first. */
export class LruMap<V> {
  private readonly entries = new Map<string, V>();

  constructor(readonly max: number) {}

  /** The entry for `key` (now the most recent), made by `make` when absent. */
  get(key: string, make: () => V): V {
    const found = this.entries.get(key);
    if (found !== undefined) {
      // Map keeps insertion order: re-inserting moves the key to the most recent end.
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    const made = make();
    this.entries.set(key, made);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return made;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
