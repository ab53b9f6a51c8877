import { DEFAULT_COMPACT_INTERVAL_MS, DEFAULT_HISTORY_WINDOW_MS, type HistoryOptions } from './backend.js';

/**
 * Turns the time-based history window into a revision to compact at. Revisions carry no timestamps, so the
 * compactor samples (time, current revision) each time it runs and compacts at the newest sample that is older
 * than the window. Worked example with a 5-minute window and a 1-minute interval: samples at 0:00 (rev 10),
 * 1:00 (rev 50), ..., 6:00 (rev 400); at 6:00 the newest sample at least 5 minutes old is 1:00, so everything
 * at or before revision 50 goes, and any revision written in the last 5 minutes stays readable.
 */
export class HistoryWindow {
  readonly windowMs: number;
  readonly intervalMs: number;
  private samples: { at: number; revision: number }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(opts: HistoryOptions = {}) {
    this.windowMs = opts.windowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    this.intervalMs = opts.compactIntervalMs ?? DEFAULT_COMPACT_INTERVAL_MS;
  }

  /** Records the current revision; returns the revision that has left the window (0 when none). */
  sample(revision: number, now = Date.now()): number {
    this.samples.push({ at: now, revision });
    let target = 0;
    while (this.samples.length > 0 && (this.samples[0] as { at: number }).at <= now - this.windowMs) {
      target = (this.samples.shift() as { revision: number }).revision;
    }
    return target;
  }

  /** Runs `tick` every interval (unref'd, so it never keeps the process alive). */
  start(tick: () => Promise<void>): void {
    if (this.intervalMs <= 0 || this.timer) return;
    let running = false;
    this.timer = setInterval(() => {
      if (running) return;
      running = true;
      tick()
        .catch(() => undefined) // a failed compaction is retried on the next tick
        .finally(() => (running = false));
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
