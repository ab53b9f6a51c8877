/** CIDR parsing and containment for NetworkPolicy ipBlocks (IPv4 and IPv6, as bit strings in a bigint). */
import { isIPv4, isIPv6 } from 'node:net';

export interface Cidr {
  family: 4 | 6;
  /** The network address (host bits cleared). */
  network: bigint;
  prefix: number;
}

function ipv4Bits(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(ip: string): bigint {
  let text = ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const bits = ipv4Bits(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(bits >> 16n).toString(16)}:${(bits & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Parses `ip/prefix`; undefined when it is not a CIDR. */
export function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const family = isIPv4(ip) ? 4 : isIPv6(ip) ? 6 : 0;
  if (family === 0) return undefined;
  const width = family === 4 ? 32 : 128;
  if (prefix > width) return undefined;
  const bits = family === 4 ? ipv4Bits(ip) : ipv6Bits(ip);
  const host = BigInt(width - prefix);
  return { family, network: (bits >> host) << host, prefix };
}

/** True when `inner` is a strict subset of `outer` (same family, longer prefix, inside it). */
export function isStrictSubset(inner: Cidr, outer: Cidr): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const host = BigInt((outer.family === 4 ? 32 : 128) - outer.prefix);
  return inner.network >> host === outer.network >> host;
}
