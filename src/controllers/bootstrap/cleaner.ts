/**
 * token-cleaner-controller (spec 3.5): deletes a bootstrap token Secret once its `expiration` has passed.
 * Each secret with a future expiration gets one delayed queue entry for that moment (no polling); the
 * delete carries the uid seen, so a secret re-created under the same name is never removed by mistake.
 */
import { WorkQueue, isConflict, isNotFound, splitKey, objectKey } from '../../client/index.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { addAfterCapped, runQueueWorkers, startAndSync } from './queue-workers.js';
import { SECRETS } from './signer.js';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, TOKEN_SECRET_NAMESPACE, expirationOf } from './token.js';

async function run(ctx: ControllerContext): Promise<void> {
  const secrets = ctx.informers.informerFor({ gvr: SECRETS, namespace: TOKEN_SECRET_NAMESPACE, fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` });
  const queue = new WorkQueue<string>();
  const enqueue = (o: { metadata: { namespace?: string; name?: string } }) => queue.add(objectKey(o));
  const remove = secrets.addEventHandler({ onAdd: enqueue, onUpdate: (_old, o) => enqueue(o) });
  const client = ctx.client.resource(SECRETS, TOKEN_SECRET_NAMESPACE);

  const check = async (key: string): Promise<void> => {
    const secret = secrets.store.get(key);
    if (!secret || secret.metadata.deletionTimestamp) return;
    const at = expirationOf(secret);
    if (at === undefined) return;
    const left = at - ctx.now();
    if (left > 0) {
      addAfterCapped(queue, key, left);
      return;
    }
    try {
      await client.delete(splitKey(key).name, { preconditions: { uid: secret.metadata.uid }, signal: ctx.signal });
      ctx.log(`deleted expired bootstrap token secret ${key}`);
    } catch (e) {
      // Gone already, or replaced by a new secret of that name (the uid precondition failed): nothing to do.
      if (isNotFound(e) || isConflict(e)) return;
      throw e;
    }
  };

  try {
    if (!(await startAndSync(ctx, [secrets]))) return;
    await runQueueWorkers(ctx, queue, 1, check);
  } finally {
    remove();
  }
}

export const tokenCleanerController: ControllerDescriptor = {
  name: 'token-cleaner-controller',
  serviceAccountName: 'token-cleaner',
  run,
};
