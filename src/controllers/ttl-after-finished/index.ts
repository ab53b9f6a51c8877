/**
 * ttl-after-finished-controller: deletes a finished Job `ttlSecondsAfterFinished` seconds after it
 * finished, with Foreground propagation (its pods go first) and a uid precondition. Each Job waits on one
 * delayed queue entry; the live object is read again right before the delete, since the cache may lag a
 * change of the TTL.
 */
import { WorkQueue, isConflict, isNotFound, objectKey, splitKey, type KubeObject } from '../../client/index.js';
import { addAfterCapped, runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { expiresAt, needsCleanup } from './ttl.js';

export { expiresAt, needsCleanup } from './ttl.js';

const JOBS = { group: 'batch', version: 'v1', plural: 'jobs' };
const NAME = 'ttl-after-finished-controller';

async function run(ctx: ControllerContext): Promise<void> {
  const jobs = ctx.informers.informerFor({ gvr: JOBS });
  const queue = new WorkQueue<string>();
  const enqueue = (job: KubeObject) => {
    if (needsCleanup(job)) queue.add(objectKey(job));
  };
  const remove = jobs.addEventHandler({ onAdd: enqueue, onUpdate: (_old, job) => enqueue(job) });

  /** Deletes now if due; otherwise schedules the key for the due time. */
  const dueIn = (job: KubeObject): number | undefined => {
    if (!needsCleanup(job)) return undefined;
    const at = expiresAt(job);
    return at === undefined ? undefined : at - ctx.now();
  };

  const handle = async (key: string): Promise<void> => {
    const cached = jobs.store.get(key);
    const left = cached ? dueIn(cached) : undefined;
    if (left === undefined) return;
    if (left > 0) return addAfterCapped(queue, key, left);
    const { namespace, name } = splitKey(key);
    const client = ctx.client.resource(JOBS, namespace);
    let fresh: KubeObject;
    try {
      fresh = await client.get(name, { signal: ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    const freshLeft = dueIn(fresh);
    if (freshLeft === undefined) return;
    if (freshLeft > 0) return addAfterCapped(queue, key, freshLeft);
    try {
      await client.delete(name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata.uid }, signal: ctx.signal });
      ctx.log(`deleted Job ${key}: its ttlSecondsAfterFinished has passed`);
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  };

  try {
    if (!(await startAndSync(ctx, [jobs]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency(NAME), handle);
  } finally {
    remove();
  }
}

export const ttlAfterFinishedController: ControllerDescriptor = { name: NAME, serviceAccountName: 'ttl-after-finished-controller', run };
