/** HorizontalPodAutoscaler defaults of autoscaling/v2 and autoscaling/v1, as the reference fills them. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { absent, setDefault, type Obj } from '../batch/fields.js';
import { cpuUtilizationMetric, DEFAULT_CPU_UTILIZATION } from './convert.js';

/** Scale up at most 4 pods or 100% per 15s, whichever is more, without stabilization. */
const SCALE_UP_DEFAULTS = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});

/**
 * Scale down at most 100% per 15s. The window stays unset: the controller's own flag (5 minutes unless
 * changed) decides it, so the reference does not write a number here.
 */
const SCALE_DOWN_DEFAULTS = (): Obj => ({
  selectPolicy: 'Max',
  policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
});

/** The client's rules over the defaults, field by field (`copyHPAScalingRules`). */
function scalingRules(given: unknown, defaults: Obj): Obj {
  if (!isObject(given)) return defaults;
  const out: Obj = {};
  const window = absent(given.stabilizationWindowSeconds) ? defaults.stabilizationWindowSeconds : given.stabilizationWindowSeconds;
  if (window !== undefined) out.stabilizationWindowSeconds = window;
  out.selectPolicy = absent(given.selectPolicy) ? defaults.selectPolicy : given.selectPolicy;
  out.policies = absent(given.policies) ? defaults.policies : given.policies;
  return out;
}

/** `SetDefaults_HorizontalPodAutoscaler` of autoscaling/v2. */
export function applyHpaV2Defaults(o: ApiObject): void {
  if (!isObject(o.spec)) o.spec = {};
  const spec = o.spec as Obj;
  setDefault(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  // Behavior is filled in only when the client gave one.
  if (isObject(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, SCALE_UP_DEFAULTS());
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, SCALE_DOWN_DEFAULTS());
  }
}

/** `SetDefaults_HorizontalPodAutoscaler` of autoscaling/v1: only the minimum. */
export function applyHpaV1Defaults(o: ApiObject): void {
  if (!isObject(o.spec)) o.spec = {};
  setDefault(o.spec as Obj, 'minReplicas', 1);
}
