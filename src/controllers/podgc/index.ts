/**
 * pod-garbage-collector-controller: removes terminated pods beyond `terminatedPodGcThreshold` (evicted and
 * oldest first), pods bound to a node that is gone (after a quarantine, confirmed by a read of the node),
 * terminating pods that were never scheduled, and terminating pods on out-of-service nodes. Pods not yet
 * in a terminal phase are marked Failed first (orphans with a DisruptionTarget condition), as in 1.31.
 *
 * Event-driven: pod and node changes queue a sweep of the caches, and a pod on an unknown node queues a
 * check of that node after the quarantine. Every input of the decisions arrives as an informer event, so
 * no periodic timer is needed and an idle cluster costs nothing.
 */
import { WorkQueue, isConflict, isNotFound, type KubeObject } from '../../client/index.js';
import { runQueueWorkers, startAndSync } from '../bootstrap/queue-workers.js';
import type { ControllerContext, ControllerDescriptor } from '../contract.js';
import { isOutOfService, isTerminated, nodeNameOf, phaseOf, terminatedOverThreshold, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './select.js';

export * from './select.js';

const PODS = { group: '', version: 'v1', plural: 'pods' };
const NODES = { group: '', version: 'v1', plural: 'nodes' };
const NAME = 'pod-garbage-collector-controller';
const SWEEP = 'sweep';
const NODE_KEY = 'node/';
const NODE_INDEX = 'podgc:spec.nodeName';
/** How long a node must stay missing before its pods count as orphans (the reference's 40 s). */
export const DEFAULT_QUARANTINE_MS = 40_000;
/** Deletions in flight at once. */
const PARALLEL_DELETES = 20;

export interface PodGcOptions {
  quarantineMs?: number;
}

interface PodCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export function makePodGcController(opts: PodGcOptions = {}): ControllerDescriptor {
  const quarantineMs = opts.quarantineMs ?? DEFAULT_QUARANTINE_MS;
  return { name: NAME, serviceAccountName: 'pod-garbage-collector', run: (ctx) => run(ctx, quarantineMs) };
}

export const podGcController: ControllerDescriptor = makePodGcController();

async function run(ctx: ControllerContext, quarantineMs: number): Promise<void> {
  const pods = ctx.informers.informerFor({ gvr: PODS });
  const nodes = ctx.informers.informerFor({ gvr: NODES });
  try {
    pods.addIndexers({ [NODE_INDEX]: (p) => (nodeNameOf(p) === '' ? [] : [nodeNameOf(p)]) });
  } catch {
    // Already there: a restart of this controller on the same shared informer.
  }
  const queue = new WorkQueue<string>();
  const sweep = () => queue.add(SWEEP);
  const onPod = (pod: KubeObject) => {
    if (isTerminated(pod) || pod.metadata.deletionTimestamp) sweep();
    const node = nodeNameOf(pod);
    if (node !== '' && !nodes.store.get(node)) queue.addAfter(NODE_KEY + node, quarantineMs);
  };
  const removers = [
    pods.addEventHandler({ onAdd: onPod, onUpdate: (_old, pod) => onPod(pod) }),
    nodes.addEventHandler({
      onAdd: (node) => isOutOfService(node) && sweep(),
      onUpdate: (_old, node) => isOutOfService(node) && sweep(),
      onDelete: (node) => {
        const name = node.metadata.name ?? '';
        if (pods.store.byIndex(NODE_INDEX, name).length > 0) queue.addAfter(NODE_KEY + name, quarantineMs);
      },
    }),
  ];

  const markFailedAndDelete = async (pod: KubeObject, condition?: PodCondition): Promise<void> => {
    const client = ctx.client.resource(PODS, pod.metadata.namespace);
    const name = pod.metadata.name ?? '';
    try {
      if (phaseOf(pod) !== 'Succeeded' && phaseOf(pod) !== 'Failed') {
        const status: Record<string, unknown> = { phase: 'Failed' };
        if (condition) status.conditions = [condition];
        await client.patch(name, 'strategic', { metadata: { uid: pod.metadata.uid }, status }, { subresource: 'status', signal: ctx.signal });
      }
      await client.delete(name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid }, signal: ctx.signal });
    } catch (e) {
      // Gone already, or replaced by another pod of that name.
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  };

  /** Deletes `list` a few at a time; fails (for a retry) if any deletion failed. */
  const deleteAll = async (list: KubeObject[], condition?: PodCondition): Promise<void> => {
    let next = 0;
    const errors: unknown[] = [];
    const worker = async () => {
      while (next < list.length && !ctx.signal.aborted) {
        const pod = list[next++] as KubeObject;
        await markFailedAndDelete(pod, condition).catch((e: unknown) => errors.push(e));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_DELETES, list.length) }, worker));
    if (errors.length > 0) throw errors[0];
  };

  const checkNode = async (node: string): Promise<void> => {
    if (nodes.store.get(node)) return;
    try {
      await ctx.client.resource(NODES).get(node, { signal: ctx.signal });
      return;
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const orphans = pods.store.byIndex(NODE_INDEX, node);
    if (orphans.length === 0) return;
    ctx.log(`deleting ${orphans.length} pod(s) bound to node ${node}, which no longer exists`);
    const condition = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'the pod garbage collector removed it: its node no longer exists', lastTransitionTime: new Date(ctx.now()).toISOString().replace(/\.\d+Z$/, 'Z') };
    await deleteAll(orphans, condition);
  };

  const handle = async (key: string): Promise<void> => {
    if (key.startsWith(NODE_KEY)) return checkNode(key.slice(NODE_KEY.length));
    const all = pods.store.list();
    await deleteAll(terminatedOverThreshold(all, ctx.settings.terminatedPodGcThreshold));
    await deleteAll(terminatingOnOutOfServiceNodes(all, (n) => nodes.store.get(n)));
    await deleteAll(unscheduledTerminating(all));
  };

  try {
    if (!(await startAndSync(ctx, [pods, nodes]))) return;
    await runQueueWorkers(ctx, queue, 1, handle);
  } finally {
    for (const remove of removers) remove();
  }
}
