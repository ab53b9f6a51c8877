/**
 * The scheduler's configuration document, `OrchSchedulerConfiguration` (spec 2.12): parsed from YAML or
 * JSON, given the reference's (release 1.31) defaults and checked with its rules. Every problem of a
 * document is collected and reported at once, each starting with its field path.
 */
import { LABEL_DOMAIN, SCHEDULER_CONFIG_GROUP, SCHEDULER_CONFIG_KIND, SCHEDULER_LEASE_NAME, SYSTEM_NAMESPACE } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { checkTypeMeta, clientConnection, decodeBlock, parseDocumentText, supportedValues, type Decoded, type Problems, type Schema } from './fields.js';
import { ARGS_DECODERS, argsBody, qualifiedNameProblems, type ArgsOptions, type PluginArgs } from './scheduler-args.js';
import { PLUGIN_SET_NAMES, emptyPlugins, enabledPluginNames, expandPlugins, IN_TREE_PLUGINS, mergeWithDefaults, REMOVED_PLUGINS, type ExpandedPlugins, type Plugin, type Plugins } from './scheduler-plugins.js';

export { SCHEDULER_CONFIG_GROUP, SCHEDULER_CONFIG_KIND };
export const SCHEDULER_CONFIG_API_VERSION = `${SCHEDULER_CONFIG_GROUP}/v1`;
/** The profile a pod without `spec.schedulerName` is scheduled by. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** client-go's leader elector needs renewDeadline above retryPeriod times this jitter factor. */
const LEADER_JITTER_FACTOR = 1.2;
/** The reference's timeout for an extender call when `httpTimeout` is not set. */
const DEFAULT_EXTENDER_TIMEOUT_MS = 5000;
const LEADER_DEFAULTS = { leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 } as const;

/** Durations are in milliseconds. */
export interface LeaderElectionConfig {
  leaderElect: boolean;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}
export interface ClientConnectionConfig {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}
export interface PluginConfig {
  name: string;
  args: PluginArgs;
}
export interface SchedulerProfile {
  schedulerName: string;
  /** Overrides the document's value for this profile when set. */
  percentageOfNodesToScore?: number;
  /** Merged with the default plugin set, as the reference writes the defaulted document. */
  plugins: Plugins;
  /** What runs at each extension point once `multiPoint` is expanded, in order. */
  extensionPoints: ExpandedPlugins;
  /** Every enabled plugin that takes args has an entry, defaulted when the document gave none. */
  pluginConfig: PluginConfig[];
}
export interface Extender {
  urlPrefix: string;
  filterVerb: string;
  preemptVerb: string;
  prioritizeVerb: string;
  bindVerb: string;
  weight: number;
  enableHTTPS: boolean;
  tlsConfig: { insecure: boolean; serverName: string; certFile: string; keyFile: string; caFile: string; certData: string; keyData: string; caData: string };
  /** Milliseconds. */
  httpTimeout: number;
  nodeCacheCapable: boolean;
  managedResources: { name: string; ignoredByScheduler: boolean }[];
  ignorable: boolean;
}
export interface SchedulerConfiguration {
  parallelism: number;
  leaderElection: LeaderElectionConfig;
  clientConnection: ClientConnectionConfig;
  enableProfiling: boolean;
  enableContentionProfiling: boolean;
  /** 0 means adaptive: from 50 % of the nodes in small clusters down to 5 % in large ones. */
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: SchedulerProfile[];
  extenders: Extender[];
  delayCacheUntilActive: boolean;
}
export type SchedulerOptions = ArgsOptions;

/** Thrown with every problem of the document; the message names the source, then each field path and rule. */
export class SchedulerConfigError extends Error {
  constructor(
    readonly problems: string[],
    source: string,
  ) {
    super(`${source}: ${problems.join('; ')}`);
  }
}

const PERCENT = { t: 'int', min: 0, max: 100, rule: 'not in valid range [0-100]' } as const;
const PLUGIN: Schema = { name: { t: 'str', d: '' }, weight: { t: 'int', min: 0, rule: 'must not be negative' } };
const PLUGINS: Schema = Object.fromEntries(PLUGIN_SET_NAMES.map((n) => [n, { t: 'obj', fields: { enabled: { t: 'list', of: PLUGIN }, disabled: { t: 'list', of: PLUGIN } } }]));
const EXTENDER: Schema = {
  urlPrefix: { t: 'str', d: '' },
  filterVerb: { t: 'str', d: '' },
  preemptVerb: { t: 'str', d: '' },
  prioritizeVerb: { t: 'str', d: '' },
  bindVerb: { t: 'str', d: '' },
  weight: { t: 'int', d: 0, int64: true },
  enableHTTPS: { t: 'bool', d: false },
  tlsConfig: {
    t: 'obj',
    fields: Object.fromEntries([['insecure', { t: 'bool', d: false }], ...['serverName', 'certFile', 'keyFile', 'caFile', 'certData', 'keyData', 'caData'].map((k) => [k, { t: 'str', d: '' }])]),
  },
  httpTimeout: { t: 'dur', d: DEFAULT_EXTENDER_TIMEOUT_MS, min: 0, rule: 'must not be negative' },
  nodeCacheCapable: { t: 'bool', d: false },
  managedResources: { t: 'list', of: { name: { t: 'str', d: '' }, ignoredByScheduler: { t: 'bool', d: false } } },
  ignorable: { t: 'bool', d: false },
};
const TOP: Schema = {
  apiVersion: { t: 'str' },
  kind: { t: 'str' },
  parallelism: { t: 'int', d: 16, min: 1, rule: 'should be an integer value greater than zero' },
  leaderElection: {
    t: 'obj',
    fields: {
      leaderElect: { t: 'bool', d: true },
      leaseDuration: { t: 'dur', d: LEADER_DEFAULTS.leaseDuration },
      renewDeadline: { t: 'dur', d: LEADER_DEFAULTS.renewDeadline },
      retryPeriod: { t: 'dur', d: LEADER_DEFAULTS.retryPeriod },
      resourceLock: { t: 'str', d: 'leases' },
      resourceName: { t: 'str', d: SCHEDULER_LEASE_NAME },
      resourceNamespace: { t: 'str', d: SYSTEM_NAMESPACE },
    },
  },
  clientConnection: { t: 'obj', fields: clientConnection(50, 100) },
  enableProfiling: { t: 'bool', d: true },
  enableContentionProfiling: { t: 'bool' },
  percentageOfNodesToScore: { ...PERCENT, d: 0 },
  podInitialBackoffSeconds: { t: 'int', d: 1, int64: true, min: 1, rule: 'must be greater than 0' },
  podMaxBackoffSeconds: { t: 'int', d: 10, int64: true },
  extenders: { t: 'list', of: EXTENDER },
  delayCacheUntilActive: { t: 'bool', d: false },
};

/** Parses, defaults and checks the document's text (YAML or JSON); `source` (flag and file) starts every error. */
export function parseSchedulerConfiguration(text: string, source: string, opts: SchedulerOptions = {}): SchedulerConfiguration {
  const problems: Problems = [];
  const doc = parseDocumentText(text, problems);
  const config = problems.length === 0 ? decodeSchedulerConfiguration(doc, opts, problems) : undefined;
  if (problems.length > 0 || !config) throw new SchedulerConfigError(problems, source);
  return config;
}

/** Decodes an already parsed document, adding every problem to `problems`. */
export function decodeSchedulerConfiguration(doc: unknown, opts: SchedulerOptions, problems: Problems): SchedulerConfiguration | undefined {
  const top = checkTypeMeta(doc, SCHEDULER_CONFIG_API_VERSION, SCHEDULER_CONFIG_KIND, problems);
  if (!top) return undefined;
  // Profiles carry free-form plugin args, so they are decoded on their own below.
  const { profiles: rawProfiles, ...rest } = top;
  const c = decodeBlock(rest, TOP, '', problems);
  const leaderElection = checkLeaderElection(c.leaderElection as Decoded, problems);
  const cc = c.clientConnection as Decoded;
  // As in the reference, a zero rate or burst means "the scheduler's own default", not "none".
  const clientConn = { ...cc, qps: (cc.qps as number) || 50, burst: (cc.burst as number) || 100 } as ClientConnectionConfig;
  const initial = c.podInitialBackoffSeconds as number;
  const max = c.podMaxBackoffSeconds as number;
  if (max < initial) problems.push(`podMaxBackoffSeconds: Invalid value: ${max}: must be greater than or equal to podInitialBackoffSeconds (${initial})`);
  const enableProfiling = c.enableProfiling as boolean;
  return {
    parallelism: c.parallelism as number,
    leaderElection,
    clientConnection: clientConn,
    enableProfiling,
    enableContentionProfiling: (c.enableContentionProfiling as boolean | undefined) ?? enableProfiling,
    percentageOfNodesToScore: c.percentageOfNodesToScore as number,
    podInitialBackoffSeconds: initial,
    podMaxBackoffSeconds: max,
    profiles: decodeProfiles(rawProfiles, opts, problems),
    extenders: checkExtenders(c.extenders as Decoded[], problems),
    delayCacheUntilActive: c.delayCacheUntilActive as boolean,
  };
}

function checkLeaderElection(d: Decoded, problems: Problems): LeaderElectionConfig {
  const le = { ...d } as unknown as LeaderElectionConfig;
  for (const k of ['leaseDuration', 'renewDeadline', 'retryPeriod'] as const) if (le[k] === 0) le[k] = LEADER_DEFAULTS[k];
  // The reference checks the timing only when this process takes part in the election.
  if (!le.leaderElect) return le;
  for (const k of ['leaseDuration', 'renewDeadline', 'retryPeriod'] as const) {
    if (le[k] < 0) problems.push(`leaderElection.${k}: Invalid value: ${le[k]}ms: must be greater than zero`);
  }
  if (le.renewDeadline > le.leaseDuration) {
    problems.push(`leaderElection.renewDeadline: Invalid value: ${le.renewDeadline}ms: must be less than or equal to leaseDuration (${le.leaseDuration}ms)`);
  }
  if (le.renewDeadline > 0 && le.retryPeriod > 0 && le.renewDeadline <= LEADER_JITTER_FACTOR * le.retryPeriod) {
    problems.push(`leaderElection.renewDeadline: Invalid value: ${le.renewDeadline}ms: must be greater than retryPeriod times ${LEADER_JITTER_FACTOR} (${LEADER_JITTER_FACTOR * le.retryPeriod}ms)`);
  }
  if (le.resourceLock !== 'leases') {
    problems.push(`leaderElection.resourceLock: Unsupported value: ${JSON.stringify(le.resourceLock)}: ${supportedValues(['leases'])}; the other lock kinds were removed`);
  }
  return le;
}

function decodeProfiles(raw: unknown, opts: SchedulerOptions, problems: Problems): SchedulerProfile[] {
  let list: unknown[] = [];
  if (Array.isArray(raw)) list = raw;
  else if (raw !== undefined && raw !== null) problems.push(`profiles: Invalid value: ${JSON.stringify(raw)}: must be a list`);
  if (list.length === 0) list = [{}];
  const only = list.length === 1;
  const profiles = list.map((p, i) => decodeProfile(p, `profiles[${i}]`, only, opts, problems));
  const firstAt = new Map<string, number>();
  profiles.forEach((p, i) => {
    const seen = firstAt.get(p.schedulerName);
    if (seen !== undefined) problems.push(`profiles[${i}].schedulerName: Duplicate value: ${JSON.stringify(p.schedulerName)} (also profiles[${seen}].schedulerName)`);
    else firstAt.set(p.schedulerName, i);
  });
  // One queue serves every profile, so they must all sort it the same way.
  const sortOf = (p: SchedulerProfile) => p.extensionPoints.queueSort.map((e) => e.name).join(',');
  profiles.forEach((p, i) => {
    if (i > 0 && sortOf(p) !== sortOf(profiles[0]!)) {
      problems.push(`profiles[${i}].plugins.queueSort: Invalid value: ${JSON.stringify(sortOf(p))}: must be the same for all profiles (profiles[0] uses ${JSON.stringify(sortOf(profiles[0]!))})`);
    }
  });
  return profiles;
}

function decodeProfile(raw: unknown, path: string, only: boolean, opts: SchedulerOptions, problems: Problems): SchedulerProfile {
  const body = isObject(raw) ? raw : {};
  if (!isObject(raw)) problems.push(`${path}: Invalid value: ${JSON.stringify(raw)}: must be an object`);
  const { pluginConfig: rawConfig, ...rest } = body;
  const d = decodeBlock(rest, { schedulerName: { t: 'str' }, percentageOfNodesToScore: PERCENT, plugins: { t: 'obj', fields: PLUGINS } }, path, problems);
  // The reference names the lone profile; with several, each must be named.
  let schedulerName = d.schedulerName as string | undefined;
  if (schedulerName === undefined && only) schedulerName = DEFAULT_SCHEDULER_NAME;
  if (!schedulerName) problems.push(`${path}.schedulerName: Required value: every profile needs a name when there are several`);
  const own = emptyPlugins();
  const given = d.plugins as Record<string, { enabled: Decoded[]; disabled: Decoded[] }>;
  for (const set of PLUGIN_SET_NAMES) {
    for (const part of ['enabled', 'disabled'] as const) {
      own[set][part] = given[set]![part].map((p, i) => {
        if (p.name === '') problems.push(`${path}.plugins.${set}.${part}[${i}].name: Required value`);
        return (p.weight === undefined ? { name: p.name } : { name: p.name, weight: p.weight }) as Plugin;
      });
    }
  }
  const plugins = mergeWithDefaults(own);
  const extensionPoints = expandPlugins(plugins, `${path}.plugins`, problems);
  const pluginConfig = decodePluginConfig(rawConfig, enabledPluginNames(extensionPoints), `${path}.pluginConfig`, opts, problems);
  const profile: SchedulerProfile = { schedulerName: schedulerName ?? '', plugins, extensionPoints, pluginConfig };
  if (d.percentageOfNodesToScore !== undefined) profile.percentageOfNodesToScore = d.percentageOfNodesToScore as number;
  return profile;
}

/** The profile's args, then defaulted args for every enabled plugin that takes args and was not configured. */
function decodePluginConfig(raw: unknown, enabled: string[], path: string, opts: SchedulerOptions, problems: Problems): PluginConfig[] {
  let list: unknown[] = [];
  if (Array.isArray(raw)) list = raw;
  else if (raw !== undefined && raw !== null) problems.push(`${path}: Invalid value: ${JSON.stringify(raw)}: must be a list`);
  const out: PluginConfig[] = [];
  const seen = new Set<string>();
  list.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: Invalid value: ${JSON.stringify(entry)}: must be an object`);
      return;
    }
    for (const k of Object.keys(entry)) if (k !== 'name' && k !== 'args') problems.push(`${at}.${k}: unknown field`);
    const name = entry.name;
    if (typeof name !== 'string' || name === '') {
      problems.push(`${at}.name: Required value: the plugin the args are for`);
      return;
    }
    if (seen.has(name)) problems.push(`${at}.name: Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
    const rule = pluginConfigRule(name, enabled);
    if (rule) {
      problems.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: ${rule}`);
      return;
    }
    const decode = ARGS_DECODERS[name];
    const body = argsBody(entry.args, name, SCHEDULER_CONFIG_API_VERSION, `${at}.args`, problems);
    if (!decode) {
      if (Object.keys(body).length > 0) problems.push(`${at}.args: Invalid value: ${JSON.stringify(body)}: the ${name} plugin takes no args`);
      return;
    }
    out.push({ name, args: decode(body, `${at}.args`, problems, opts) });
  });
  for (const name of enabled) {
    const decode = ARGS_DECODERS[name];
    // Defaults are computed with a throw-away problem list: empty args cannot be wrong.
    if (decode && !seen.has(name)) out.push({ name, args: decode({}, '', [], opts) });
  }
  return out;
}

function pluginConfigRule(name: string, enabled: string[]): string | undefined {
  if (REMOVED_PLUGINS.includes(name)) return 'the plugin was removed; NodeVolumeLimits counts volumes for every driver';
  if (!Object.hasOwn(IN_TREE_PLUGINS, name)) return `not a known plugin; known plugins: ${Object.keys(IN_TREE_PLUGINS).join(', ')}`;
  if (!enabled.includes(name)) return 'the plugin is not enabled at any extension point of this profile';
  return undefined;
}

function checkExtenders(list: Decoded[], problems: Problems): Extender[] {
  const binders: number[] = [];
  const managed = new Set<string>();
  list.forEach((e, i) => {
    const at = `extenders[${i}]`;
    const url = e.urlPrefix as string;
    if (url === '') problems.push(`${at}.urlPrefix: Required value: the extender's base URL`);
    else if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) problems.push(`${at}.urlPrefix: Invalid value: ${JSON.stringify(url)}: must be an http or https URL`);
    if (e.prioritizeVerb !== '' && (e.weight as number) <= 0) problems.push(`${at}.weight: Invalid value: ${e.weight}: must have a positive weight applied to it`);
    if (e.bindVerb !== '') binders.push(i);
    const tls = e.tlsConfig as Record<string, string>;
    for (const k of ['certData', 'keyData', 'caData']) {
      if (tls[k] !== '' && !/^[A-Za-z0-9+/]*={0,2}$/.test(tls[k]!)) problems.push(`${at}.tlsConfig.${k}: Invalid value: must be base64-encoded`);
    }
    (e.managedResources as Decoded[]).forEach((r, j) => {
      const rAt = `${at}.managedResources[${j}].name`;
      const name = r.name as string;
      const why = extendedResourceProblems(name);
      if (why.length > 0) for (const m of why) problems.push(`${rAt}: Invalid value: ${JSON.stringify(name)}: ${m}`);
      if (managed.has(name)) problems.push(`${rAt}: Invalid value: ${JSON.stringify(name)}: duplicate extender managed resource name`);
      managed.add(name);
    });
  });
  if (binders.length > 1) problems.push(`extenders: Invalid value: "found ${binders.length} extenders implementing bind": only one extender can implement bind`);
  return list as unknown as Extender[];
}

/** An extended resource lives outside the built-in domain (`<domain>/<name>`), and its quota form must be a valid name too. */
function extendedResourceProblems(name: string): string[] {
  const qualified = qualifiedNameProblems(name);
  if (qualified.length > 0) return qualified;
  const native = !name.includes('/') || name.includes(`${LABEL_DOMAIN}/`);
  if (native || name.startsWith('requests.') || qualifiedNameProblems(`requests.${name}`).length > 0) return ['is an invalid extended resource name'];
  return [];
}
