/**
 * The service network of one server: the cluster IP range (`--service-cluster-ip-range`) and the node port
 * range (`--service-node-port-range`), parsed once at start. Pure: addresses are numbers (BigInt for IPv6).
 */
export type IPFamily = 'IPv4' | 'IPv6';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767';
const IP_RANGE_FLAG = '--service-cluster-ip-range';
const PORT_RANGE_FLAG = '--service-node-port-range';

/** The reference keeps a bitmap per range: at most 2^20 addresses, and 65536 of an IPv6 range. */
const MAX_HOST_BITS = 20;
const MAX_IPV6_ADDRESSES = 65536;

export interface ServiceNetwork {
  /** The cluster IP range in canonical form, as messages name it (`10.0.0.0/24`). */
  readonly cidr: string;
  readonly family: IPFamily;
  /** How many addresses are handed out: from the network address + 1, never the IPv4 broadcast address. */
  readonly ipCount: number;
  /** The address at an offset (0 = the first handed out, which the `kubernetes` Service takes). */
  ipAt(offset: number): string;
  /** The offset of an address in the range, or undefined when it is outside (or not an address). */
  offsetOf(ip: string): number | undefined;
  readonly nodePorts: { readonly min: number; readonly max: number };
  /** The node port range as messages name it (`30000-32767`). */
  readonly nodePortRange: string;
}

/** Parses an IPv4 address (dotted quad, no leading zeros) to a number. */
export function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256n + BigInt(p);
  }
  return n;
}

/** Parses an IPv6 address (with `::` and an optional dotted IPv4 tail) to a number. */
export function parseIPv6(text: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.split('::').length > 2) return undefined;
  let rest = text;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // A dotted IPv4 tail stands for the last two groups.
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    rest = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const groupsOf = (s: string) => (s === '' ? [] : s.split(':'));
  const [head = '', back] = rest.split('::');
  const front = groupsOf(head);
  const end = back === undefined ? [] : groupsOf(back);
  if ([...front, ...end].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const given = front.length + end.length;
  if (back === undefined ? given !== 8 : given > 7) return undefined;
  const groups = [...front, ...Array<string>(8 - given).fill('0'), ...end];
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}

export function formatIPv4(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
}

/** RFC 5952 text, as Go prints addresses: lower case, the longest run of two or more zero groups as `::`. */
export function formatIPv6(n: bigint): string {
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => Number((n >> s) & 0xffffn));
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(':');
  if (best.at < 0) return hex(groups);
  return `${hex(groups.slice(0, best.at))}::${hex(groups.slice(best.at + best.len))}`;
}

/** Parses one CIDR of either family; a host address inside it is masked to the network, as the reference does. */
export function parseServiceCIDR(text: string): { family: IPFamily; network: bigint; bits: number; hostBits: number } {
  const value = text.trim();
  if (value.includes(',')) {
    throw new Error(`${IP_RANGE_FLAG}: "${value}": dual-stack service ranges are not supported; give one CIDR (IPv4 or IPv6)`);
  }
  const m = /^([^/]+)\/(\d{1,3})$/.exec(value);
  const v4 = m ? parseIPv4(m[1] as string) : undefined;
  const v6 = m && v4 === undefined ? parseIPv6(m[1] as string) : undefined;
  const bits = v4 !== undefined ? 32 : 128;
  const prefix = m ? Number(m[2]) : NaN;
  if (!m || (v4 === undefined && v6 === undefined) || prefix > bits) {
    throw new Error(`${IP_RANGE_FLAG}: invalid CIDR "${value}" (example: ${DEFAULT_SERVICE_CLUSTER_IP_RANGE})`);
  }
  const hostBits = bits - prefix;
  if (hostBits > MAX_HOST_BITS) {
    throw new Error(`specified ${IP_RANGE_FLAG} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_HOST_BITS}`);
  }
  const address = (v4 ?? v6) as bigint;
  const network = (address >> BigInt(hostBits)) << BigInt(hostBits);
  return { family: v4 !== undefined ? 'IPv4' : 'IPv6', network, bits, hostBits };
}

/** `30000-32767`, `30000+2767` (base and extra size) or a single port, as the reference accepts them. */
export function parseNodePortRange(text: string): { min: number; max: number } {
  const value = text.trim();
  const m = /^(\d{1,5})(?:([-+])(\d{1,5}))?$/.exec(value);
  const low = m ? Number(m[1]) : NaN;
  const high = !m ? NaN : m[2] === undefined ? low : m[2] === '-' ? Number(m[3]) : low + Number(m[3]);
  if (!m || low < 1 || high > 65535 || high < low) {
    throw new Error(`${PORT_RANGE_FLAG}: invalid port range "${value}" (example: ${DEFAULT_SERVICE_NODE_PORT_RANGE}, ports 1-65535)`);
  }
  return { min: low, max: high };
}

/** The network of a server from its flags (defaults as the reference's); problems are Errors naming the flag. */
export function serviceNetwork(opts: { clusterIPRange?: string | undefined; nodePortRange?: string | undefined } = {}): ServiceNetwork {
  const { family, network, bits, hostBits } = parseServiceCIDR(opts.clusterIPRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE);
  const size = 1 << hostBits;
  // The network address is never handed out; nor is the IPv4 broadcast address.
  const ipCount = family === 'IPv4' ? size - 2 : Math.min(size, MAX_IPV6_ADDRESSES) - 1;
  const format = family === 'IPv4' ? formatIPv4 : formatIPv6;
  const cidr = `${format(network)}/${bits - hostBits}`;
  if (ipCount < 1) throw new Error(`${IP_RANGE_FLAG}: ${cidr} holds no address to hand out`);
  const nodePorts = parseNodePortRange(opts.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE);
  const first = network + 1n;
  return {
    cidr,
    family,
    ipCount,
    ipAt: (offset) => format(first + BigInt(offset)),
    offsetOf(ip) {
      const n = family === 'IPv4' ? parseIPv4(ip) : ip.includes(':') ? parseIPv6(ip) : undefined;
      if (n === undefined) return undefined;
      const offset = n - first;
      return offset >= 0n && offset < BigInt(ipCount) ? Number(offset) : undefined;
    },
    nodePorts,
    nodePortRange: `${nodePorts.min}-${nodePorts.max}`,
  };
}
