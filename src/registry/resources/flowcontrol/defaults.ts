/**
 * Defaults of the flow-control objects, as the reference applies them when it decodes a write. The two
 * served versions differ only in `spec.limited.nominalConcurrencyShares` (spec 9.6): v1 fills it only when
 * unset, v1beta3 also replaces a 0 unless the object carries the preserve-zero annotation (which a v1beta3
 * client gets on read whenever the stored value is 0, so its own 0 survives a read-modify-write).
 */
import { FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { isRec, type Rec } from '../events/fields.js';
import { objectAt } from '../reference.js';

export type FlowControlVersion = 'v1' | 'v1beta3';

export const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUES = 64;
export const DEFAULT_HAND_SIZE = 8;
export const DEFAULT_QUEUE_LENGTH_LIMIT = 50;
export const DEFAULT_MATCHING_PRECEDENCE = 1000;

const unset = (v: unknown) => v === undefined || v === null;
/** Go's zero check on a non-pointer int: absent and 0 are the same. */
const zeroInt = (v: unknown) => unset(v) || v === 0;

/** The spec object, created when absent (it is a struct, not a pointer, in the reference). */
function specOf(o: ApiObject): Rec | undefined {
  return objectAt(o, ['spec'], true);
}

export function defaultFlowSchema(o: ApiObject): void {
  const spec = specOf(o);
  if (spec && zeroInt(spec.matchingPrecedence)) spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

function defaultQueuing(q: Rec): void {
  if (zeroInt(q.queues)) q.queues = DEFAULT_QUEUES;
  if (zeroInt(q.handSize)) q.handSize = DEFAULT_HAND_SIZE;
  if (zeroInt(q.queueLengthLimit)) q.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
}

export function keepsZeroShares(o: ApiObject): boolean {
  const annotations = o.metadata?.annotations;
  return isRec(annotations) && Object.hasOwn(annotations, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION);
}

export function defaultPriorityLevel(o: ApiObject, version: FlowControlVersion): void {
  const spec = specOf(o);
  if (!spec) return;
  const limited = spec.limited;
  if (isRec(limited)) {
    const shares = limited.nominalConcurrencyShares;
    const replaceZero = version === 'v1beta3' && shares === 0 && !keepsZeroShares(o);
    if (unset(shares) || replaceZero) limited.nominalConcurrencyShares = DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    if (unset(limited.lendablePercent)) limited.lendablePercent = 0;
    // Queuing is a pointer in the reference: defaulted only when present.
    const response = limited.limitResponse;
    if (isRec(response) && isRec(response.queuing)) defaultQueuing(response.queuing);
  }
  const exempt = spec.exempt;
  if (isRec(exempt)) {
    if (unset(exempt.nominalConcurrencyShares)) exempt.nominalConcurrencyShares = 0;
    if (unset(exempt.lendablePercent)) exempt.lendablePercent = 0;
  }
}
