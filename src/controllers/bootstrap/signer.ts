/**
 * bootstrap-signer-controller (spec 2.9, 5.4): keeps one detached JWS of cluster-info's `kubeconfig` per
 * bootstrap token allowed to sign. Everything funnels into one key: the config map and the token secrets
 * are read from informer caches, the map is written only when its entries would change, and a timer at
 * the next token expiration takes the expired token's entry out.
 */
import { WorkQueue, isConflict, isNotFound, type KubeObject } from '../../client/index.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { addAfterCapped, runQueueWorkers, startAndSync } from './queue-workers.js';
import {
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  TOKEN_SECRET_NAMESPACE,
  nextExpiration,
  signedClusterInfoData,
  signingToken,
} from './token.js';

export const CONFIGMAPS = { group: '', version: 'v1', plural: 'configmaps' };
export const SECRETS = { group: '', version: 'v1', plural: 'secrets' };
const KEY = 'cluster-info';

async function run(ctx: ControllerContext): Promise<void> {
  const configMaps = ctx.informers.informerFor({ gvr: CONFIGMAPS, namespace: CLUSTER_INFO_NAMESPACE, fieldSelector: `metadata.name=${CLUSTER_INFO_NAME}` });
  const secrets = ctx.informers.informerFor({ gvr: SECRETS, namespace: TOKEN_SECRET_NAMESPACE, fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` });
  const queue = new WorkQueue<string>();
  const poke = () => queue.add(KEY);
  const handlers = { onAdd: poke, onUpdate: poke, onDelete: poke };
  const removers = [configMaps.addEventHandler(handlers), secrets.addEventHandler(handlers)];
  const mapClient = ctx.client.resource(CONFIGMAPS, CLUSTER_INFO_NAMESPACE);

  const sync = async (): Promise<void> => {
    const now = ctx.now();
    const tokenSecrets = secrets.store.list();
    const wake = nextExpiration(tokenSecrets, now);
    if (wake !== undefined) addAfterCapped(queue, KEY, wake - now);
    const cm = configMaps.store.get(`${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}`);
    if (!cm || cm.metadata.deletionTimestamp) return;
    const tokens = tokenSecrets.flatMap((s) => signingToken(s, now) ?? []);
    const { data, changed } = signedClusterInfoData(stringData(cm), tokens);
    if (!changed) return;
    try {
      await mapClient.update({ ...cm, data } as KubeObject, { signal: ctx.signal });
    } catch (e) {
      // A newer copy is on its way to the cache (its event queues us again); a removed map needs nothing.
      if (isConflict(e) || isNotFound(e)) return;
      throw e;
    }
  };

  try {
    if (!(await startAndSync(ctx, [configMaps, secrets]))) return;
    poke();
    await runQueueWorkers(ctx, queue, 1, sync);
  } finally {
    for (const remove of removers) remove();
  }
}

function stringData(cm: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  const data = cm.data;
  if (data !== null && typeof data === 'object') for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out[k] = v;
  return out;
}

export const bootstrapSignerController: ControllerDescriptor = {
  name: 'bootstrap-signer-controller',
  serviceAccountName: 'bootstrap-signer',
  run,
};
