/**
 * Priority levels: what the flow controller reads of a PriorityLevelConfiguration, and how the server's
 * concurrency limit is divided among the levels by their shares, as the reference computes it.
 */
import type { ApiObject } from '../api/types.js';

export interface LevelSpec {
  name: string;
  uid: string;
  exempt: boolean;
  nominalConcurrencyShares: number;
  lendablePercent: number;
  /** Undefined: no limit on borrowing. */
  borrowingLimitPercent: number | undefined;
  /** `limitResponse.type: Reject`: no queues, a request without a free seat is refused at once. */
  reject: boolean;
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Reads a stored (validated, defaulted) v1 PriorityLevelConfiguration. */
export function levelSpecOf(o: ApiObject): LevelSpec {
  const spec = rec(o.spec);
  const exempt = spec.type === 'Exempt';
  const body = rec(exempt ? spec.exempt : spec.limited);
  const response = rec(body.limitResponse);
  const queuing = rec(response.queuing);
  return {
    name: String(o.metadata?.name ?? ''),
    uid: String(o.metadata?.uid ?? ''),
    exempt,
    nominalConcurrencyShares: num(body.nominalConcurrencyShares, exempt ? 0 : 30),
    lendablePercent: num(body.lendablePercent, 0),
    borrowingLimitPercent: typeof body.borrowingLimitPercent === 'number' ? body.borrowingLimitPercent : undefined,
    reject: !exempt && response.type !== 'Queue',
    queues: Math.max(1, num(queuing.queues, 64)),
    handSize: Math.max(1, num(queuing.handSize, 8)),
    queueLengthLimit: Math.max(1, num(queuing.queueLengthLimit, 50)),
  };
}

export interface LevelLimits {
  /** Seats this level's nominal share is worth. */
  nominal: number;
  /** Seats always kept for this level (nominal minus what it lends). */
  min: number;
  /** Most seats this level may hold, borrowing included. */
  max: number;
}

/**
 * nominal = ceil(serverLimit * shares / all shares); lendable = round(nominal * lendablePercent / 100);
 * borrowing limit = round(nominal * borrowingLimitPercent / 100), or the whole server when unset.
 */
export function divideConcurrency(serverLimit: number, levels: readonly LevelSpec[]): Map<string, LevelLimits> {
  const total = levels.reduce((sum, l) => sum + Math.max(0, l.nominalConcurrencyShares), 0);
  const out = new Map<string, LevelLimits>();
  for (const l of levels) {
    const nominal = total > 0 ? Math.ceil((serverLimit * Math.max(0, l.nominalConcurrencyShares)) / total) : 0;
    const lendable = Math.round((nominal * l.lendablePercent) / 100);
    const borrowing = l.borrowingLimitPercent === undefined ? serverLimit : Math.round((nominal * l.borrowingLimitPercent) / 100);
    out.set(l.name, { nominal, min: nominal - lendable, max: nominal + borrowing });
  }
  return out;
}
