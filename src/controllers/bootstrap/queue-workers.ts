/**
 * The loop the controllers of this task share: workers take keys from a WorkQueue, failures come back after
 * the queue's rate-limited delay, and aborting the context shuts the queue and lets the workers return.
 * (Kept here until the controller manager offers a common helper; the other folders of this task import it.)
 */
import { WorkQueue, type KubeObject, type SharedInformer } from '../../client/index.js';
import type { ControllerContext } from '../contract.js';

/** A failure that is retried like any other but not worth a log line (an expected wait, e.g. for access). */
export class QuietRetry extends Error {}

/** Runs `workers` workers over `queue` until `ctx.signal` aborts; resolves once every worker has returned. */
export async function runQueueWorkers<K>(ctx: ControllerContext, queue: WorkQueue<K>, workers: number, handle: (key: K) => Promise<void>): Promise<void> {
  const stop = () => queue.shutDown();
  if (ctx.signal.aborted) stop();
  else ctx.signal.addEventListener('abort', stop, { once: true });
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        if (ctx.signal.aborted) continue;
        await handle(key);
        queue.forget(key);
      } catch (e) {
        if (!ctx.signal.aborted) {
          if (!(e instanceof QuietRetry)) ctx.log(`${String(key)}: ${e instanceof Error ? e.message : String(e)}; retrying`);
          queue.addRateLimited(key);
        }
      } finally {
        queue.done(key);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
  } finally {
    ctx.signal.removeEventListener('abort', stop);
  }
}

/**
 * Starts the informers (idempotent: a manager may have started them already) and waits for their first
 * lists; false when the context aborted first.
 */
export async function startAndSync(ctx: ControllerContext, informers: SharedInformer<KubeObject>[]): Promise<boolean> {
  for (const inf of informers) inf.start(ctx.signal);
  try {
    await Promise.all(informers.map((inf) => inf.waitForSync(ctx.signal)));
    return true;
  } catch (e) {
    if (ctx.signal.aborted) return false;
    throw e;
  }
}

/** Node fires longer timers at once; a key due later is looked at after this and scheduled again. */
export const MAX_DELAY_MS = 2 ** 31 - 1;

/** `queue.addAfter` for delays of any length (see MAX_DELAY_MS). */
export function addAfterCapped<K>(queue: WorkQueue<K>, key: K, delayMs: number): void {
  queue.addAfter(key, Math.min(delayMs, MAX_DELAY_MS));
}

/** Resolves when the signal aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
