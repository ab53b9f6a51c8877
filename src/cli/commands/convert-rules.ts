/**
 * The conversions `orchctl convert` can do on its own (spec 9.6, 9.7): the kinds this server serves in
 * more than one version whose versions differ only by renames or a known field mapping. orchctl is a client
 * and carries no scheme, so the table is small and explicit: a conversion that would lose or invent data
 * (an autoscaling/v2 metric autoscaling/v1 has no field for) is refused with a message naming the field,
 * never approximated. Everything here is pure.
 */
import { AUTOSCALING_ALPHA_PREFIX, EVENTS_GROUP, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION, GROUP_SUFFIX } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

export const FLOWCONTROL_GROUP = `flowcontrol.apiserver.${GROUP_SUFFIX}`;
type Obj = Record<string, unknown>;

/** A refused conversion: the message names the kind, the versions and the reason. */
export class ConversionError extends Error {
  override readonly name = 'ConversionError';
}

export interface ConversionRule {
  kind: string;
  /** apiVersion spellings (`autoscaling/v1`, `v1`). */
  from: string;
  to: string;
  convert(o: KubeObject): KubeObject;
}

/** The version of each group orchctl converts to when neither the flag nor a server says (the reference's preferred ones). */
export const LOCAL_PREFERRED: Readonly<Record<string, string>> = {
  autoscaling: 'v2',
  [FLOWCONTROL_GROUP]: 'v1',
  [EVENTS_GROUP]: 'v1',
  '': 'v1',
};

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const rec = (v: unknown): Obj => (isObj(v) ? v : {});
const set = (v: unknown): boolean => v !== undefined && v !== null;

/** A deep copy with a new apiVersion. */
function retagged(o: KubeObject, apiVersion: string): KubeObject {
  return { ...structuredClone(o), apiVersion };
}

/** Removes one annotation in place (and the map, when that empties it, as omitempty would). */
function withoutAnnotation(o: KubeObject, key: string): void {
  const annotations = o.metadata?.annotations;
  if (!annotations || !Object.hasOwn(annotations, key)) return;
  delete annotations[key];
  if (Object.keys(annotations).length === 0) delete o.metadata.annotations;
}

// ---- flowcontrol v1beta3 <-> v1 ----

/** v1 -> v1beta3: an explicit 0 share count only survives v1beta3 with the preserve-zero annotation. */
function priorityLevelToV1beta3(o: KubeObject): KubeObject {
  const out = retagged(o, `${FLOWCONTROL_GROUP}/v1beta3`);
  const limited = rec(rec(out.spec).limited);
  if (limited.nominalConcurrencyShares === 0) {
    out.metadata ??= {};
    out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION]: '' };
  }
  return out;
}

/** v1beta3 -> v1: a 0 without the annotation meant "use the default" in v1beta3, which v1 says by leaving it unset. */
function priorityLevelToV1(o: KubeObject): KubeObject {
  const out = retagged(o, `${FLOWCONTROL_GROUP}/v1`);
  const keepZero = Object.hasOwn(out.metadata?.annotations ?? {}, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION);
  withoutAnnotation(out, FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION);
  const limited = rec(out.spec).limited;
  if (isObj(limited) && limited.nominalConcurrencyShares === 0 && !keepZero) delete limited.nominalConcurrencyShares;
  return out;
}

// ---- autoscaling v1 <-> v2 HorizontalPodAutoscaler ----

const isCpuUtilization = (m: Obj): boolean => {
  const r = rec(m.resource);
  return m.type === 'Resource' && r.name === 'cpu' && rec(r.target).type === 'Utilization';
};

function refuseHpa(o: KubeObject, to: string, why: string): never {
  throw new ConversionError(`HorizontalPodAutoscaler "${o.metadata?.name ?? ''}" cannot be converted to ${to}: ${why}`);
}

/** v2 -> v1: only a CPU utilization target has a v1 field; anything else would be lost, so it is refused. */
function hpaToV1(o: KubeObject): KubeObject {
  const to = 'autoscaling/v1';
  const out = retagged(o, to);
  const spec = rec(o.spec);
  const metrics = Array.isArray(spec.metrics) ? spec.metrics.map(rec) : [];
  const other = metrics.find((m) => !isCpuUtilization(m));
  if (other) refuseHpa(o, to, `spec.metrics has a ${String(other.type)} metric; ${to} only has targetCPUUtilizationPercentage`);
  if (metrics.length > 1) refuseHpa(o, to, `spec.metrics has ${metrics.length} CPU targets; ${to} holds one`);
  if (set(spec.behavior)) refuseHpa(o, to, `spec.behavior has no ${to} field`);
  const v1Spec: Obj = { scaleTargetRef: structuredClone(spec.scaleTargetRef ?? {}) };
  if (set(spec.minReplicas)) v1Spec.minReplicas = spec.minReplicas;
  if (set(spec.maxReplicas)) v1Spec.maxReplicas = spec.maxReplicas;
  if (metrics.length === 1) v1Spec.targetCPUUtilizationPercentage = rec(rec(metrics[0]!.resource).target).averageUtilization;
  out.spec = v1Spec;
  if (set(o.status)) {
    const status = rec(o.status);
    const current = Array.isArray(status.currentMetrics) ? status.currentMetrics.map(rec) : [];
    const cpu = current.filter((m) => m.type === 'Resource' && rec(m.resource).name === 'cpu');
    if (current.length > cpu.length || cpu.length > 1) refuseHpa(o, to, `status.currentMetrics has readings ${to} has no field for`);
    if (Array.isArray(status.conditions) && status.conditions.length > 0) refuseHpa(o, to, `status.conditions has no ${to} field`);
    const v1Status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (set(status[k])) v1Status[k] = status[k];
    const utilization = rec(rec(cpu[0]?.resource).current).averageUtilization;
    if (set(utilization)) v1Status.currentCPUUtilizationPercentage = utilization;
    out.status = v1Status;
  }
  return out;
}

const cpuTarget = (percent: unknown): Obj => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: percent } } });
/** What autoscaling/v1 means when no target is given (the reference's default). */
export const DEFAULT_CPU_UTILIZATION = 80;

/** v1 -> v2. The alpha annotations carry v2 fields the server reads back; converting them is the server's job. */
function hpaToV2(o: KubeObject): KubeObject {
  const to = 'autoscaling/v2';
  const alpha = Object.keys(o.metadata?.annotations ?? {}).find((k) => k.startsWith(AUTOSCALING_ALPHA_PREFIX));
  if (alpha) refuseHpa(o, to, `annotation ${alpha} holds fields only the server converts; read the object from the server in ${to} instead`);
  const out = retagged(o, to);
  const spec = rec(o.spec);
  const v2Spec: Obj = { scaleTargetRef: structuredClone(spec.scaleTargetRef ?? {}) };
  if (set(spec.minReplicas)) v2Spec.minReplicas = spec.minReplicas;
  if (set(spec.maxReplicas)) v2Spec.maxReplicas = spec.maxReplicas;
  v2Spec.metrics = [cpuTarget(spec.targetCPUUtilizationPercentage ?? DEFAULT_CPU_UTILIZATION)];
  out.spec = v2Spec;
  if (set(o.status)) {
    const status = rec(o.status);
    const v2Status: Obj = {};
    for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (set(status[k])) v2Status[k] = status[k];
    if (set(status.currentCPUUtilizationPercentage)) {
      v2Status.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }];
    }
    out.status = v2Status;
  }
  return out;
}

// ---- Event: core v1 <-> events/v1 ----

/** [events/v1 field, core v1 field]. */
const EVENT_FIELDS: readonly (readonly [string, string])[] = [
  ['eventTime', 'eventTime'], ['series', 'series'], ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'], ['action', 'action'], ['reason', 'reason'], ['regarding', 'involvedObject'],
  ['related', 'related'], ['note', 'message'], ['type', 'type'], ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'], ['deprecatedCount', 'count'],
];
const EVENT_KNOWN = new Set(['apiVersion', 'kind', 'metadata']);

function renameEvent(o: KubeObject, apiVersion: string, pairs: readonly (readonly [string, string])[]): KubeObject {
  const source = o as Obj;
  const known = new Set([...EVENT_KNOWN, ...pairs.map(([, from]) => from)]);
  const unknown = Object.keys(source).find((k) => !known.has(k));
  if (unknown) throw new ConversionError(`Event "${o.metadata?.name ?? ''}" cannot be converted to ${apiVersion}: field "${unknown}" is not an Event field of ${o.apiVersion}`);
  const out: Obj = { apiVersion, kind: 'Event' };
  if (o.metadata) out.metadata = structuredClone(o.metadata);
  for (const [to, from] of pairs) if (set(source[from])) out[to] = structuredClone(source[from]);
  return out as KubeObject;
}

const EVENTS_V1 = `${EVENTS_GROUP}/v1`;

export const CONVERSION_RULES: readonly ConversionRule[] = [
  ...['FlowSchema', 'PriorityLevelConfiguration'].flatMap((kind) => [
    { kind, from: `${FLOWCONTROL_GROUP}/v1`, to: `${FLOWCONTROL_GROUP}/v1beta3`, convert: kind === 'FlowSchema' ? (o: KubeObject) => retagged(o, `${FLOWCONTROL_GROUP}/v1beta3`) : priorityLevelToV1beta3 },
    { kind, from: `${FLOWCONTROL_GROUP}/v1beta3`, to: `${FLOWCONTROL_GROUP}/v1`, convert: kind === 'FlowSchema' ? (o: KubeObject) => retagged(o, `${FLOWCONTROL_GROUP}/v1`) : priorityLevelToV1 },
  ]),
  { kind: 'HorizontalPodAutoscaler', from: 'autoscaling/v2', to: 'autoscaling/v1', convert: hpaToV1 },
  { kind: 'HorizontalPodAutoscaler', from: 'autoscaling/v1', to: 'autoscaling/v2', convert: hpaToV2 },
  { kind: 'Event', from: 'v1', to: EVENTS_V1, convert: (o) => renameEvent(o, EVENTS_V1, EVENT_FIELDS) },
  { kind: 'Event', from: EVENTS_V1, to: 'v1', convert: (o) => renameEvent(o, 'v1', EVENT_FIELDS.map(([a, b]) => [b, a] as const)) },
];

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** Whether a rule links the object's kind and version to `target` across groups (core Event <-> events/v1). */
const crossGroupRule = (o: KubeObject, target: string) =>
  CONVERSION_RULES.find((r) => r.kind === o.kind && r.from === o.apiVersion && r.to === target && groupOf(r.from) !== groupOf(r.to));

/** The conversions orchctl knows, as text for messages. */
export function supportedConversions(): string {
  return CONVERSION_RULES.map((r) => `${r.kind} ${r.from} -> ${r.to}`).join(', ');
}

/**
 * `o` in `target` (an apiVersion), or `preferred(group)` of its own group when no target is given. An object
 * of another group than the target is left as it is, as the reference does with mixed manifests, unless a
 * rule links the two groups. A version change with no rule is refused.
 */
export function convertObject(o: KubeObject, target: string | undefined, preferred: (group: string) => string | undefined): KubeObject {
  if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') throw new ConversionError('an object without apiVersion and kind cannot be converted');
  const group = groupOf(o.apiVersion);
  let to: string | undefined = target;
  if (to !== undefined && groupOf(to) !== group && !crossGroupRule(o, to)) to = undefined;
  if (to === undefined) {
    const version = preferred(group);
    to = version === undefined ? o.apiVersion : group ? `${group}/${version}` : version;
  }
  if (to === o.apiVersion) return structuredClone(o);
  const rule = CONVERSION_RULES.find((r) => r.kind === o.kind && r.from === o.apiVersion && r.to === to);
  if (!rule) {
    throw new ConversionError(`orchctl cannot convert ${o.kind} from ${o.apiVersion} to ${to}: it converts only ${supportedConversions()}`);
  }
  return rule.convert(o);
}
