/** Which pods the pod garbage collector removes, as pure functions of cached pods and nodes. */
import { TAINT_NODE_OUT_OF_SERVICE } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export const phaseOf = (pod: KubeObject): string => String(rec(pod.status).phase ?? '');
export const nodeNameOf = (pod: KubeObject): string => {
  const n = rec(pod.spec).nodeName;
  return typeof n === 'string' ? n : '';
};

/** The reference counts every pod whose phase is not Pending, Running or Unknown (an empty phase included). */
export function isTerminated(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

const isEvicted = (pod: KubeObject) => phaseOf(pod) === 'Failed' && rec(pod.status).reason === 'Evicted';

/** Deletion order: evicted pods first, then the oldest, then by name. */
export function byEvictionThenAge(a: KubeObject, b: KubeObject): number {
  const ea = isEvicted(a);
  const eb = isEvicted(b);
  if (ea !== eb) return ea ? -1 : 1;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** Terminated pods beyond `threshold` (0 = no limit), the ones to delete first. */
export function terminatedOverThreshold(pods: readonly KubeObject[], threshold: number): KubeObject[] {
  if (threshold <= 0) return [];
  const terminated = pods.filter(isTerminated);
  const excess = terminated.length - threshold;
  if (excess <= 0) return [];
  return terminated.sort(byEvictionThenAge).slice(0, excess);
}

/** Pods being deleted that were never scheduled: no node agent will ever finish their deletion. */
export function unscheduledTerminating(pods: readonly KubeObject[]): KubeObject[] {
  return pods.filter((p) => p.metadata.deletionTimestamp && nodeNameOf(p) === '').sort(byEvictionThenAge);
}

function nodeIsReady(node: KubeObject): boolean {
  const conditions = rec(node.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => rec(c).type === 'Ready' && rec(c).status === 'True');
}

/** Whether a node is not ready and tainted out of service: its terminating pods will not finish on their own. */
export function isOutOfService(node: KubeObject): boolean {
  const taints = rec(node.spec).taints;
  const tainted = Array.isArray(taints) && taints.some((t) => rec(t).key === TAINT_NODE_OUT_OF_SERVICE);
  return tainted && !nodeIsReady(node);
}

/** Terminating pods on out-of-service nodes. */
export function terminatingOnOutOfServiceNodes(pods: readonly KubeObject[], nodeByName: (name: string) => KubeObject | undefined): KubeObject[] {
  return pods
    .filter((p) => {
      if (!p.metadata.deletionTimestamp || nodeNameOf(p) === '') return false;
      const node = nodeByName(nodeNameOf(p));
      return node !== undefined && isOutOfService(node);
    })
    .sort(byEvictionThenAge);
}
