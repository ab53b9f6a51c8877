/**
 * What the reference's disruption controller computes for a PodDisruptionBudget: how many of the pods it
 * covers are healthy, how many must stay healthy, and so how many may be disrupted now. Pure, so that the
 * eviction handler can decide on an eviction from the pods it just listed.
 */
import type { ApiObject } from '../../../api/types.js';
import { absent, conditionTrue, rec } from '../batch/fields.js';
import { selectorMatches } from '../batch/selector.js';

/** An evicted pod counts as gone for this long, even before it is deleted (the controller's timeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

export interface DisruptionOptions {
  /**
   * The pods the budget's owners want in total (the sum of their controllers' scales), used for percentages
   * and for `maxUnavailable`. Without it the number of matching pods is used, which is exact for pods
   * without a controller and for controllers that are at their scale.
   */
  expectedPods?: number;
  /** The time to judge `status.disruptedPods` against (ms since the epoch); default now. */
  now?: number;
}

export interface DisruptionStatus {
  /** Pods the budget covers and expects. */
  expectedPods: number;
  /** Covered pods that are Ready, not terminating and not recently evicted. */
  currentHealthy: number;
  /** Healthy pods the budget requires. */
  desiredHealthy: number;
  /** `status.disruptionsAllowed`: never negative, 0 while no pod is expected. */
  disruptionsAllowed: number;
}

/** `intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true)`; undefined for a malformed value. */
export function scaledValue(v: unknown, total: number): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v !== 'string') return undefined;
  const m = /^(\d+)%$/.exec(v);
  if (m) return Math.ceil((Number(m[1]) * total) / 100);
  // A string holding a plain integer is not a percent: the reference refuses it.
  return undefined;
}

/** The pods a budget covers: same namespace, matched by its selector (a missing selector covers none). */
export function coveredPods(pdb: ApiObject, pods: readonly ApiObject[]): ApiObject[] {
  const namespace = pdb.metadata?.namespace;
  const selector = rec(pdb.spec).selector;
  return pods.filter((p) => (namespace === undefined || p.metadata?.namespace === namespace) && selectorMatches(selector, p.metadata?.labels));
}

/** Ready, not being deleted, and not evicted in the last two minutes. */
function countHealthy(pods: readonly ApiObject[], disrupted: Record<string, unknown>, now: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const evictedAt = disrupted[String(pod.metadata?.name ?? '')];
    const t = typeof evictedAt === 'string' ? Date.parse(evictedAt) : NaN;
    if (!Number.isNaN(t) && t + DELETION_TIMEOUT_MS > now) continue;
    if (conditionTrue(pod.status, 'Ready')) healthy++;
  }
  return healthy;
}

/**
 * The status the disruption controller would write for `pdb`. `pods` may be every pod of the namespace:
 * only those the budget covers count. `maxUnavailable` wins when both are set (validation forbids that);
 * a budget with neither, or with a malformed percentage, allows no disruption.
 */
export function disruptionStatus(pdb: ApiObject, pods: readonly ApiObject[], opts: DisruptionOptions = {}): DisruptionStatus {
  const spec = rec(pdb.spec);
  const covered = coveredPods(pdb, pods);
  const now = opts.now ?? Date.now();
  const disrupted = rec(rec(pdb.status).disruptedPods);
  const currentHealthy = countHealthy(covered, disrupted, now);
  const scale = opts.expectedPods ?? covered.length;
  let expectedPods = 0;
  let desiredHealthy = 0;
  let broken = false;
  if (!absent(spec.maxUnavailable)) {
    expectedPods = scale;
    const maxUnavailable = scaledValue(spec.maxUnavailable, expectedPods);
    if (maxUnavailable === undefined) broken = true;
    else desiredHealthy = Math.max(0, expectedPods - maxUnavailable);
  } else if (!absent(spec.minAvailable)) {
    if (typeof spec.minAvailable === 'number') {
      // An absolute minimum counts the pods that exist, whoever owns them.
      desiredHealthy = spec.minAvailable;
      expectedPods = covered.length;
    } else {
      expectedPods = scale;
      const minAvailable = scaledValue(spec.minAvailable, expectedPods);
      if (minAvailable === undefined) broken = true;
      else desiredHealthy = minAvailable;
    }
  }
  let allowed = currentHealthy - desiredHealthy;
  if (broken || expectedPods <= 0 || allowed <= 0) allowed = 0;
  return { expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed: allowed };
}

/**
 * `status.disruptionsAllowed` of `pdb` over `pods` (see `disruptionStatus`): how many covered pods may be
 * evicted now without breaking the budget.
 */
export function disruptionsAllowed(pdb: ApiObject, pods: readonly ApiObject[], opts: DisruptionOptions = {}): number {
  return disruptionStatus(pdb, pods, opts).disruptionsAllowed;
}
