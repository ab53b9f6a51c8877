/** Small helpers shared by the benchmarks: percentiles and fixed-duration concurrent loops. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export interface LoopResult {
  ops: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Runs `op` from `concurrency` workers for `ms` milliseconds; records each op's latency in ms. */
export async function runFor(
  ms: number,
  concurrency: number,
  op: (worker: number, i: number) => Promise<unknown>,
): Promise<LoopResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < end; i++) {
        const t = performance.now();
        try {
          await op(w, i);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
  };
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-';
