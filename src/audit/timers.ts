/**
 * Time as the audit backends see it: a clock and one-shot timers. The real one never keeps the process
 * alive (a pending batch timer must not delay an exit: shutdown flushes instead); tests pass a fake.
 */
export interface AuditTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: AuditTimers = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A promise that settles after `ms`, or at once when `cut` is called (shutdown ends waits early). */
export function interruptibleSleep(timers: AuditTimers, ms: number): { done: Promise<void>; cut(): void } {
  let cut!: () => void;
  const done = new Promise<void>((resolve) => {
    const handle = timers.setTimeout(() => resolve(), ms);
    cut = () => {
      timers.clearTimeout(handle);
      resolve();
    };
  });
  return { done, cut };
}

/** How often a backend says it is losing events: the first loss at once, then at most once per period. */
export const DROP_REPORT_PERIOD_MS = 10_000;

/**
 * Counts lost events and logs about them without flooding the log: a failing backend under load loses
 * thousands of events a second, and one line per batch would drown everything else.
 */
export class DropReporter {
  private unreported = 0;
  private lastWhy = '';
  private lastReportAt = -Infinity;
  private pending: unknown;

  constructor(
    private readonly what: string,
    private readonly log: (msg: string) => void,
    private readonly timers: AuditTimers,
  ) {}

  lost(count: number, why: string): void {
    this.unreported += count;
    this.lastWhy = why;
    const wait = this.lastReportAt + DROP_REPORT_PERIOD_MS - this.timers.now();
    if (wait <= 0) this.report();
    else this.pending ??= this.timers.setTimeout(() => this.report(), wait);
  }

  /** Says what is still unreported (at shutdown). */
  flush(): void {
    if (this.unreported > 0) this.report();
  }

  private report(): void {
    if (this.pending !== undefined) this.timers.clearTimeout(this.pending);
    this.pending = undefined;
    if (this.unreported === 0) return;
    this.lastReportAt = this.timers.now();
    try {
      this.log(`${this.what}: ${this.unreported} audit event(s) lost: ${this.lastWhy}`);
    } catch {
      // A broken logger must not turn a lost event into a failed request.
    }
    this.unreported = 0;
  }
}
