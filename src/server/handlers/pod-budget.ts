/**
 * Pod-side facts the eviction subresource needs about PodDisruptionBudgets (the budget arithmetic itself
 * is the policy group's `disruptionStatus`): which budgets guard a pod, which pods skip them, and what an
 * eviction records in the budget's status. Pure functions.
 */
import type { ApiObject } from '../../api/types.js';
import { coveredPods, DELETION_TIMEOUT_MS, type DisruptionStatus } from '../../registry/resources/policy/index.js';
import { rec, text } from './pod-common.js';

/** A pod whose Ready condition is True. */
export function isPodReady(pod: ApiObject): boolean {
  const conditions = Array.isArray(rec(pod.status).conditions) ? (rec(pod.status).conditions as unknown[]) : [];
  return conditions.some((c) => rec(c).type === 'Ready' && rec(c).status === 'True');
}

/**
 * Pods that disrupt nothing when they go: finished, not started yet (Pending) or already being deleted.
 * The reference deletes these without looking at budgets.
 */
export function canIgnoreBudget(pod: ApiObject): boolean {
  const phase = text(rec(pod.status).phase);
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata?.deletionTimestamp);
}

/** Budgets whose selector covers the pod (a missing selector covers nothing). */
export function budgetsFor(pod: ApiObject, budgets: readonly ApiObject[]): ApiObject[] {
  return budgets.filter((pdb) => coveredPods(pdb, [pod]).length > 0);
}

/**
 * An unready pod does not count as healthy, so evicting it costs the budget nothing when the budget says
 * so (AlwaysAllow) or, by default, while the application is not disrupted (enough healthy pods).
 */
export function unreadyPodMayGo(pdb: ApiObject, numbers: Pick<DisruptionStatus, 'currentHealthy' | 'desiredHealthy'>): boolean {
  if (rec(pdb.spec).unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
  return numbers.currentHealthy >= numbers.desiredHealthy && numbers.desiredHealthy > 0;
}

/**
 * The budget's status once it has paid for evicting `podName` at `now` (RFC 3339): one disruption fewer,
 * and the pod listed as disrupted so that a concurrent eviction does not count it as healthy. Entries of
 * pods that are gone or past the deletion timeout are dropped (no controller may be running to do it).
 */
export function statusAfterEviction(pdb: ApiObject, allowed: number, podName: string, now: string, livePods: ReadonlySet<string>): Record<string, unknown> {
  const status = rec(pdb.status);
  const cutoff = Date.parse(now) - DELETION_TIMEOUT_MS;
  const disrupted: Record<string, unknown> = {};
  for (const [name, at] of Object.entries(rec(status.disruptedPods))) {
    if (livePods.has(name) && Date.parse(text(at)) > cutoff) disrupted[name] = at;
  }
  disrupted[podName] = now;
  return { ...status, disruptionsAllowed: allowed - 1, disruptedPods: disrupted };
}
