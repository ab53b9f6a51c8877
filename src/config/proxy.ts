/**
 * The network proxy's configuration document (spec 2.12), `OrchProxyConfiguration` in the proxy config group
 * (v1alpha1): the reference's fields and defaults, the modes each operating system offers, and its
 * validation rules. Every problem is collected with its field path; durations decode to milliseconds.
 */
import { PROXY_CONFIG_GROUP, PROXY_CONFIG_KIND } from '../api/naming.js';
import {
  LOGGING,
  checkTypeMeta,
  clientConnection,
  decodeBlock,
  isCIDR,
  isIP,
  isIPPort,
  isIPv4,
  parseDocumentText,
  supportedValues,
  type Decoded,
  type Problems,
  type Schema,
} from './fields.js';

export const PROXY_CONFIG_API_VERSION = `${PROXY_CONFIG_GROUP}/v1alpha1`;
export { PROXY_CONFIG_KIND };

export type ProxyOS = 'linux' | 'windows';
export type ProxyMode = 'iptables' | 'ipvs' | 'nftables' | 'kernelspace';
/** The modes of each OS, best first: an unset mode takes the first one the host can use. */
export const PROXY_MODES: Readonly<Record<ProxyOS, readonly ProxyMode[]>> = {
  linux: ['iptables', 'nftables', 'ipvs'],
  windows: ['kernelspace'],
};
/** The schedulers the kernel's IPVS offers (`""` leaves the kernel's default, round robin). */
export const IPVS_SCHEDULERS: readonly string[] = ['', 'rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'sh', 'dh', 'sed', 'nq', 'mh'];
export const DETECT_LOCAL_MODES: readonly string[] = ['ClusterCIDR', 'NodeCIDR', 'BridgeInterface', 'InterfaceNamePrefix'];

const SEC = 1000;
const positive = { min: 1, rule: 'must be greater than 0' } as const;
const SYNC = { syncPeriod: { t: 'dur', d: 30 * SEC, ...positive }, minSyncPeriod: { t: 'dur', d: SEC, min: 0 } } as const;
const MASQ_BIT = { t: 'int', d: 14, min: 0, max: 31 } as const;

const IPTABLES: Schema = { masqueradeBit: MASQ_BIT, masqueradeAll: { t: 'bool', d: false }, localhostNodePorts: { t: 'bool', d: true }, ...SYNC };
const NFTABLES: Schema = { masqueradeBit: MASQ_BIT, masqueradeAll: { t: 'bool', d: false }, ...SYNC };
const IPVS: Schema = {
  syncPeriod: SYNC.syncPeriod,
  minSyncPeriod: { t: 'dur', d: 0, min: 0 },
  scheduler: { t: 'str', d: '' },
  excludeCIDRs: { t: 'strs', d: [] },
  strictARP: { t: 'bool', d: false },
  // 0 leaves the kernel's own value in place.
  tcpTimeout: { t: 'dur', d: 0, min: 0 },
  tcpFinTimeout: { t: 'dur', d: 0, min: 0 },
  udpTimeout: { t: 'dur', d: 0, min: 0 },
};
const WINKERNEL: Schema = {
  networkName: { t: 'str', d: '' },
  sourceVip: { t: 'str', d: '' },
  enableDSR: { t: 'bool', d: false },
  rootHnsEndpointName: { t: 'str', d: '' },
  forwardHealthCheckVip: { t: 'bool', d: false },
};
const CONNTRACK: Schema = {
  maxPerCore: { t: 'int', d: 32768, min: 0 },
  min: { t: 'int', d: 131072, min: 0 },
  tcpEstablishedTimeout: { t: 'dur', d: 24 * 3600 * SEC, min: 0 },
  tcpCloseWaitTimeout: { t: 'dur', d: 3600 * SEC, min: 0 },
  tcpBeLiberal: { t: 'bool', d: false },
  udpTimeout: { t: 'dur', d: 0, min: 0 },
  udpStreamTimeout: { t: 'dur', d: 0, min: 0 },
};

const TOP: Schema = {
  apiVersion: { t: 'str' },
  kind: { t: 'str' },
  featureGates: { t: 'map', of: 'bool' },
  clientConnection: { t: 'obj', fields: clientConnection(5, 10) },
  logging: { t: 'obj', fields: LOGGING },
  hostnameOverride: { t: 'str', d: '' },
  bindAddress: { t: 'str', d: '0.0.0.0' },
  healthzBindAddress: { t: 'str', d: '0.0.0.0:10256' },
  metricsBindAddress: { t: 'str', d: '127.0.0.1:10249' },
  bindAddressHardFail: { t: 'bool', d: false },
  enableProfiling: { t: 'bool', d: false },
  showHiddenMetricsForVersion: { t: 'str', d: '' },
  mode: { t: 'str', d: '' },
  iptables: { t: 'obj', fields: IPTABLES },
  ipvs: { t: 'obj', fields: IPVS },
  nftables: { t: 'obj', fields: NFTABLES },
  winkernel: { t: 'obj', fields: WINKERNEL },
  detectLocalMode: { t: 'str', d: 'ClusterCIDR', oneOf: DETECT_LOCAL_MODES },
  detectLocal: { t: 'obj', fields: { bridgeInterface: { t: 'str', d: '' }, interfaceNamePrefix: { t: 'str', d: '' } } },
  clusterCIDR: { t: 'str', d: '' },
  nodePortAddresses: { t: 'strs', d: [] },
  oomScoreAdj: { t: 'int', d: -999, min: -1000, max: 1000 },
  conntrack: { t: 'obj', fields: CONNTRACK },
  configSyncPeriod: { t: 'dur', d: 15 * 60 * SEC, ...positive },
  portRange: { t: 'str', d: '' },
  windowsRunAsService: { t: 'bool', d: false },
};

/** The decoded document: every field present, defaults filled in, durations in milliseconds. */
export type ProxyConfiguration = Decoded & {
  mode: ProxyMode;
  iptables: Decoded;
  ipvs: Decoded;
  nftables: Decoded;
  conntrack: Decoded;
};

export interface ProxyOptions {
  /** The OS whose modes apply; the running one unless given. */
  os?: ProxyOS;
  /** The modes this host can run (kernel modules, tools present); all of the OS's modes unless given. */
  availableModes?: readonly ProxyMode[];
}

/** Thrown with every problem of the document, each starting with its field path. */
export class ProxyConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** Parses and checks the document's text (YAML or JSON). */
export function parseProxyConfiguration(text: string, opts: ProxyOptions = {}): ProxyConfiguration {
  const problems: Problems = [];
  const doc = parseDocumentText(text, problems);
  const config = problems.length === 0 ? decodeProxyConfiguration(doc, opts, problems) : undefined;
  if (problems.length > 0 || !config) throw new ProxyConfigError(problems);
  return config;
}

/** Decodes and checks an already parsed document, adding every problem to `problems`. */
export function decodeProxyConfiguration(doc: unknown, opts: ProxyOptions, problems: Problems): ProxyConfiguration | undefined {
  const top = checkTypeMeta(doc, PROXY_CONFIG_API_VERSION, PROXY_CONFIG_KIND, problems);
  if (!top) return undefined;
  const c = decodeBlock(top, TOP, '', problems) as ProxyConfiguration;
  c.mode = chooseMode(c.mode as string, opts, problems);
  checkAddresses(c, problems);
  checkSyncOrder(c.iptables, 'iptables', problems);
  if (c.mode === 'nftables') checkSyncOrder(c.nftables, 'nftables', problems);
  if (c.mode === 'ipvs') checkIPVS(c.ipvs, problems);
  checkDetectLocal(c, problems);
  return c;
}

/** The mode to run: the one asked for when this OS and host can use it, else the best one available. */
function chooseMode(asked: string, opts: ProxyOptions, problems: Problems): ProxyMode {
  const os = opts.os ?? (process.platform === 'win32' ? 'windows' : 'linux');
  const modes = PROXY_MODES[os];
  const usable = modes.filter((m) => !opts.availableModes || opts.availableModes.includes(m));
  if (asked === '') {
    if (usable.length === 0) problems.push(`mode: Required value: none of the ${os} proxy modes (${modes.join(', ')}) can run on this host`);
    return usable[0] ?? modes[0]!;
  }
  if (!(modes as readonly string[]).includes(asked)) {
    problems.push(`mode: Unsupported value: ${JSON.stringify(asked)}: ${supportedValues(modes)} (on ${os})`);
  } else if (!usable.includes(asked as ProxyMode)) {
    problems.push(`mode: Invalid value: ${JSON.stringify(asked)}: this host cannot run it; usable modes: ${usable.join(', ') || 'none'}`);
  }
  return asked as ProxyMode;
}

function checkAddresses(c: Decoded, problems: Problems): void {
  const bind = c.bindAddress as string;
  if (!isIP(bind)) problems.push(`bindAddress: Invalid value: ${JSON.stringify(bind)}: must be a valid IP address`);
  for (const k of ['healthzBindAddress', 'metricsBindAddress']) {
    const v = c[k] as string;
    if (!isIPPort(v)) problems.push(`${k}: Invalid value: ${JSON.stringify(v)}: must be IP:port`);
  }
  const cidrs = (c.clusterCIDR as string) === '' ? [] : (c.clusterCIDR as string).split(',');
  cidrs.forEach((cidr) => {
    if (!isCIDR(cidr)) problems.push(`clusterCIDR: Invalid value: ${JSON.stringify(cidr)}: must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)`);
  });
  if (cidrs.length > 2) problems.push(`clusterCIDR: Invalid value: ${JSON.stringify(c.clusterCIDR)}: at most two CIDRs (one IPv4 and one IPv6)`);
  else if (cidrs.length === 2 && cidrs.every(isCIDR) && isIPv4(cidrs[0]!.split('/')[0]!) === isIPv4(cidrs[1]!.split('/')[0]!)) {
    problems.push(`clusterCIDR: Invalid value: ${JSON.stringify(c.clusterCIDR)}: two CIDRs must be one IPv4 and one IPv6`);
  }
  const npa = c.nodePortAddresses as string[];
  npa.forEach((a, i) => {
    if (a === 'primary') {
      if (npa.length > 1) problems.push(`nodePortAddresses[${i}]: Invalid value: "primary": cannot be combined with CIDRs`);
    } else if (!isCIDR(a)) problems.push(`nodePortAddresses[${i}]: Invalid value: ${JSON.stringify(a)}: must be a valid CIDR or "primary"`);
  });
  const range = c.portRange as string;
  if (range !== '' && !validPortRange(range)) problems.push(`portRange: Invalid value: ${JSON.stringify(range)}: must be a port range such as 30000-32767 or 30000+2768`);
  const hidden = c.showHiddenMetricsForVersion as string;
  if (hidden !== '' && !/^\d+\.\d+$/.test(hidden)) problems.push(`showHiddenMetricsForVersion: Invalid value: ${JSON.stringify(hidden)}: must be a release as major.minor`);
}

/** `min-max`, `base+offset` or a single port, within 1 to 65535. */
function validPortRange(text: string): boolean {
  const m = /^(\d{1,5})(?:([-+])(\d{1,5}))?$/.exec(text);
  if (!m) return false;
  const lo = Number(m[1]);
  const hi = m[2] === '-' ? Number(m[3]) : m[2] === '+' ? lo + Number(m[3]) : lo;
  return lo >= 1 && hi <= 65535 && lo <= hi;
}

function checkSyncOrder(block: Decoded, path: string, problems: Problems): void {
  const sync = block.syncPeriod as number;
  const min = block.minSyncPeriod as number;
  if (sync > 0 && min > sync) problems.push(`${path}.syncPeriod: Invalid value: ${sync / SEC}s: must be greater than or equal to ${path}.minSyncPeriod (${min / SEC}s)`);
}

function checkIPVS(ipvs: Decoded, problems: Problems): void {
  checkSyncOrder(ipvs, 'ipvs', problems);
  const scheduler = ipvs.scheduler as string;
  if (!IPVS_SCHEDULERS.includes(scheduler)) problems.push(`ipvs.scheduler: Unsupported value: ${JSON.stringify(scheduler)}: ${supportedValues(IPVS_SCHEDULERS.slice(1))}`);
  (ipvs.excludeCIDRs as string[]).forEach((cidr, i) => {
    if (!isCIDR(cidr)) problems.push(`ipvs.excludeCIDRs[${i}]: Invalid value: ${JSON.stringify(cidr)}: must be a valid CIDR`);
  });
}

function checkDetectLocal(c: Decoded, problems: Problems): void {
  const detect = c.detectLocal as Decoded;
  if (c.detectLocalMode === 'BridgeInterface' && detect.bridgeInterface === '') {
    problems.push('detectLocal.bridgeInterface: Required value: needed when detectLocalMode is BridgeInterface');
  }
  if (c.detectLocalMode === 'InterfaceNamePrefix' && detect.interfaceNamePrefix === '') {
    problems.push('detectLocal.interfaceNamePrefix: Required value: needed when detectLocalMode is InterfaceNamePrefix');
  }
}
