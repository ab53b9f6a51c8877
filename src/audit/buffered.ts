/**
 * Batching in front of an audit backend (the reference's "batch" mode): requests only append events to a
 * bounded buffer and return; a background pump hands them to the backend in batches, by size or after a
 * wait, optionally throttled. A slow or failing backend therefore never slows or fails a request: when the
 * buffer is full, new events are dropped and counted.
 */
import type { AuditEvent, AuditSink } from './types.js';
import { DropReporter, interruptibleSleep, realTimers, type AuditTimers } from './timers.js';

export interface BatchSettings {
  /** Events held while waiting for the backend; more are dropped. */
  bufferSize: number;
  maxBatchSize: number;
  /** A partial batch is sent once this long has passed since the pump last went idle. */
  maxBatchWaitMs: number;
  throttleEnable: boolean;
  /** Batches per second, and how many may go at once after a quiet time. */
  throttleQPS: number;
  throttleBurst: number;
  /**
   * Hand the next batch to the backend before the previous one has settled. The webhook: concurrent calls.
   * The log file too: its writer keeps lines in the order they were handed over and writes once per turn,
   * so waiting for each write before handing over the next event would deliver one event per turn and,
   * under load, fill the buffer and drop events.
   */
  asyncDelegate: boolean;
}

/** The reference's defaults for `--audit-webhook-batch-*`. */
export const WEBHOOK_BATCH_DEFAULTS: Readonly<BatchSettings> = Object.freeze({
  bufferSize: 10_000,
  maxBatchSize: 400,
  maxBatchWaitMs: 30_000,
  throttleEnable: true,
  throttleQPS: 10,
  throttleBurst: 15,
  asyncDelegate: true,
});

/** The reference's defaults for `--audit-log-batch-*`: a log write is cheap, so one event per write, no throttle. */
export const LOG_BATCH_DEFAULTS: Readonly<BatchSettings> = Object.freeze({
  bufferSize: 10_000,
  maxBatchSize: 1,
  maxBatchWaitMs: 0,
  throttleEnable: false,
  throttleQPS: 0,
  throttleBurst: 0,
  asyncDelegate: true,
});

type BatchField = Exclude<keyof BatchSettings, 'asyncDelegate'>;
/** What the `--audit-<backend>-batch-*` flags set; the rest comes from the backend's defaults. */
export type BatchFlagSettings = Partial<Pick<BatchSettings, BatchField>>;

const BATCH_FLAG: Record<BatchField, string> = {
  bufferSize: 'buffer-size',
  maxBatchSize: 'max-size',
  maxBatchWaitMs: 'max-wait',
  throttleEnable: 'throttle-enable',
  throttleQPS: 'throttle-qps',
  throttleBurst: 'throttle-burst',
};

/** The flag that sets a batch field of `backend` (`--audit-webhook-batch-max-size`). */
export const batchFlagName = (backend: 'webhook' | 'log', field: BatchField): string => `--audit-${backend}-batch-${BATCH_FLAG[field]}`;

/**
 * The reference's checks of batch settings; `name(field)` says where the value came from (a flag). Sizes
 * must be positive; the throttle's rate and burst only when it is on; a negative wait means nothing.
 */
export function checkBatchSettings(s: BatchSettings, name: (field: BatchField) => string): void {
  const positiveInt = (field: 'bufferSize' | 'maxBatchSize') => {
    if (!Number.isInteger(s[field]) || s[field] <= 0) throw new Error(`${name(field)}: invalid value ${s[field]}: must be a positive integer`);
  };
  positiveInt('bufferSize');
  positiveInt('maxBatchSize');
  if (!(s.maxBatchWaitMs >= 0)) throw new Error(`${name('maxBatchWaitMs')}: invalid value ${s.maxBatchWaitMs}ms: must not be negative`);
  if (s.throttleEnable) {
    if (!(s.throttleQPS > 0) || !Number.isFinite(s.throttleQPS)) throw new Error(`${name('throttleQPS')}: invalid value ${s.throttleQPS}: must be a positive number when the throttle is enabled`);
    if (!Number.isInteger(s.throttleBurst) || s.throttleBurst <= 0) throw new Error(`${name('throttleBurst')}: invalid value ${s.throttleBurst}: must be a positive integer when the throttle is enabled`);
  }
}

/**
 * The settings of the log backend's `batch` mode (`--audit-log-mode=batch`): the `--audit-log-batch-*`
 * flags over the reference's log defaults, checked with errors naming those flags.
 */
export function logBatchSettings(flags: BatchFlagSettings = {}): BatchSettings {
  const settings: BatchSettings = { ...LOG_BATCH_DEFAULTS, ...flags };
  checkBatchSettings(settings, (f) => batchFlagName('log', f));
  return settings;
}

/**
 * A token bucket (the reference's throttle): starts full with `burst` tokens, refills at `qps`. `take`
 * reserves a token and says how long to wait before using it (0 when one is there).
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(private readonly qps: number, private readonly burst: number, now: number) {
    this.tokens = burst;
    this.at = now;
  }

  take(now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.qps) / 1000);
    this.at = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }
}

export interface BufferedSinkEnv {
  /** Which backend this buffers for (`webhook`, `log`), in log lines. */
  name?: string;
  log?: (msg: string) => void;
  timers?: AuditTimers;
  /** How long `shutdown` may spend flushing before the rest is dropped. Default 30 s. */
  shutdownTimeoutMs?: number;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/**
 * A copy the caller's later changes cannot reach: the chain reuses one event for every stage of a request,
 * setting top-level fields and filling `objectRef` in place (the maps it replaces need no copy).
 */
function detach(e: AuditEvent): AuditEvent {
  const copy = { ...e };
  if (e.objectRef) copy.objectRef = { ...e.objectRef };
  if (e.annotations) copy.annotations = { ...e.annotations };
  return copy;
}

export class BufferedSink implements AuditSink {
  /**
   * Events lost here: the buffer was full, they came after shutdown, the shutdown deadline passed, or the
   * backend threw. The metrics issue exports it (the reference's apiserver_audit_error_total{plugin="buffered"}).
   */
  droppedEvents = 0;

  private readonly settings: BatchSettings;
  private readonly timers: AuditTimers;
  private readonly drops: DropReporter;
  private readonly throttle: TokenBucket | undefined;
  private readonly shutdownTimeoutMs: number;
  /** At most this many batches at the backend at once, so memory stays bounded however slow it is. */
  private readonly maxInFlight: number;
  private queue: AuditEvent[] = [];
  private head = 0;
  private waitTimer: unknown;
  private waitExpired = false;
  private pumping = false;
  private pumpScheduled = false;
  private stopping = false;
  private closing: Promise<void> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private nap: { done: Promise<void>; cut(): void } | undefined;

  constructor(
    private readonly inner: AuditSink,
    settings: BatchSettings,
    env: BufferedSinkEnv = {},
  ) {
    checkBatchSettings(settings, (f) => `audit batch ${f}`);
    this.settings = { ...settings };
    this.timers = env.timers ?? realTimers;
    this.drops = new DropReporter(`audit buffer (${env.name ?? 'backend'})`, env.log ?? (() => undefined), this.timers);
    this.throttle = settings.throttleEnable ? new TokenBucket(settings.throttleQPS, settings.throttleBurst, this.timers.now()) : undefined;
    this.shutdownTimeoutMs = env.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    this.maxInFlight = settings.asyncDelegate ? Math.max(1, Math.ceil(settings.bufferSize / settings.maxBatchSize)) : 1;
  }

  /** Events waiting in the buffer (not those already at the backend). */
  get buffered(): number {
    return this.queue.length - this.head;
  }

  processEvents(events: readonly AuditEvent[]): void {
    try {
      if (this.stopping) return this.lose(events.length, 'the audit backend is shut down');
      const room = this.settings.bufferSize - this.buffered;
      const taken = Math.min(room, events.length);
      for (let i = 0; i < taken; i++) this.queue.push(detach(events[i]!));
      if (taken < events.length) this.lose(events.length - taken, `the buffer of ${this.settings.bufferSize} events is full`);
      if (taken > 0) this.schedule();
    } catch (e) {
      // Nothing above should throw; if it does, the request goes on and the loss is counted.
      this.lose(events.length, `unexpected error: ${(e as Error).message}`);
    }
  }

  shutdown(): Promise<void> {
    this.closing ??= this.close();
    return this.closing;
  }

  private async close(): Promise<void> {
    this.stopping = true;
    this.clearWait();
    this.nap?.cut();
    const deadline = interruptibleSleep(this.timers, this.shutdownTimeoutMs);
    const flushed = this.flushAll().then(() => true);
    const inTime = await Promise.race([flushed, deadline.done.then(() => false)]);
    deadline.cut();
    if (!inTime) {
      const left = this.buffered;
      this.queue = [];
      this.head = 0;
      if (left > 0) this.lose(left, `the shutdown deadline of ${this.shutdownTimeoutMs}ms passed before they were sent`);
    }
    this.drops.flush();
    try {
      await this.inner.shutdown();
    } catch {
      // The backend's own shutdown problems are its own; this buffer is done either way.
    }
  }

  private async flushAll(): Promise<void> {
    this.schedule();
    while (this.pumping || this.pumpScheduled || this.buffered > 0 || this.inFlight.size > 0) {
      if (this.inFlight.size > 0) await Promise.race(this.inFlight);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private lose(count: number, why: string): void {
    if (count <= 0) return;
    this.droppedEvents += count;
    this.drops.lost(count, why);
  }

  /** Arranges for the pump to run when a batch is due: now if one is full (or we are stopping), else after the wait. */
  private schedule(): void {
    if (this.buffered >= this.settings.maxBatchSize || this.waitExpired || this.stopping || this.settings.maxBatchWaitMs === 0) {
      if (this.pumping || this.pumpScheduled) return;
      this.pumpScheduled = true;
      setImmediate(() => {
        this.pumpScheduled = false;
        void this.pump();
      });
    } else if (this.waitTimer === undefined && this.buffered > 0) {
      this.waitTimer = this.timers.setTimeout(() => {
        this.waitTimer = undefined;
        this.waitExpired = true;
        this.schedule();
      }, this.settings.maxBatchWaitMs);
    }
  }

  private clearWait(): void {
    if (this.waitTimer !== undefined) this.timers.clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
  }

  private due(): boolean {
    const n = this.buffered;
    if (n === 0) return false;
    return n >= this.settings.maxBatchSize || this.waitExpired || this.stopping || this.settings.maxBatchWaitMs === 0;
  }

  /** The one background loop: sends due batches, waiting for the throttle and for room at the backend. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.due()) {
        if (this.throttle && !this.stopping) {
          const wait = this.throttle.take(this.timers.now());
          if (wait > 0) {
            this.nap = interruptibleSleep(this.timers, wait);
            await this.nap.done;
            this.nap = undefined;
          }
        }
        while (this.inFlight.size >= this.maxInFlight) await Promise.race(this.inFlight);
        const batch = this.take();
        if (batch.length === 0) break;
        const delivery = this.deliver(batch);
        if (!this.settings.asyncDelegate) await delivery;
      }
    } finally {
      this.pumping = false;
      this.waitExpired = false;
      // Events that came while the last batch went out and do not make a full batch wait for the timer.
      if (this.buffered > 0) this.schedule();
    }
  }

  private take(): AuditEvent[] {
    const end = Math.min(this.queue.length, this.head + this.settings.maxBatchSize);
    const batch = this.queue.slice(this.head, end);
    this.head = end;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    // A new wait starts with each batch taken, as the reference's collection loop does.
    this.clearWait();
    return batch;
  }

  private deliver(batch: AuditEvent[]): Promise<void> {
    let result: void | Promise<void>;
    try {
      result = this.inner.processEvents(batch);
    } catch (e) {
      this.lose(batch.length, `the backend failed: ${(e as Error).message}`);
      return Promise.resolve();
    }
    if (!result || typeof (result as Promise<void>).then !== 'function') return Promise.resolve();
    const tracked: Promise<void> = (result as Promise<void>).then(
      () => undefined,
      (e: unknown) => this.lose(batch.length, `the backend failed: ${(e as Error)?.message ?? String(e)}`),
    );
    const settled = tracked.finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
    return settled;
  }
}
