/**
 * The root CA publisher: every active namespace has the ConfigMap ROOT_CA_CONFIGMAP whose `ca.crt` is the
 * bundle pods use to verify the API server (the ServiceAccount admission plugin mounts it into every pod).
 * It is created with the namespace, recreated when deleted, and put back when someone changes it. Like the
 * reference it looks only at ConfigMaps of that name, but it asks the server to filter them by name
 * (`fieldSelector`): every other ConfigMap write then costs it nothing, where the reference decodes them all.
 */
import { DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP } from '../../api/naming.js';
import { WorkQueue, isAlreadyExists, isNotFound, type KubeObject } from '../../client/index.js';
import { runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { isActiveNamespace, isNamespaceTerminating } from '../serviceaccount/index.js';

export const ROOT_CA_PUBLISHER = 'root-ca-certificate-publisher-controller';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' };
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
export const CA_KEY = 'ca.crt';
/** What the ConfigMap is for, in its description annotation. */
export const ROOT_CA_DESCRIPTION =
  'The CA bundle that verifies the API server when it is reached at its in-cluster addresses (the API Service IP and DNS name). Nothing else about it is promised.';

type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Pure: the ConfigMap as it should be, or undefined when `current` already is (data exactly the bundle, described). */
export function desiredConfigMap(current: ConfigMap | undefined, caPem: string): ConfigMap | undefined {
  const data = { [CA_KEY]: caPem };
  if (!current) return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data };
  const keys = Object.keys(current.data ?? {});
  const same = keys.length === 1 && current.data?.[CA_KEY] === caPem;
  if (same && current.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return undefined;
  return { ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } }, data };
}

async function run(ctx: ControllerContext): Promise<void> {
  const caPem = ctx.settings.rootCaPem;
  if (!caPem) throw new Error(`${ROOT_CA_PUBLISHER}: no CA bundle to publish (set --root-ca-file, or run the manager where the server's CA is known)`);
  const namespaces = ctx.informers.informerFor<KubeObject & { status?: { phase?: string } }>({ gvr: NAMESPACES });
  const configMaps = ctx.informers.informerFor<ConfigMap>({ gvr: CONFIG_MAPS, fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });
  const queue = new WorkQueue<string>();
  const enqueue = (cm: KubeObject) => cm.metadata.name === ROOT_CA_CONFIGMAP && cm.metadata.namespace && queue.add(cm.metadata.namespace);
  const removers = [
    namespaces.addEventHandler({
      onAdd: (ns) => isActiveNamespace(ns) && ns.metadata.name && queue.add(ns.metadata.name),
      onUpdate: (_old, ns) => isActiveNamespace(ns) && ns.metadata.name && queue.add(ns.metadata.name),
    }),
    // Added too: one written by someone else in the moment before our create is checked like any change.
    configMaps.addEventHandler({
      onAdd: enqueue,
      onUpdate: (_old, cm) => enqueue(cm),
      onDelete: enqueue,
    }),
  ];
  const sync = async (namespace: string) => {
    if (!isActiveNamespace(namespaces.store.get(namespace))) return;
    const current = configMaps.store.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    const want = desiredConfigMap(current, caPem);
    if (!want) return;
    const client = ctx.client.resource<ConfigMap>(CONFIG_MAPS, namespace);
    // A conflict (our cache was behind) is retried by the queue with the newer object.
    const write = current ? client.update(want, { signal: ctx.signal }) : client.create(want, { signal: ctx.signal });
    await write.catch((e: unknown) => {
      if (!current && isAlreadyExists(e)) return;
      if (!isNotFound(e) && !isNamespaceTerminating(e)) throw e;
    });
  };
  try {
    if (!(await startAndSync(ctx, [namespaces, configMaps]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency(ROOT_CA_PUBLISHER), sync);
  } finally {
    removers.forEach((r) => r());
    queue.shutDown();
  }
}

export const rootCaPublisherController: ControllerDescriptor = {
  name: ROOT_CA_PUBLISHER,
  serviceAccountName: 'root-ca-cert-publisher',
  run,
};
