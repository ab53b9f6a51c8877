/**
 * Waiting for a deleted object to be gone (finalizers and graceful termination can keep it a while), with
 * a progress line on stderr now and then saying what it still waits for.
 */
import { isNotFound, type KubeObject } from '../../client/index.js';
import type { Target } from '../apply/targets.js';
import { targetRef } from '../apply/targets.js';
import type { CliContext } from '../contract.js';

/** How often a progress line is printed while waiting. */
export const PROGRESS_EVERY_MS = 5_000;

/** Pure: the reference's deletion line: `deployment.apps "web" deleted`. */
export function deletedLine(t: Pick<Target, 'info' | 'name'>, _obj?: KubeObject, suffix = ''): string {
  const kind = t.info.kind.toLowerCase();
  return `${kind}${t.info.group ? `.${t.info.group}` : ''} "${t.name}" deleted${suffix}`;
}

/** Pure: the `-o name` line of a target: `deployment.apps/web`. */
export const kindRef = (t: Pick<Target, 'info' | 'name'>): string => `${t.info.kind.toLowerCase()}${t.info.group ? `.${t.info.group}` : ''}/${t.name}`;

/** Pure: what a terminating object still waits for, for progress lines. */
export function pendingReason(obj: KubeObject): string {
  const finalizers = obj.metadata.finalizers ?? [];
  if (finalizers.length > 0) return `finalizers ${finalizers.join(', ')}`;
  return obj.metadata.deletionTimestamp ? 'termination' : 'the deletion to start';
}

export class WaitTimeout extends Error {
  override readonly name = 'WaitTimeout';
}

/**
 * Resolves when the object named by `t` is gone (or replaced by another of the same name: another uid).
 * Throws WaitTimeout after `timeoutMs` (0 = no limit).
 */
export async function waitUntilGone(ctx: CliContext, t: Target, uid: string | undefined, o: { timeoutMs: number; progress?: boolean }): Promise<void> {
  const abort = new AbortController();
  const timer = o.timeoutMs > 0 ? setTimeout(() => abort.abort(), o.timeoutMs) : undefined;
  let last: KubeObject | undefined;
  const progress = o.progress
    ? setInterval(() => ctx.io.err(`waiting for ${targetRef(t)} to be deleted (${last ? pendingReason(last) : 'the server'})...\n`), PROGRESS_EVERY_MS)
    : undefined;
  const stillThere = (obj: KubeObject) => uid === undefined || obj.metadata.uid === uid;
  try {
    while (!abort.signal.aborted) {
      const list = await t.client.list({ fieldSelector: `metadata.name=${t.name}`, signal: abort.signal });
      last = list.items[0];
      if (!last || !stillThere(last)) return;
      for await (const ev of t.client.watch({ fieldSelector: `metadata.name=${t.name}`, resourceVersion: list.metadata.resourceVersion, signal: abort.signal })) {
        if (ev.type === 'BOOKMARK') continue;
        if (ev.type === 'DELETED' && stillThere(ev.object)) return;
        last = ev.object;
        if (!stillThere(ev.object)) return;
      }
    }
  } catch (e) {
    if (!abort.signal.aborted && !isNotFound(e)) throw e;
    if (!abort.signal.aborted) return;
  } finally {
    if (timer) clearTimeout(timer);
    if (progress) clearInterval(progress);
  }
  throw new WaitTimeout(`timed out waiting for ${targetRef(t)} to be deleted`);
}
