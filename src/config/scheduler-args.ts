/**
 * Arguments of the in-tree scheduler plugins (`pluginConfig[].args`, spec 2.12 "Scheduler plugin args"):
 * one decoder per args kind applying the reference's defaults and checking its ranges. Pure; every problem
 * is reported with its field path.
 */
import { isObject } from '../api/types.js';
import { decodeBlock, supportedValues, type Decoded, type Problems, type Schema } from './fields.js';

export interface ResourceSpec {
  name: string;
  weight: number;
}
export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}
export interface DefaultPreemptionArgs {
  kind: 'DefaultPreemptionArgs';
  minCandidateNodesPercentage: number;
  minCandidateNodesAbsolute: number;
}
export interface InterPodAffinityArgs {
  kind: 'InterPodAffinityArgs';
  hardPodAffinityWeight: number;
  ignorePreferredTermsOfExistingPods: boolean;
}
export interface NodeAffinityArgs {
  kind: 'NodeAffinityArgs';
  /** A pod-style NodeAffinity added to every pod's own; absent when not configured. */
  addedAffinity?: Decoded;
}
export interface NodeResourcesBalancedAllocationArgs {
  kind: 'NodeResourcesBalancedAllocationArgs';
  resources: ResourceSpec[];
}
export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
export interface NodeResourcesFitArgs {
  kind: 'NodeResourcesFitArgs';
  ignoredResources: string[];
  ignoredResourceGroups: string[];
  scoringStrategy: { type: ScoringStrategyType; resources: ResourceSpec[]; requestedToCapacityRatio?: { shape: UtilizationShapePoint[] } };
}
export interface PodTopologySpreadArgs {
  kind: 'PodTopologySpreadArgs';
  defaultConstraints: Decoded[];
  defaultingType: 'System' | 'List';
}
export interface VolumeBindingArgs {
  kind: 'VolumeBindingArgs';
  bindTimeoutSeconds: number;
  /** Only with the VolumeCapacityPriority feature (alpha in 1.31); empty otherwise. */
  shape: UtilizationShapePoint[];
}
export type PluginArgs =
  | DefaultPreemptionArgs
  | InterPodAffinityArgs
  | NodeAffinityArgs
  | NodeResourcesBalancedAllocationArgs
  | NodeResourcesFitArgs
  | PodTopologySpreadArgs
  | VolumeBindingArgs;

export interface ArgsOptions {
  /** The VolumeCapacityPriority feature gate: allows (and defaults) VolumeBindingArgs.shape. Off by default as in 1.31. */
  volumeCapacityPriority?: boolean;
}

/** The most a custom score (a shape point's score) may be. */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
export const SCORING_STRATEGY_TYPES: readonly ScoringStrategyType[] = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];
const DEFAULT_RESOURCES: readonly ResourceSpec[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];
const q = (v: unknown) => JSON.stringify(v ?? '');

const RESOURCE: Schema = { name: { t: 'str', d: '' }, weight: { t: 'int', d: 0 } };
const SHAPE_POINT: Schema = { utilization: { t: 'int', d: 0 }, score: { t: 'int', d: 0 } };
const REQUIREMENT: Schema = { key: { t: 'str', d: '' }, operator: { t: 'str', d: '' }, values: { t: 'strs' } };
const TERM: Schema = { matchExpressions: { t: 'list', of: REQUIREMENT }, matchFields: { t: 'list', of: REQUIREMENT } };
const NODE_AFFINITY: Schema = {
  requiredDuringSchedulingIgnoredDuringExecution: { t: 'obj', fields: { nodeSelectorTerms: { t: 'list', of: TERM } } },
  preferredDuringSchedulingIgnoredDuringExecution: { t: 'list', of: { weight: { t: 'int', d: 0 }, preference: { t: 'obj', fields: TERM } } },
};
const CONSTRAINT: Schema = {
  maxSkew: { t: 'int', d: 0 },
  topologyKey: { t: 'str', d: '' },
  whenUnsatisfiable: { t: 'str', d: '' },
  minDomains: { t: 'int', min: 1 },
  nodeAffinityPolicy: { t: 'str', oneOf: ['Honor', 'Ignore'] },
  nodeTaintsPolicy: { t: 'str', oneOf: ['Honor', 'Ignore'] },
  matchLabelKeys: { t: 'strs' },
};

/** The args kinds by plugin name: a plugin not listed here takes no args. */
export const ARGS_DECODERS: Readonly<Record<string, (v: unknown, path: string, problems: Problems, opts: ArgsOptions) => PluginArgs>> = {
  DefaultPreemption: decodeDefaultPreemption,
  InterPodAffinity: decodeInterPodAffinity,
  NodeAffinity: decodeNodeAffinity,
  NodeResourcesBalancedAllocation: decodeBalancedAllocation,
  NodeResourcesFit: decodeNodeResourcesFit,
  PodTopologySpread: decodePodTopologySpread,
  VolumeBinding: decodeVolumeBinding,
};

/** Strips the optional `apiVersion`/`kind` of an args object after checking they name this plugin's kind. */
export function argsBody(v: unknown, plugin: string, apiVersion: string, path: string, problems: Problems): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) {
    problems.push(`${path}: Invalid value: ${q(v)}: must be an object`);
    return {};
  }
  const { apiVersion: av, kind, ...rest } = v;
  if (kind !== undefined && kind !== `${plugin}Args`) problems.push(`${path}.kind: Invalid value: ${q(kind)}: has to match plugin args (${plugin}Args)`);
  if (av !== undefined && av !== apiVersion) problems.push(`${path}.apiVersion: Unsupported value: ${q(av)}: ${supportedValues([apiVersion])}`);
  return rest;
}

function decodeDefaultPreemption(v: unknown, path: string, problems: Problems): DefaultPreemptionArgs {
  const d = decodeBlock(v, { minCandidateNodesPercentage: { t: 'int', d: 10 }, minCandidateNodesAbsolute: { t: 'int', d: 100 } }, path, problems);
  const pct = d.minCandidateNodesPercentage as number;
  const abs = d.minCandidateNodesAbsolute as number;
  if (pct < 0 || pct > 100) problems.push(`${path}.minCandidateNodesPercentage: Invalid value: ${pct}: not in valid range [0, 100]`);
  if (abs < 0) problems.push(`${path}.minCandidateNodesAbsolute: Invalid value: ${abs}: not in valid range [0, inf)`);
  if (pct === 0 && abs === 0) {
    problems.push(`${path}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute`);
    problems.push(`${path}.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage`);
  }
  return { kind: 'DefaultPreemptionArgs', minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs };
}

function decodeInterPodAffinity(v: unknown, path: string, problems: Problems): InterPodAffinityArgs {
  const d = decodeBlock(v, { hardPodAffinityWeight: { t: 'int', d: 1, min: 0, max: 100, rule: 'not in valid range [0, 100]' }, ignorePreferredTermsOfExistingPods: { t: 'bool', d: false } }, path, problems);
  return { kind: 'InterPodAffinityArgs', hardPodAffinityWeight: d.hardPodAffinityWeight as number, ignorePreferredTermsOfExistingPods: d.ignorePreferredTermsOfExistingPods as boolean };
}

function decodeNodeAffinity(v: unknown, path: string, problems: Problems): NodeAffinityArgs {
  const raw = isObject(v) ? v.addedAffinity : undefined;
  const d = decodeBlock(v, { addedAffinity: { t: 'obj', fields: NODE_AFFINITY } }, path, problems);
  if (raw === undefined || raw === null) return { kind: 'NodeAffinityArgs' };
  const affinity = d.addedAffinity as Decoded;
  const at = `${path}.addedAffinity`;
  const required = isObject(raw) ? raw.requiredDuringSchedulingIgnoredDuringExecution : undefined;
  if (required !== undefined && required !== null) {
    const terms = (affinity.requiredDuringSchedulingIgnoredDuringExecution as Decoded).nodeSelectorTerms as Decoded[];
    terms.forEach((t, i) => checkTerm(t, `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`, problems));
  } else delete affinity.requiredDuringSchedulingIgnoredDuringExecution;
  (affinity.preferredDuringSchedulingIgnoredDuringExecution as Decoded[]).forEach((p, i) => {
    const pAt = `${at}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const w = p.weight as number;
    if (w < 1 || w > 100) problems.push(`${pAt}.weight: Invalid value: ${w}: must be in the range 1-100`);
    checkTerm(p.preference as Decoded, `${pAt}.preference`, problems);
  });
  return { kind: 'NodeAffinityArgs', addedAffinity: affinity };
}

/** A node selector term: label requirements on the node's labels, field requirements on `metadata.name` only. */
function checkTerm(term: Decoded, path: string, problems: Problems): void {
  (term.matchExpressions as Decoded[]).forEach((r, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const key = r.key as string;
    for (const m of qualifiedNameProblems(key)) problems.push(`${at}.key: Invalid value: ${q(key)}: ${m}`);
    const values = (r.values as string[] | undefined) ?? [];
    const op = r.operator as string;
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) problems.push(`${at}.values: Required value: must be specified when operator is In or NotIn`);
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) problems.push(`${at}.values: Forbidden: may not be specified when operator is Exists or DoesNotExist`);
    } else if (op === 'Gt' || op === 'Lt') {
      if (values.length !== 1 || !/^-?\d+$/.test(values[0]!)) problems.push(`${at}.values: Invalid value: ${q(values)}: must be a single integer when operator is Gt or Lt`);
    } else problems.push(`${at}.operator: Unsupported value: ${q(op)}: ${supportedValues(['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'])}`);
    values.forEach((val, j) => {
      for (const m of labelValueProblems(val)) problems.push(`${at}.values[${j}]: Invalid value: ${q(val)}: ${m}`);
    });
  });
  (term.matchFields as Decoded[]).forEach((r, i) => {
    const at = `${path}.matchFields[${i}]`;
    if (r.key !== 'metadata.name') problems.push(`${at}.key: Invalid value: ${q(r.key)}: not a valid field selector key; the only one is "metadata.name"`);
    if (r.operator !== 'In' && r.operator !== 'NotIn') problems.push(`${at}.operator: Unsupported value: ${q(r.operator)}: ${supportedValues(['In', 'NotIn'])}`);
    const values = (r.values as string[] | undefined) ?? [];
    if (values.length !== 1) problems.push(`${at}.values: Invalid value: ${q(values)}: must have exactly one value`);
  });
}

function decodeResources(list: Decoded[], path: string, problems: Problems): ResourceSpec[] {
  return list.map((r, i) => {
    const weight = (r.weight as number) || 1;
    if (weight < 1 || weight > 100) problems.push(`${path}[${i}].weight: Invalid value: ${weight}: resource weight of ${r.name} not in valid range [1, 100]`);
    return { name: r.name as string, weight };
  });
}

function decodeBalancedAllocation(v: unknown, path: string, problems: Problems): NodeResourcesBalancedAllocationArgs {
  const d = decodeBlock(v, { resources: { t: 'list', of: RESOURCE } }, path, problems);
  const given = d.resources as Decoded[];
  const resources = given.length === 0 ? DEFAULT_RESOURCES.map((r) => ({ ...r })) : given.map((r) => ({ name: r.name as string, weight: (r.weight as number) || 1 }));
  const seen = new Set<string>();
  resources.forEach((r, i) => {
    if (seen.has(r.name)) problems.push(`${path}.resources[${i}].name: Duplicate value: ${q(r.name)}`);
    seen.add(r.name);
    if (r.weight !== 1) problems.push(`${path}.resources[${i}].weight: Invalid value: ${r.weight}: must be 1`);
  });
  return { kind: 'NodeResourcesBalancedAllocationArgs', resources };
}

function decodeNodeResourcesFit(v: unknown, path: string, problems: Problems): NodeResourcesFitArgs {
  const rawStrategy = isObject(v) ? v.scoringStrategy : undefined;
  const d = decodeBlock(v, {
    ignoredResources: { t: 'strs' },
    ignoredResourceGroups: { t: 'strs' },
    scoringStrategy: { t: 'obj', fields: { type: { t: 'str', d: '' }, resources: { t: 'list', of: RESOURCE }, requestedToCapacityRatio: { t: 'obj', fields: { shape: { t: 'list', of: SHAPE_POINT } } } } },
  }, path, problems);
  const ignoredResources = (d.ignoredResources as string[] | undefined) ?? [];
  const ignoredResourceGroups = (d.ignoredResourceGroups as string[] | undefined) ?? [];
  ignoredResources.forEach((r, i) => {
    for (const m of qualifiedNameProblems(r)) problems.push(`${path}.ignoredResources[${i}]: Invalid value: ${q(r)}: ${m}`);
  });
  ignoredResourceGroups.forEach((g, i) => {
    if (g.includes('/')) problems.push(`${path}.ignoredResourceGroups[${i}]: Invalid value: ${q(g)}: resource group name can't contain '/'`);
    else for (const m of qualifiedNameProblems(g)) problems.push(`${path}.ignoredResourceGroups[${i}]: Invalid value: ${q(g)}: ${m}`);
  });
  const s = d.scoringStrategy as Decoded;
  const sAt = `${path}.scoringStrategy`;
  const given = rawStrategy !== undefined && rawStrategy !== null;
  const type = (given ? s.type : 'LeastAllocated') as ScoringStrategyType;
  if (!SCORING_STRATEGY_TYPES.includes(type)) problems.push(`${sAt}.type: Unsupported value: ${q(type)}: ${supportedValues(SCORING_STRATEGY_TYPES)}`);
  const list = s.resources as Decoded[];
  const resources = list.length === 0 ? DEFAULT_RESOURCES.map((r) => ({ ...r })) : decodeResources(list, `${sAt}.resources`, problems);
  const strategy: NodeResourcesFitArgs['scoringStrategy'] = { type, resources };
  const rawRatio = isObject(rawStrategy) ? rawStrategy.requestedToCapacityRatio : undefined;
  if (rawRatio !== undefined && rawRatio !== null) {
    const shape = decodeShape((s.requestedToCapacityRatio as Decoded).shape as Decoded[], `${sAt}.requestedToCapacityRatio.shape`, problems);
    strategy.requestedToCapacityRatio = { shape };
  } else if (type === 'RequestedToCapacityRatio') {
    problems.push(`${sAt}.requestedToCapacityRatio: Required value: the RequestedToCapacityRatio strategy needs a shape`);
  }
  return { kind: 'NodeResourcesFitArgs', ignoredResources, ignoredResourceGroups, scoringStrategy: strategy };
}

/** A utilization-to-score curve: at least one point, utilization strictly increasing in 0..100, score 0..10. */
function decodeShape(points: Decoded[], path: string, problems: Problems): UtilizationShapePoint[] {
  const shape = points.map((p) => ({ utilization: p.utilization as number, score: p.score as number }));
  if (shape.length === 0) problems.push(`${path}: Required value: at least one point must be specified`);
  const unsorted = shape.findIndex((p, i) => i > 0 && shape[i - 1]!.utilization >= p.utilization);
  if (unsorted > 0) problems.push(`${path}[${unsorted}].utilization: Invalid value: ${shape[unsorted]!.utilization}: utilization values must be sorted in increasing order`);
  shape.forEach((p, i) => {
    if (p.utilization < 0 || p.utilization > 100) problems.push(`${path}[${i}].utilization: Invalid value: ${p.utilization}: not in valid range [0, 100]`);
    if (p.score < 0 || p.score > MAX_CUSTOM_PRIORITY_SCORE) problems.push(`${path}[${i}].score: Invalid value: ${p.score}: not in valid range [0, ${MAX_CUSTOM_PRIORITY_SCORE}]`);
  });
  return shape;
}

function decodePodTopologySpread(v: unknown, path: string, problems: Problems): PodTopologySpreadArgs {
  const body = isObject(v) ? { ...v } : v;
  const rawConstraints = isObject(body) && Array.isArray(body.defaultConstraints) ? body.defaultConstraints : [];
  // A default constraint applies to every pod, so its selector is derived from each pod, never written.
  const stripped = rawConstraints.map((c, i) => {
    if (!isObject(c) || c.labelSelector === undefined) return c;
    problems.push(`${path}.defaultConstraints[${i}].labelSelector: Forbidden: constraint must not define a selector, as it is deduced for each pod`);
    const { labelSelector: _, ...rest } = c;
    return rest;
  });
  if (isObject(body) && Array.isArray(body.defaultConstraints)) body.defaultConstraints = stripped;
  const d = decodeBlock(body, { defaultConstraints: { t: 'list', of: CONSTRAINT }, defaultingType: { t: 'str', d: 'System' } }, path, problems);
  const constraints = d.defaultConstraints as Decoded[];
  const type = d.defaultingType as string;
  if (type !== 'System' && type !== 'List') problems.push(`${path}.defaultingType: Unsupported value: ${q(type)}: ${supportedValues(['System', 'List'])}`);
  else if (type === 'System' && constraints.length > 0) problems.push(`${path}.defaultingType: Invalid value: "System": when .defaultConstraints are not empty`);
  const seen = new Set<string>();
  constraints.forEach((c, i) => {
    const at = `${path}.defaultConstraints[${i}]`;
    if ((c.maxSkew as number) <= 0) problems.push(`${at}.maxSkew: Invalid value: ${c.maxSkew}: not in valid range (0, inf)`);
    const key = c.topologyKey as string;
    if (key === '') problems.push(`${at}.topologyKey: Required value: can not be empty`);
    else for (const m of qualifiedNameProblems(key)) problems.push(`${at}.topologyKey: Invalid value: ${q(key)}: ${m}`);
    const when = c.whenUnsatisfiable as string;
    if (when === '') problems.push(`${at}.whenUnsatisfiable: Required value: can not be empty`);
    else if (when !== 'DoNotSchedule' && when !== 'ScheduleAnyway') problems.push(`${at}.whenUnsatisfiable: Unsupported value: ${q(when)}: ${supportedValues(['DoNotSchedule', 'ScheduleAnyway'])}`);
    const pair = `{${key}, ${when}}`;
    if (seen.has(pair)) problems.push(`${at}: Duplicate value: ${q(pair)}`);
    seen.add(pair);
  });
  return { kind: 'PodTopologySpreadArgs', defaultConstraints: constraints, defaultingType: type as 'System' | 'List' };
}

function decodeVolumeBinding(v: unknown, path: string, problems: Problems, opts: ArgsOptions): VolumeBindingArgs {
  const rawShape = isObject(v) ? v.shape : undefined;
  const d = decodeBlock(v, { bindTimeoutSeconds: { t: 'int', d: 600, int64: true, min: 0, rule: 'should not be a negative value' }, shape: { t: 'list', of: SHAPE_POINT } }, path, problems);
  let shape: UtilizationShapePoint[] = [];
  if (opts.volumeCapacityPriority) {
    shape = rawShape === undefined || rawShape === null ? [{ utilization: 0, score: 0 }, { utilization: 100, score: MAX_CUSTOM_PRIORITY_SCORE }] : decodeShape(d.shape as Decoded[], `${path}.shape`, problems);
  } else if (rawShape !== undefined && rawShape !== null) {
    // Refused rather than ignored, so that a curve does not silently start to count when the feature is turned on.
    problems.push(`${path}.shape: Forbidden: needs the VolumeCapacityPriority feature gate; remove it or turn the gate on`);
  }
  return { kind: 'VolumeBindingArgs', bindTimeoutSeconds: d.bindTimeoutSeconds as number, shape };
}

const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Label keys and resource names: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
export function qualifiedNameProblems(v: string): string[] {
  const parts = v.split('/');
  if (parts.length > 2) return ["must be a name with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  const out: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '' || prefix.length > 253 || !DNS_SUBDOMAIN_RE.test(prefix)) out.push('prefix part must be a lowercase DNS subdomain of at most 253 characters');
  }
  if (name === '') out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  else if (!NAME_RE.test(name)) out.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  return out;
}

function labelValueProblems(v: string): string[] {
  if (v.length > 63) return ['must be no more than 63 characters'];
  return v === '' || NAME_RE.test(v) ? [] : ["must be empty or consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character"];
}
