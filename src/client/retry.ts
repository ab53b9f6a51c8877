/** Backoff and retry helpers for callers of the client (controllers, the CLI). */
import { isConflict } from './status-error.js';

export interface BackoffOptions {
  /** First delay in ms. */
  initialMs: number;
  /** Multiplier per step (>= 1). */
  factor: number;
  /** Fraction of random extra delay, 0 = none (0.1 adds up to 10 %). */
  jitter?: number;
  /** How many attempts in all (>= 1). */
  steps: number;
  /** No single delay exceeds this. */
  capMs?: number;
}

/** The reference's default for conflict retries: 5 tries, 10 ms apart, plus up to 10 % jitter. */
export const DEFAULT_RETRY: BackoffOptions = { initialMs: 10, factor: 1, jitter: 0.1, steps: 5 };
/** The reference's default for retries on any error: 4 tries, 10 ms growing by 5x. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 10, factor: 5, jitter: 0.1, steps: 4 };

/** Pure: the delay before retry `attempt` (0-based), before jitter. */
export function backoffDelay(b: Pick<BackoffOptions, 'initialMs' | 'factor' | 'capMs'>, attempt: number): number {
  const d = b.initialMs * b.factor ** attempt;
  return b.capMs !== undefined ? Math.min(d, b.capMs) : d;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
export { sleep };

/**
 * Runs `fn` until it returns true or `retriable(error)` says no; between attempts waits per `b`. Runs out
 * of steps: the last error is thrown (or, when `fn` kept returning false, a timeout Error).
 */
export async function backoff(
  b: BackoffOptions,
  fn: () => Promise<boolean>,
  retriable: (e: unknown) => boolean = () => false,
  signal?: AbortSignal,
): Promise<void> {
  if (b.steps < 1 || b.factor < 1 || b.initialMs < 0) throw new Error('backoff: steps must be >= 1, factor >= 1 and initialMs >= 0');
  let last: unknown;
  for (let attempt = 0; attempt < b.steps; attempt++) {
    if (attempt > 0) {
      const base = backoffDelay(b, attempt - 1);
      await sleep(base + base * (b.jitter ?? 0) * Math.random(), signal);
    }
    try {
      if (await fn()) return;
      last = undefined;
    } catch (e) {
      if (!retriable(e)) throw e;
      last = e;
    }
  }
  throw last ?? new Error(`backoff: condition not met after ${b.steps} attempts`);
}

/**
 * Runs `fn` again while it fails with a 409 Conflict (a stale resourceVersion), re-reading each time
 * is `fn`'s job; other errors and the last conflict are thrown as they are.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, b: BackoffOptions = DEFAULT_RETRY): Promise<T> {
  let result: T | undefined;
  await backoff(
    b,
    async () => {
      result = await fn();
      return true;
    },
    isConflict,
  );
  return result as T;
}
