/**
 * Deletion propagation on the server side (spec 3.1, the reference's rules): a delete's propagation
 * policy becomes finalizers the garbage collector acts on. Foreground adds `foregroundDeletion`, Orphan
 * adds `orphan`, Background adds neither and leaves dependents to the collector. Pure functions.
 */
import { EVENTS_GROUP, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../api/naming.js';
import { badRequest } from '../errors/index.js';

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';
const POLICIES: readonly string[] = ['Orphan', 'Background', 'Foreground'];

/** What a type does when a delete names no policy: the reference's per-type defaults. */
export type DefaultPolicy = 'Background' | 'Orphan' | 'Unsupported';

/**
 * The reference's per-type defaults: ReplicationControllers in core v1 orphan for backward compatibility;
 * events are never garbage collected (no finalizers added, whatever the request says); all else Background.
 * (The old extensions / apps v1beta1 / v1beta2 orphan defaults concern versions this server does not serve.)
 */
export function defaultPolicyOf(group: string, version: string, plural: string): DefaultPolicy {
  if (plural === 'events' && (group === '' || group === EVENTS_GROUP)) return 'Unsupported';
  if (group === '' && version === 'v1' && plural === 'replicationcontrollers') return 'Orphan';
  return 'Background';
}

export interface PropagationRequest {
  propagationPolicy?: string;
  /** The deprecated boolean: true means Orphan, false means Background. */
  orphanDependents?: boolean;
}

/** Rejects an unknown policy, and both forms at once, as the reference's DeleteOptions validation does. */
export function checkPropagation(req: PropagationRequest): void {
  const policy = req.propagationPolicy;
  if (policy !== undefined && !POLICIES.includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Orphan", "Background", "Foreground"`);
  }
  if (policy !== undefined && req.orphanDependents !== undefined) {
    throw badRequest(`propagationPolicy: Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`);
  }
}

/**
 * The object's finalizers after a delete with `req`: the two propagation finalizers are dropped and added
 * back as decided, in this order of precedence: the request (orphanDependents, then propagationPolicy),
 * then a propagation finalizer already on the object, then the type's default. Answers the same array
 * when nothing changes.
 */
export function finalizersAfterDelete(finalizers: readonly string[], req: PropagationRequest, typeDefault: DefaultPolicy): readonly string[] {
  if (typeDefault === 'Unsupported') return finalizers;
  // The common delete (no policy named, a Background type) keeps whatever the object has.
  if (req.orphanDependents === undefined && req.propagationPolicy === undefined && typeDefault === 'Background') return finalizers;
  const orphan = decideOrphan(finalizers, req, typeDefault);
  const foreground = decideForeground(finalizers, req);
  const next = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  return sameSet(finalizers, next) ? finalizers : next;
}

function decideOrphan(finalizers: readonly string[], req: PropagationRequest, typeDefault: DefaultPolicy): boolean {
  if (req.orphanDependents !== undefined) return req.orphanDependents;
  if (req.propagationPolicy !== undefined) return req.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === ORPHAN_FINALIZER) return true;
    if (f === FOREGROUND_FINALIZER) return false;
  }
  return typeDefault === 'Orphan';
}

function decideForeground(finalizers: readonly string[], req: PropagationRequest): boolean {
  if (req.orphanDependents !== undefined) return false;
  if (req.propagationPolicy !== undefined) return req.propagationPolicy === 'Foreground';
  return finalizers.includes(FOREGROUND_FINALIZER);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
