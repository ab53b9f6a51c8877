/**
 * TaintNodesByCondition (reference plugin, on by default): a new Node gets the not-ready taint with effect
 * NoSchedule, so nothing is scheduled onto it before its agent reports it ready (the node lifecycle then
 * removes the taint). A node that already carries that key and effect is left as it is.
 */
import { TAINT_NODE_NOT_READY } from '../../api/naming.js';
import { isObject } from '../../api/types.js';
import { noConfiguration } from './common.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const TAINT_NODES_BY_CONDITION = 'TaintNodesByCondition';
const NO_SCHEDULE = 'NoSchedule';

/** Adds the not-ready NoSchedule taint to a node's spec unless one with that key and effect is there. */
export function addNotReadyTaint(node: Record<string, unknown>): void {
  const spec = isObject(node.spec) ? node.spec : (node.spec = {});
  const taints = Array.isArray(spec.taints) ? spec.taints : (spec.taints = []);
  const present = taints.some((t: unknown) => isObject(t) && t.key === TAINT_NODE_NOT_READY && t.effect === NO_SCHEDULE);
  if (!present) taints.push({ key: TAINT_NODE_NOT_READY, effect: NO_SCHEDULE });
}

export class TaintNodesByConditionPlugin implements AdmissionPlugin {
  readonly name = TAINT_NODES_BY_CONDITION;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE';
  }

  admit(req: AdmissionRequest): void {
    if (req.resource.group !== '' || req.resource.resource !== 'nodes' || req.subResource !== '' || !req.object) return;
    addNotReadyTaint(req.object);
  }
}

export function taintNodesByConditionPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(TAINT_NODES_BY_CONDITION, configuration);
  return new TaintNodesByConditionPlugin();
}
