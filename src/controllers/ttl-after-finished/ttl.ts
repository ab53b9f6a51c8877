/** When a finished Job's `ttlSecondsAfterFinished` runs out (pure; the controller supplies the clock). */
import type { KubeObject } from '../../client/index.js';

interface JobCondition {
  type?: unknown;
  status?: unknown;
  lastTransitionTime?: unknown;
}

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The Complete or Failed condition that is True, if the Job has finished. */
function finishCondition(job: KubeObject): JobCondition | undefined {
  const list = rec(job.status).conditions;
  if (!Array.isArray(list)) return undefined;
  return (list as JobCondition[]).find((c) => rec(c).status === 'True' && (c.type === 'Complete' || c.type === 'Failed'));
}

/** A Job this controller has to look after: it has a TTL, has finished, and is not being deleted already. */
export function needsCleanup(job: KubeObject): boolean {
  return typeof rec(job.spec).ttlSecondsAfterFinished === 'number' && finishCondition(job) !== undefined && !job.metadata.deletionTimestamp;
}

/**
 * The moment the Job may be deleted: its finish time (the finishing condition's lastTransitionTime, else
 * `status.completionTime`) plus the TTL. Throws when a finished Job says nowhere when it finished.
 */
export function expiresAt(job: KubeObject): number | undefined {
  const ttl = rec(job.spec).ttlSecondsAfterFinished;
  const cond = finishCondition(job);
  if (typeof ttl !== 'number' || !cond) return undefined;
  const stamp = typeof cond.lastTransitionTime === 'string' && cond.lastTransitionTime !== '' ? cond.lastTransitionTime : rec(job.status).completionTime;
  const finished = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
  if (Number.isNaN(finished)) throw new Error(`cannot tell when Job ${job.metadata.namespace ?? ''}/${job.metadata.name ?? ''} finished`);
  return finished + ttl * 1000;
}
