/**
 * The serviceaccount controller: every active namespace has a `default` ServiceAccount, created when the
 * namespace appears and again whenever it is deleted. Terminating namespaces are left alone (the server
 * refuses new content in them anyway). Like the reference, it shares the informer of all ServiceAccounts and
 * looks only at events of accounts named `default`.
 */
import { StatusError } from '../../errors/index.js';
import { WorkQueue, isAlreadyExists, isNotFound, type KubeObject } from '../../client/index.js';
import { runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';

export const SERVICEACCOUNT_CONTROLLER = 'serviceaccount-controller';
export const DEFAULT_ACCOUNT = 'default';
const NAMESPACES = { group: '', version: 'v1', plural: 'namespaces' };
const SERVICE_ACCOUNTS = { group: '', version: 'v1', plural: 'serviceaccounts' };

type Namespace = KubeObject & { status?: { phase?: string } };

/** Pure: whether a namespace takes new content (it exists, is not being deleted and is not Terminating). */
export const isActiveNamespace = (ns: Namespace | undefined): ns is Namespace =>
  ns !== undefined && !ns.metadata.deletionTimestamp && ns.status?.phase !== 'Terminating';

/** The server's refusal to create content in a namespace that started terminating after our cache looked. */
export const isNamespaceTerminating = (e: unknown) =>
  e instanceof StatusError && e.code === 403 && (e.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

async function run(ctx: ControllerContext): Promise<void> {
  const namespaces = ctx.informers.informerFor<Namespace>({ gvr: NAMESPACES });
  const accounts = ctx.informers.informerFor({ gvr: SERVICE_ACCOUNTS });
  const queue = new WorkQueue<string>();
  const enqueueNamespace = (ns: Namespace) => {
    if (isActiveNamespace(ns) && ns.metadata.name) queue.add(ns.metadata.name);
  };
  const removers = [
    namespaces.addEventHandler({ onAdd: enqueueNamespace, onUpdate: (_old, ns) => enqueueNamespace(ns) }),
    accounts.addEventHandler({ onDelete: (sa) => sa.metadata.name === DEFAULT_ACCOUNT && sa.metadata.namespace && queue.add(sa.metadata.namespace) }),
  ];
  const sync = async (name: string) => {
    if (!isActiveNamespace(namespaces.store.get(name))) return;
    if (accounts.store.get(`${name}/${DEFAULT_ACCOUNT}`)) return;
    const sa: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_ACCOUNT } };
    await ctx.client
      .resource(SERVICE_ACCOUNTS, name)
      .create(sa, { signal: ctx.signal })
      .catch((e: unknown) => {
        // Already there (our cache lagged), or the namespace went away or started terminating meanwhile.
        if (!isAlreadyExists(e) && !isNotFound(e) && !isNamespaceTerminating(e)) throw e;
      });
  };
  try {
    // Both caches first: a namespace handled before the accounts are listed would get a needless create.
    if (!(await startAndSync(ctx, [namespaces, accounts]))) return;
    await runQueueWorkers(ctx, queue, ctx.settings.concurrency(SERVICEACCOUNT_CONTROLLER), sync);
  } finally {
    removers.forEach((r) => r());
    queue.shutDown();
  }
}

export const serviceAccountController: ControllerDescriptor = {
  name: SERVICEACCOUNT_CONTROLLER,
  serviceAccountName: 'service-account-controller',
  run,
};
