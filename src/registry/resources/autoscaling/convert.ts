/**
 * HorizontalPodAutoscaler between autoscaling/v2 (the stored form) and autoscaling/v1, as the reference
 * converts: v1 has only a CPU utilization target, so everything else v2 can say travels in annotations of the
 * v1 view (other metrics, current metrics, conditions, scaling behavior) and comes back from them on the way
 * in. The behavior annotation holds the reference's internal field names (`ScaleUp`, `Policies`, ...)
 * because that is what its clients have stored for years.
 */
import { AUTOSCALING_ALPHA_PREFIX } from '../../../api/naming.js';
import { isObject, type ApiObject } from '../../../api/types.js';
import { absent, objects, rec, type Obj } from '../batch/fields.js';
import { metricSpecFromV1, metricSpecToV1, metricStatusFromV1, metricStatusToV1 } from './metrics-v1.js';

export const V1_API_VERSION = 'autoscaling/v1';
export const V2_API_VERSION = 'autoscaling/v2';

export const METRICS_ANNOTATION = `${AUTOSCALING_ALPHA_PREFIX}metrics`;
export const CURRENT_METRICS_ANNOTATION = `${AUTOSCALING_ALPHA_PREFIX}current-metrics`;
export const CONDITIONS_ANNOTATION = `${AUTOSCALING_ALPHA_PREFIX}conditions`;
export const BEHAVIOR_ANNOTATION = `${AUTOSCALING_ALPHA_PREFIX}behavior`;
/** Annotations only the conversion writes: dropped from whatever the client sent, in both directions. */
export const ROUND_TRIP_ANNOTATIONS: readonly string[] = [METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];
/** The ones that describe status (the rest describe spec). */
export const STATUS_ANNOTATIONS: readonly string[] = [CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION];

/** The default target of an autoscaler that names no metric: 80% CPU utilization. */
export const DEFAULT_CPU_UTILIZATION = 80;

export function cpuUtilizationMetric(percent: unknown): Obj {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } };
}

const isCpuUtilization = (m: Obj): boolean =>
  m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu' && !absent(rec(m.resource.target).averageUtilization);

/** A copy of the metadata without the round-trip annotations (and without an emptied annotation map). */
function headerOf(apiVersion: string, from: ApiObject): { out: ApiObject; annotations: Record<string, string> } {
  const out: ApiObject = { apiVersion, kind: 'HorizontalPodAutoscaler' };
  const annotations: Record<string, string> = {};
  if (from.metadata !== undefined) {
    const meta = structuredClone(from.metadata);
    for (const [k, v] of Object.entries(rec(meta.annotations))) if (!ROUND_TRIP_ANNOTATIONS.includes(k)) annotations[k] = v as string;
    delete meta.annotations;
    out.metadata = meta;
  }
  return { out, annotations };
}

function setAnnotations(o: ApiObject, annotations: Record<string, string>): void {
  if (Object.keys(annotations).length === 0) return;
  o.metadata = { ...(o.metadata ?? {}), annotations };
}

/** Parses an annotation holding a JSON list; a broken one is ignored, as the reference does. */
function parseList(v: unknown): Obj[] | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.filter(isObject) : undefined;
  } catch {
    return undefined;
  }
}

// ---- behavior in the reference's internal JSON form ----

function rulesToInternal(r: unknown): Obj | null {
  if (!isObject(r)) return null;
  return {
    StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
    SelectPolicy: r.selectPolicy ?? null,
    Policies: Array.isArray(r.policies) ? objects(r.policies).map((p) => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })) : null,
  };
}

export function behaviorToAnnotation(b: Obj): string {
  return JSON.stringify({ ScaleUp: rulesToInternal(b.scaleUp), ScaleDown: rulesToInternal(b.scaleDown) });
}

/** Go's JSON decoding matches field names without regard to case. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const key = Object.keys(o).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : o[key];
}

function rulesFromInternal(r: unknown): Obj | undefined {
  if (!isObject(r)) return undefined;
  const out: Obj = {};
  const window = field(r, 'StabilizationWindowSeconds');
  const select = field(r, 'SelectPolicy');
  const policies = field(r, 'Policies');
  if (!absent(window)) out.stabilizationWindowSeconds = window;
  if (!absent(select)) out.selectPolicy = select;
  if (Array.isArray(policies) && policies.length > 0) {
    out.policies = objects(policies).map((p) => ({ type: field(p, 'Type') ?? '', value: field(p, 'Value') ?? 0, periodSeconds: field(p, 'PeriodSeconds') ?? 0 }));
  }
  return out;
}

/** The behavior an annotation describes; undefined for a broken or empty one. */
export function behaviorFromAnnotation(v: unknown): Obj | undefined {
  if (typeof v !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (!isObject(parsed)) return undefined;
  const scaleUp = rulesFromInternal(field(parsed, 'ScaleUp'));
  const scaleDown = rulesFromInternal(field(parsed, 'ScaleDown'));
  if (!scaleUp && !scaleDown) return undefined;
  const out: Obj = {};
  if (scaleUp) out.scaleUp = scaleUp;
  if (scaleDown) out.scaleDown = scaleDown;
  return out;
}

// ---- the two directions ----

/** Stored (v2) -> v1 view. */
export function hpaV2ToV1(v2: ApiObject): ApiObject {
  const { out, annotations } = headerOf(V1_API_VERSION, v2);
  const spec = rec(v2.spec);
  const metrics = objects(spec.metrics);
  const v1Spec: Obj = { scaleTargetRef: structuredClone(spec.scaleTargetRef ?? {}) };
  if (!absent(spec.minReplicas)) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = metrics.find(isCpuUtilization);
  if (cpu) v1Spec.targetCPUUtilizationPercentage = rec(rec(cpu.resource).target).averageUtilization;
  out.spec = v1Spec;
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (isObject(spec.behavior)) annotations[BEHAVIOR_ANNOTATION] = behaviorToAnnotation(spec.behavior);

  if (v2.status !== undefined) {
    const status = rec(v2.status);
    const v1Status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime']) if (!absent(status[k])) v1Status[k] = status[k];
    v1Status.currentReplicas = status.currentReplicas ?? 0;
    v1Status.desiredReplicas = status.desiredReplicas ?? 0;
    const current = objects(status.currentMetrics);
    // The last CPU reading with a utilization wins, as in the reference.
    for (const m of current) {
      const utilization = m.type === 'Resource' && isObject(m.resource) && m.resource.name === 'cpu' ? rec(m.resource.current).averageUtilization : undefined;
      if (!absent(utilization)) v1Status.currentCPUUtilizationPercentage = utilization;
    }
    out.status = v1Status;
    if (current.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(metricStatusToV1));
    const conditions = objects(status.conditions);
    if (conditions.length > 0) {
      const v1Conditions = conditions.map((c) => {
        const o: Obj = { type: c.type, status: c.status };
        for (const k of ['lastTransitionTime', 'reason', 'message']) if (!absent(c[k]) && c[k] !== '') o[k] = c[k];
        return o;
      });
      annotations[CONDITIONS_ANNOTATION] = JSON.stringify(v1Conditions);
    }
  }
  setAnnotations(out, annotations);
  return out;
}

/** v1 view -> stored (v2) form, before the v2 defaults. */
export function hpaV1ToV2(v1: ApiObject): ApiObject {
  const { out, annotations } = headerOf(V2_API_VERSION, v1);
  const given = rec(v1.metadata?.annotations);
  const spec = rec(v1.spec);
  const v2Spec: Obj = { scaleTargetRef: structuredClone(spec.scaleTargetRef ?? {}) };
  if (!absent(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas;
  v2Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = absent(spec.targetCPUUtilizationPercentage) ? [] : [cpuUtilizationMetric(spec.targetCPUUtilizationPercentage)];
  const others = (parseList(given[METRICS_ANNOTATION]) ?? []).map(metricSpecFromV1);
  const metrics = [...others, ...cpu];
  // v1 always meant "80% CPU" when no target was given; v2 says it explicitly.
  v2Spec.metrics = metrics.length > 0 ? metrics : [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  const behavior = behaviorFromAnnotation(given[BEHAVIOR_ANNOTATION]);
  if (behavior) v2Spec.behavior = behavior;
  out.spec = v2Spec;

  const currentFromAnnotation = parseList(given[CURRENT_METRICS_ANNOTATION]);
  const conditions = parseList(given[CONDITIONS_ANNOTATION]);
  if (v1.status !== undefined || currentFromAnnotation || conditions) {
    const status = rec(v1.status);
    const v2Status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime']) if (!absent(status[k])) v2Status[k] = status[k];
    if (typeof status.currentReplicas === 'number' && status.currentReplicas !== 0) v2Status.currentReplicas = status.currentReplicas;
    v2Status.desiredReplicas = status.desiredReplicas ?? 0;
    let current: Obj[] = [];
    if (!absent(status.currentCPUUtilizationPercentage)) {
      current = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
    }
    if (currentFromAnnotation) current = currentFromAnnotation.map(metricStatusFromV1);
    if (current.length > 0) v2Status.currentMetrics = current;
    if (conditions && conditions.length > 0) v2Status.conditions = conditions;
    out.status = v2Status;
  }
  setAnnotations(out, annotations);
  return out;
}
