/**
 * DefaultTolerationSeconds (reference plugin, on by default). A pod that does not already tolerate the
 * not-ready and unreachable node taints with effect NoExecute gets tolerations for them that last 300 s, so
 * its pods are evicted from a failed node after five minutes rather than at once.
 */
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../api/naming.js';
import { noConfiguration } from './common.js';
import { isPodWrite, objectsIn, specOf, type Obj } from './pod-request.js';
import type { AdmissionDeps, AdmissionOperation, AdmissionPlugin, AdmissionRequest } from '../types.js';

export const DEFAULT_TOLERATION_SECONDS = 'DefaultTolerationSeconds';
/** The reference's default for both taints (its flags of the same meaning are not offered by orch). */
export const DEFAULT_TOLERATION_SECONDS_VALUE = 300;
const NO_EXECUTE = 'NoExecute';

const blank = (v: unknown) => v === undefined || v === null || v === '';

/** Whether one of `tolerations` covers `key` with effect NoExecute (an empty key or effect matches all). */
export function toleratesNoExecute(tolerations: readonly Obj[], key: string): boolean {
  return tolerations.some((t) => (t.key === key || blank(t.key)) && (t.effect === NO_EXECUTE || blank(t.effect)));
}

/** Adds the missing default tolerations to `spec` in place. */
export function addDefaultTolerations(spec: Obj, seconds = DEFAULT_TOLERATION_SECONDS_VALUE): void {
  const existing = objectsIn(spec.tolerations);
  const missing = [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE].filter((key) => !toleratesNoExecute(existing, key));
  if (missing.length === 0) return;
  const list = Array.isArray(spec.tolerations) ? spec.tolerations : (spec.tolerations = []);
  for (const key of missing) list.push({ key, operator: 'Exists', effect: NO_EXECUTE, tolerationSeconds: seconds });
}

export class DefaultTolerationSecondsPlugin implements AdmissionPlugin {
  readonly name = DEFAULT_TOLERATION_SECONDS;

  handles(op: AdmissionOperation): boolean {
    return op === 'CREATE' || op === 'UPDATE';
  }

  admit(req: AdmissionRequest): void {
    if (!isPodWrite(req)) return;
    const spec = specOf(req.object);
    if (spec) addDefaultTolerations(spec);
  }
}

export function defaultTolerationSecondsPlugin(_deps: AdmissionDeps, configuration: unknown): AdmissionPlugin {
  noConfiguration(DEFAULT_TOLERATION_SECONDS, configuration);
  return new DefaultTolerationSecondsPlugin();
}
