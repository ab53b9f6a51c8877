/**
 * The scheduler's in-tree plugins (release 1.31): which extension points each one implements, the default
 * `multiPoint` set, how a profile's `plugins` block merges with those defaults, and how `multiPoint` expands
 * into each extension point. Pure functions; every problem is reported with its field path.
 */
import type { Problems } from './fields.js';

export const EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];
/** The blocks of `plugins`: every extension point plus `multiPoint`, which enables a plugin wherever it fits. */
export const PLUGIN_SET_NAMES = [...EXTENSION_POINTS, 'multiPoint'] as const;
export type PluginSetName = (typeof PLUGIN_SET_NAMES)[number];

export interface Plugin {
  name: string;
  /** Only meaningful for score plugins; absent means the plugin's default (1). */
  weight?: number;
}
export interface PluginSet {
  enabled: Plugin[];
  disabled: Plugin[];
}
export type Plugins = Record<PluginSetName, PluginSet>;
/** What runs at one extension point, in order; weights are filled in (1 when not given) for score. */
export type ExpandedPlugins = Record<ExtensionPoint, Plugin[]>;

/** Extension points of every in-tree plugin the scheduler of release 1.31 registers (alpha-gated ones left out). */
export const IN_TREE_PLUGINS: Readonly<Record<string, readonly ExtensionPoint[]>> = {
  PrioritySort: ['queueSort'],
  SchedulingGates: ['preEnqueue'],
  NodeUnschedulable: ['filter'],
  NodeName: ['filter'],
  TaintToleration: ['filter', 'preScore', 'score'],
  NodeAffinity: ['preFilter', 'filter', 'preScore', 'score'],
  NodePorts: ['preFilter', 'filter'],
  NodeResourcesFit: ['preFilter', 'filter', 'preScore', 'score'],
  VolumeRestrictions: ['preFilter', 'filter'],
  NodeVolumeLimits: ['preFilter', 'filter'],
  VolumeBinding: ['preFilter', 'filter', 'reserve', 'preBind', 'preScore', 'score'],
  VolumeZone: ['preFilter', 'filter'],
  PodTopologySpread: ['preFilter', 'filter', 'preScore', 'score'],
  InterPodAffinity: ['preFilter', 'filter', 'preScore', 'score'],
  DefaultPreemption: ['postFilter'],
  NodeResourcesBalancedAllocation: ['preScore', 'score'],
  ImageLocality: ['score'],
  DefaultBinder: ['bind'],
};

/** Plugins the v1 document no longer accepts (the cloud-specific volume limits, replaced by NodeVolumeLimits). */
export const REMOVED_PLUGINS: readonly string[] = ['AzureDiskLimits', 'CinderLimits', 'EBSLimits', 'GCEPDLimits'];

/** The reference's default `multiPoint.enabled`, in its order, with its score weights. */
export const DEFAULT_MULTI_POINT: readonly Plugin[] = [
  { name: 'SchedulingGates' },
  { name: 'PrioritySort' },
  { name: 'NodeUnschedulable' },
  { name: 'NodeName' },
  { name: 'TaintToleration', weight: 3 },
  { name: 'NodeAffinity', weight: 2 },
  { name: 'NodePorts' },
  { name: 'NodeResourcesFit', weight: 1 },
  { name: 'VolumeRestrictions' },
  { name: 'NodeVolumeLimits' },
  { name: 'VolumeBinding' },
  { name: 'VolumeZone' },
  { name: 'PodTopologySpread', weight: 2 },
  { name: 'InterPodAffinity', weight: 2 },
  { name: 'DefaultPreemption' },
  { name: 'NodeResourcesBalancedAllocation', weight: 1 },
  { name: 'ImageLocality', weight: 1 },
  { name: 'DefaultBinder' },
];

export function emptyPlugins(): Plugins {
  return Object.fromEntries(PLUGIN_SET_NAMES.map((n) => [n, { enabled: [], disabled: [] }])) as unknown as Plugins;
}

/**
 * Merges a profile's own `plugins` with the defaults as the reference does: a disabled name (or `*`) drops
 * defaults, an enabled default is re-configured in place (keeping the default order), other enabled plugins
 * follow. Only `multiPoint` has defaults, so the other blocks stay as written.
 */
export function mergeWithDefaults(custom: Plugins): Plugins {
  const out = emptyPlugins();
  for (const set of PLUGIN_SET_NAMES) {
    const defaults = set === 'multiPoint' ? DEFAULT_MULTI_POINT : [];
    const own = custom[set];
    const disabled = new Set(own.disabled.map((p) => p.name));
    const replaced = new Set<number>();
    const enabled: Plugin[] = [];
    if (!disabled.has('*')) {
      for (const d of defaults) {
        if (disabled.has(d.name)) continue;
        const at = own.enabled.findIndex((p) => p.name === d.name);
        if (at >= 0) replaced.add(at);
        enabled.push({ ...(at >= 0 ? own.enabled[at]! : d) });
      }
    }
    own.enabled.forEach((p, i) => {
      if (!replaced.has(i)) enabled.push({ ...p });
    });
    out[set] = { enabled, disabled: own.disabled.map((p) => ({ ...p })) };
  }
  return out;
}

/**
 * Expands merged plugins into what runs at each extension point, the way the framework does at start:
 * plugins named at a point that are also in `multiPoint` come first (the point's setting wins), then the
 * rest of `multiPoint`, then the point's other plugins. Problems go to `problems` under `path`.
 */
export function expandPlugins(plugins: Plugins, path: string, problems: Problems): ExpandedPlugins {
  const out = Object.fromEntries(EXTENSION_POINTS.map((p) => [p, []])) as unknown as ExpandedPlugins;
  const multi = plugins.multiPoint.enabled;
  const seenMulti = new Set<string>();
  multi.forEach((p, i) => {
    const at = `${path}.multiPoint.enabled[${i}].name`;
    if (seenMulti.has(p.name)) problems.push(`${at}: Duplicate value: ${JSON.stringify(p.name)}`);
    seenMulti.add(p.name);
    checkKnown(p.name, at, problems);
  });
  for (const point of EXTENSION_POINTS) {
    const own = plugins[point];
    const seen = new Set<string>();
    own.enabled.forEach((p, i) => {
      const at = `${path}.${point}.enabled[${i}].name`;
      if (seen.has(p.name)) problems.push(`${at}: Duplicate value: ${JSON.stringify(p.name)}`);
      seen.add(p.name);
      if (checkKnown(p.name, at, problems) && !IN_TREE_PLUGINS[p.name]!.includes(point)) {
        problems.push(`${at}: Invalid value: ${JSON.stringify(p.name)}: the plugin does not implement the ${point} extension point`);
      }
    });
    const disabled = new Set(own.disabled.map((p) => p.name));
    const overrides: Plugin[] = [];
    const fromMulti: Plugin[] = [];
    if (!disabled.has('*')) {
      const added = new Set<string>();
      for (const p of multi) {
        if (added.has(p.name) || !IN_TREE_PLUGINS[p.name]?.includes(point) || disabled.has(p.name)) continue;
        added.add(p.name);
        const specific = own.enabled.find((e) => e.name === p.name);
        if (specific) overrides.push(specific);
        else fromMulti.push(p);
      }
    }
    const rest = own.enabled.filter((e) => !overrides.includes(e));
    const ordered = [...overrides, ...fromMulti, ...rest].filter((p, i, all) => all.findIndex((q) => q.name === p.name) === i);
    out[point] = ordered.map((p) => (point === 'score' ? { name: p.name, weight: p.weight || 1 } : { name: p.name }));
  }
  if (out.queueSort.length !== 1) {
    problems.push(`${path}.queueSort: Invalid value: ${out.queueSort.length}: exactly one queue sort plugin must be enabled`);
  }
  if (out.bind.length === 0) problems.push(`${path}.bind: Required value: at least one bind plugin must be enabled`);
  return out;
}

function checkKnown(name: string, at: string, problems: Problems): boolean {
  if (REMOVED_PLUGINS.includes(name)) {
    problems.push(`${at}: Invalid value: ${JSON.stringify(name)}: the plugin was removed; NodeVolumeLimits counts volumes for every driver`);
    return false;
  }
  if (!Object.hasOwn(IN_TREE_PLUGINS, name)) {
    problems.push(`${at}: Invalid value: ${JSON.stringify(name)}: not a known plugin; known plugins: ${Object.keys(IN_TREE_PLUGINS).join(', ')}`);
    return false;
  }
  return true;
}

/** Every plugin enabled at some extension point after expansion, sorted by name (the order defaults are added in). */
export function enabledPluginNames(expanded: ExpandedPlugins): string[] {
  return [...new Set(EXTENSION_POINTS.flatMap((p) => expanded[p].map((e) => e.name)))].sort();
}
