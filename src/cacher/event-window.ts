import type { CacheEvent } from './types.js';

/**
 * The recent events of one cache, oldest first, for watches that resume from a past revision. Events leave
 * the window when they are older than `windowMs` (the history window of spec 8) or past `maxEvents`.
 */
export class EventWindow {
  private events: CacheEvent[] = [];
  private times: number[] = [];
  private head = 0;
  /** Watches may start at any revision >= this (events after it are all here). */
  oldestResumable = 0;

  constructor(private readonly windowMs: number, private readonly maxEvents: number) {}

  push(e: CacheEvent, now = Date.now()): void {
    this.events.push(e);
    this.times.push(now);
    this.trim(now);
  }

  /** Drops everything and starts over at `revision` (after a relist). */
  reset(revision: number): void {
    this.events = [];
    this.times = [];
    this.head = 0;
    this.oldestResumable = revision;
  }

  private trim(now: number): void {
    while (this.head < this.events.length && (this.events.length - this.head > this.maxEvents || (this.times[this.head] as number) < now - this.windowMs)) {
      this.oldestResumable = (this.events[this.head] as CacheEvent).revision;
      // Let go of the event now: the array is compacted only when half of it is dead, and until then a
      // full window of dead events (their objects) would stay reachable.
      (this.events as (CacheEvent | undefined)[])[this.head] = undefined;
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Events with revision > `revision`, in order; undefined when the window no longer reaches back to it. */
  since(revision: number): CacheEvent[] | undefined {
    if (revision < this.oldestResumable) return undefined;
    // Binary search for the first event after `revision`.
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as CacheEvent).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  get size(): number {
    return this.events.length - this.head;
  }
}
