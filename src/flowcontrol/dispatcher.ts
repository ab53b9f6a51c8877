/**
 * Seats, queues and fair dispatch for the priority levels.
 *
 * Each limited level keeps `min` seats (nominal minus lendable) for itself; the seats every level may lend
 * make a shared pool that any level may draw on up to its `max` while the pool has room (the reference
 * moves lent seats between levels every few seconds from observed demand; this does the same at each
 * request, so an idle level's lendable seats serve a busy one at once and return when released).
 *
 * A request that finds no seat waits in a queue of its level: its flow is dealt a hand of queues (shuffle
 * sharding) and it joins the shortest. A freed seat goes to the queue that has had the least service
 * (start-time fair queuing counted in requests), so a flow that sends many requests waits behind its own.
 */
import { tooManyRequests } from '../errors/index.js';
import type { LevelLimits, LevelSpec } from './levels.js';
import { dealHand, flowHash } from './shuffle-shard.js';

export interface Clock {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
export const systemClock: Clock = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };

const REJECT_MESSAGE = 'Too many requests, please try again later.';
/** Seconds the 429 asks a client to wait before trying again. */
const RETRY_AFTER_SECONDS = 1;

interface Waiter {
  resolve(level: Level): void;
  reject(e: unknown): void;
  timer: unknown;
  queue: Queue;
  /** Arrival order in the level: between queues with equal service, the older request goes first. */
  seq: number;
}

class Queue {
  waiting: Waiter[] = [];
  head = 0;
  /** Virtual service received (one unit per dispatched request). */
  work = 0;
  headSeq(): number {
    return (this.waiting[this.head] as Waiter).seq;
  }
  get length(): number {
    return this.waiting.length - this.head;
  }
  shift(): Waiter | undefined {
    const w = this.waiting[this.head];
    if (w === undefined) return undefined;
    this.waiting[this.head++] = undefined as unknown as Waiter;
    if (this.head > 64 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return w;
  }
  remove(w: Waiter): void {
    const i = this.waiting.indexOf(w, this.head);
    if (i >= 0) this.waiting.splice(i, 1);
  }
}

/** One priority level at run time. Its object is also the ticket a request holds while it executes. */
export class Level {
  inUse = 0;
  waiting = 0;
  queues: Queue[] = [];
  /** Virtual time: the service count of the queue served last. */
  private virtualTime = 0;
  private arrivals = 0;
  limits: LevelLimits = { nominal: 0, min: 0, max: 0 };
  retired = false;

  constructor(public spec: LevelSpec, private readonly owner: Dispatcher) {}

  get name(): string {
    return this.spec.name;
  }
  get uid(): string {
    return this.spec.uid;
  }

  /** Ends a request's hold on its seat (once per admitted request). */
  release(): void {
    this.owner.release(this);
  }

  /** Matches the queues to the spec; returns the waiters that no longer have a queue (the level stopped queuing). */
  resize(): Waiter[] {
    const want = this.spec.exempt || this.spec.reject ? 0 : this.spec.queues;
    if (this.queues.length === want) return [];
    const waiters = this.queues.flatMap((q) => q.waiting.slice(q.head));
    this.queues = Array.from({ length: want }, () => new Queue());
    if (want === 0) return waiters;
    // Requests already waiting keep their order; they are spread again over the new queues.
    waiters.forEach((w, i) => {
      const q = this.queues[i % want] as Queue;
      w.queue = q;
      q.waiting.push(w);
    });
    return [];
  }

  enqueue(flowKey: string, w: Omit<Waiter, 'queue' | 'seq'>): Waiter | undefined {
    const hand = dealHand(flowHash(flowKey), this.queues.length, this.spec.handSize);
    let best: Queue | undefined;
    for (const i of hand) {
      const q = this.queues[i] as Queue;
      if (!best || q.length < best.length) best = q;
    }
    if (!best || best.length >= this.spec.queueLengthLimit) return undefined;
    // A queue that was idle starts at the current virtual time: it cannot bank service it did not use.
    if (best.length === 0 && best.work < this.virtualTime) best.work = this.virtualTime;
    const waiter = { ...w, queue: best, seq: this.arrivals++ };
    best.waiting.push(waiter);
    this.waiting++;
    return waiter;
  }

  /** The waiter the fair order serves next, taken off its queue. */
  next(): Waiter | undefined {
    let best: Queue | undefined;
    for (const q of this.queues) {
      if (q.length > 0 && (!best || q.work < best.work || (q.work === best.work && q.headSeq() < best.headSeq()))) best = q;
    }
    if (!best) return undefined;
    this.virtualTime = best.work;
    best.work += 1;
    this.waiting--;
    return best.shift();
  }

  removeWaiter(w: Waiter): void {
    w.queue.remove(w);
    this.waiting--;
  }
}

export interface DispatcherOptions {
  /** The server's concurrency limit, which the levels share. */
  serverLimit: number;
  /** The longest a request waits in a queue before a 429. */
  queueWaitMs: number;
  clock?: Clock;
}

export class Dispatcher {
  private levels = new Map<string, Level>();
  private pool = 0;
  private poolInUse = 0;
  private readonly clock: Clock;

  constructor(private readonly opts: DispatcherOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  get serverLimit(): number {
    return this.opts.serverLimit;
  }

  level(name: string): Level | undefined {
    return this.levels.get(name);
  }

  /** Applies a new set of levels: kept levels keep their seats and queues; removed ones refuse their waiters. */
  configure(specs: readonly LevelSpec[], limits: Map<string, LevelLimits>): void {
    const next = new Map<string, Level>();
    for (const spec of specs) {
      const level = this.levels.get(spec.name) ?? new Level(spec, this);
      level.spec = spec;
      level.limits = limits.get(spec.name) ?? { nominal: 0, min: 0, max: 0 };
      for (const orphan of level.resize()) this.refuse(level, orphan);
      next.set(spec.name, level);
    }
    for (const [name, old] of this.levels) {
      if (next.has(name)) continue;
      old.retired = true;
      for (const q of old.queues) for (let w = q.shift(); w; w = q.shift()) this.refuse(old, w);
    }
    this.levels = next;
    this.pool = 0;
    this.poolInUse = 0;
    for (const l of next.values()) {
      if (l.spec.exempt) continue;
      this.pool += l.limits.nominal - l.limits.min;
      this.poolInUse += Math.max(0, l.inUse - l.limits.min);
    }
    this.dispatchWaiting();
  }

  private canDispatch(l: Level): boolean {
    if (l.retired) return false;
    return l.inUse < l.limits.min || (l.inUse < l.limits.max && this.poolInUse < this.pool);
  }

  private take(l: Level): void {
    if (l.inUse >= l.limits.min && !l.spec.exempt && !l.retired) this.poolInUse++;
    l.inUse++;
  }

  /** Takes a seat at `level` if one is free and nobody waits there before this request (allocates nothing). */
  tryAcquire(level: Level): boolean {
    if (level.spec.exempt) {
      level.inUse++;
      return true;
    }
    if (level.waiting > 0 || !this.canDispatch(level)) return false;
    this.take(level);
    return true;
  }

  /**
   * Queues a request of flow `flowKey` at `level` until a seat is free; a 429 StatusError when the level
   * rejects instead of queuing, when the flow's shortest queue is full, or when the wait times out.
   */
  wait(level: Level, flowKey: string): Promise<Level> {
    if (level.spec.reject || level.retired) return Promise.reject(tooManyRequests(REJECT_MESSAGE, RETRY_AFTER_SECONDS));
    return new Promise<Level>((resolve, reject) => {
      const waiter = level.enqueue(flowKey, { resolve, reject, timer: undefined });
      if (!waiter) return reject(tooManyRequests(REJECT_MESSAGE, RETRY_AFTER_SECONDS));
      waiter.timer = this.clock.setTimeout(() => {
        level.removeWaiter(waiter);
        reject(tooManyRequests(REJECT_MESSAGE, RETRY_AFTER_SECONDS));
      }, this.opts.queueWaitMs);
    });
  }

  release(l: Level): void {
    l.inUse--;
    if (!l.spec.exempt && !l.retired && l.inUse >= l.limits.min && this.poolInUse > 0) this.poolInUse--;
    if (l.spec.exempt) return;
    // Most releases find nobody waiting anywhere.
    if (l.waiting > 0 && this.canDispatch(l)) this.dispatchFrom(l);
    if (this.anyWaiting) this.dispatchWaiting();
  }

  private get anyWaiting(): boolean {
    for (const l of this.levels.values()) if (l.waiting > 0) return true;
    return false;
  }

  private dispatchFrom(l: Level): void {
    while (l.waiting > 0 && this.canDispatch(l)) {
      const w = l.next();
      if (!w) return;
      this.clock.clearTimeout(w.timer);
      this.take(l);
      w.resolve(l);
    }
  }

  /** Gives free seats to waiting requests, the levels taking turns so that no one level drains the pool. */
  private dispatchWaiting(): void {
    for (let progress = true; progress; ) {
      progress = false;
      for (const l of this.levels.values()) {
        if (l.waiting === 0 || !this.canDispatch(l)) continue;
        const w = l.next();
        if (!w) continue;
        this.clock.clearTimeout(w.timer);
        this.take(l);
        w.resolve(l);
        progress = true;
      }
    }
  }

  private refuse(l: Level, w: Waiter): void {
    l.waiting--;
    this.clock.clearTimeout(w.timer);
    w.reject(tooManyRequests(REJECT_MESSAGE, RETRY_AFTER_SECONDS));
  }

  /** Seats in use and requests waiting, per level (tests and diagnostics). */
  snapshot(): Record<string, { inUse: number; waiting: number } & LevelLimits> {
    const out: Record<string, { inUse: number; waiting: number } & LevelLimits> = {};
    for (const l of this.levels.values()) out[l.name] = { inUse: l.inUse, waiting: l.waiting, ...l.limits };
    return out;
  }
}
