/**
 * Pure pieces of the soak benchmark (bench/soak.ts): outcome classes, per-minute latency books, the RSS trend
 * (least squares after a warm-up) and watch-event line parsing. Kept free of I/O so they have table tests.
 */
import { percentile } from './stats.js';

/** 2xx is ok; 404 and 409 come from races between the soak's own clients; everything else is an error. */
export type Outcome = 'ok' | 'expected' | 'error';
export function classify(status: number): Outcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 404 || status === 409) return 'expected';
  return 'error';
}

export interface Fit {
  slope: number;
  intercept: number;
  /** Coefficient of determination; NaN when y does not vary. */
  r2: number;
}

/** Ordinary least squares of y over x; NaN slope with fewer than two distinct x. */
export function leastSquares(points: ReadonlyArray<{ x: number; y: number }>): Fit {
  const n = points.length;
  let sx = 0, sy = 0;
  for (const p of points) (sx += p.x), (sy += p.y);
  const mx = sx / n, my = sy / n;
  let sxx = 0, sxy = 0, syy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
    syy += (p.y - my) ** 2;
  }
  if (n < 2 || sxx === 0) return { slope: NaN, intercept: NaN, r2: NaN };
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? NaN : (sxy * sxy) / (sxx * syy) };
}

export interface RssTrend {
  samples: number;
  fromSeconds: number;
  meanMiB: number;
  slopeMiBPer10Min: number;
  r2: number;
  /** A slope above this counts as rising: the larger of 2 MiB and 1 % of the mean, per 10 minutes. */
  thresholdMiBPer10Min: number;
  verdict: 'flat' | 'rising' | 'too few samples';
}

/** The RSS slope after `warmupSeconds`; needs at least 3 samples past the warm-up to give a verdict. */
export function rssTrend(samples: ReadonlyArray<{ t: number; rssMiB: number }>, warmupSeconds: number): RssTrend {
  const kept = samples.filter((s) => s.t >= warmupSeconds && Number.isFinite(s.rssMiB));
  const meanMiB = kept.reduce((a, s) => a + s.rssMiB, 0) / (kept.length || 1);
  const fit = leastSquares(kept.map((s) => ({ x: s.t, y: s.rssMiB })));
  const slopeMiBPer10Min = fit.slope * 600;
  const thresholdMiBPer10Min = Math.max(2, meanMiB * 0.01);
  const verdict = kept.length < 3 || !Number.isFinite(slopeMiBPer10Min) ? 'too few samples' : slopeMiBPer10Min > thresholdMiBPer10Min ? 'rising' : 'flat';
  return { samples: kept.length, fromSeconds: warmupSeconds, meanMiB, slopeMiBPer10Min, r2: fit.r2, thresholdMiBPer10Min, verdict };
}

/** The order verbs are shown in: writes in their life-cycle order, then reads. */
export const VERB_ORDER = ['create', 'update', 'patch-merge', 'patch-apply', 'delete', 'get', 'list', 'list-page'];

export interface VerbTotals {
  verb: string;
  ok: number;
  expected: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
}

export interface MinuteRow {
  minute: number;
  verb: string;
  n: number;
  p50: number;
  p99: number;
}

/**
 * Latencies of answered requests (ok and expected outcomes) per verb and per minute since `startMs`;
 * outcome counts per verb. Percentiles are computed once, at the end.
 */
export class LatencyBook {
  private readonly minutes: Array<Map<string, number[]>> = [];
  private readonly counts = new Map<string, { ok: number; expected: number; errors: number }>();

  /** `lastMinute`: requests that finish after the run's end (in flight at the stop) count in its last minute. */
  constructor(private readonly startMs: number, private readonly lastMinute = Infinity) {}

  record(verb: string, outcome: Outcome, ms: number, nowMs: number): void {
    let c = this.counts.get(verb);
    if (!c) this.counts.set(verb, (c = { ok: 0, expected: 0, errors: 0 }));
    if (outcome === 'error') return void c.errors++;
    if (outcome === 'ok') c.ok++;
    else c.expected++;
    const m = Math.min(this.lastMinute, Math.max(0, Math.floor((nowMs - this.startMs) / 60_000)));
    const map = (this.minutes[m] ??= new Map());
    let list = map.get(verb);
    if (!list) map.set(verb, (list = []));
    list.push(ms);
  }

  /** Verbs in VERB_ORDER first, then any others in the order they first ran. */
  verbs(): string[] {
    const rank = (v: string) => (VERB_ORDER.indexOf(v) + VERB_ORDER.length + 1) % (VERB_ORDER.length + 1);
    return [...this.counts.keys()].sort((a, b) => rank(a) - rank(b));
  }

  minuteRows(): MinuteRow[] {
    const rows: MinuteRow[] = [];
    this.minutes.forEach((map, minute) => {
      for (const [verb, list] of map) {
        const sorted = [...list].sort((a, b) => a - b);
        rows.push({ minute, verb, n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) });
      }
    });
    return rows;
  }

  totals(): VerbTotals[] {
    return this.verbs().map((verb) => {
      const c = this.counts.get(verb)!;
      const all: number[] = [];
      for (const map of this.minutes) for (const v of map?.get(verb) ?? []) all.push(v);
      all.sort((a, b) => a - b);
      return { verb, ...c, p50: percentile(all, 50), p99: percentile(all, 99), max: all.length ? all[all.length - 1]! : NaN };
    });
  }
}

/** One row per minute, one p99 column per verb (`-` where the verb did not run that minute). */
export function p99Table(rows: readonly MinuteRow[], verbs: readonly string[], fmt: (n: number) => string): Record<string, string>[] {
  const byMinute = new Map<number, Record<string, string>>();
  for (const r of rows) {
    let line = byMinute.get(r.minute);
    if (!line) {
      line = { minute: String(r.minute + 1), requests: '0' };
      for (const v of verbs) line[v] = '-';
      byMinute.set(r.minute, line);
    }
    line[r.verb] = fmt(r.p99);
    line.requests = String(Number(line.requests) + r.n);
  }
  return [...byMinute.keys()].sort((a, b) => a - b).map((m) => byMinute.get(m)!);
}

export interface WatchLine {
  type: string;
  /** The object's metadata.resourceVersion; NaN when absent. */
  rv: number;
  /** An ERROR event's Status code. */
  code?: number;
}

const TYPE_AT_START = /^\{"type":"([A-Z]+)"/;
const RESOURCE_VERSION = /"resourceVersion":"(\d+)"/;

/**
 * Reads the type and resourceVersion of one watch event line without decoding the object (the load generator
 * shares the machine with the server); falls back to JSON.parse when the line does not start with the type.
 */
export function parseWatchLine(line: string): WatchLine | undefined {
  const t = TYPE_AT_START.exec(line);
  if (t) {
    const type = t[1]!;
    const rv = RESOURCE_VERSION.exec(line);
    const out: WatchLine = { type, rv: rv ? Number(rv[1]) : NaN };
    if (type === 'ERROR') {
      const code = /"code":(\d+)/.exec(line);
      if (code) out.code = Number(code[1]);
    }
    return out;
  }
  try {
    const e = JSON.parse(line);
    if (typeof e?.type !== 'string') return undefined;
    const out: WatchLine = { type: e.type, rv: Number(e.object?.metadata?.resourceVersion ?? NaN) };
    if (e.type === 'ERROR' && typeof e.object?.code === 'number') out.code = e.object.code;
    return out;
  } catch {
    return undefined;
  }
}

export interface WatchCount {
  expected: number;
  received: number;
  /** Relisted after 410 Gone: its count no longer relates to the writes. */
  excluded: boolean;
}

/** Events missing (fewer than writes) and extra (duplicates, or writes whose answer was lost) over counted watchers. */
export function watchShortfall(watchers: readonly WatchCount[]): { counted: number; expected: number; received: number; missing: number; extra: number; watchersShort: number } {
  let counted = 0, expected = 0, received = 0, missing = 0, extra = 0, watchersShort = 0;
  for (const w of watchers) {
    if (w.excluded) continue;
    counted++;
    expected += w.expected;
    received += w.received;
    if (w.received < w.expected) (missing += w.expected - w.received), watchersShort++;
    else extra += w.received - w.expected;
  }
  return { counted, expected, received, missing, extra, watchersShort };
}
