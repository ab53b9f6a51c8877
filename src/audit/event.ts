/**
 * Pure pieces of an audit Event (spec 2.11): timestamps, the client's addresses, the user, the response
 * status, and the object copies the Request and RequestResponse levels carry.
 */
import { randomFillSync } from 'node:crypto';
import { isIP } from 'node:net';
import type { AuditEvent, AuditUser } from './types.js';

/** Milliseconds since the epoch, with the sub-millisecond part the event timestamps show. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** RFC 3339 with exactly six fractional digits in UTC, as the reference writes MicroTime. */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.floor((ms - whole) * 1000));
  // Formatting a date costs more than the rest of an event's fields: the text up to the second is reused.
  const second = Math.floor(whole / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20); // 2024-01-02T03:04:05.
  }
  // Six digits with their leading zeros, from one number (fewer small strings than padding two).
  const fraction = String(1_000_000 + (whole - second * 1000) * 1000 + micros).slice(1);
  return `${cachedPrefix}${fraction}Z`;
}
let cachedSecond = NaN;
let cachedPrefix = '';

/**
 * A random (version 4) UUID for an event's `auditID`, as `crypto.randomUUID` makes them but with a single
 * string allocated: the random bytes come from a pool (each used once) and the text is assembled in a
 * reused buffer. An audited request would otherwise spend more memory on its ID than on several of its fields.
 */
export function newAuditID(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = 0;
  for (let i = 0; i < 16; i++) {
    let b = pool[poolAt + i] as number;
    if (i === 6) b = (b & 0x0f) | 0x40; // version 4
    else if (i === 8) b = (b & 0x3f) | 0x80; // the RFC 9562 variant
    if (i === 4 || i === 6 || i === 8 || i === 10) uuidText[out++] = 0x2d; // '-'
    uuidText[out++] = HEX_DIGITS[b >> 4] as number;
    uuidText[out++] = HEX_DIGITS[b & 0x0f] as number;
  }
  poolAt += 16;
  return uuidText.toString('latin1', 0, 36);
}
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
const uuidText = Buffer.alloc(36);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** The reference cuts user agents at 1 KiB so a client cannot bloat every event. */
export const MAX_USER_AGENT = 1024;
export function truncateUserAgent(ua: string | undefined): string | undefined {
  if (ua === undefined || ua.length <= MAX_USER_AGENT) return ua;
  return `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED`;
}

/** An IPv4 address node reports in its IPv6-mapped form is written as the plain IPv4 address. */
function plainIP(s: string): string | undefined {
  const ip = s.trim();
  if (ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4) return ip.slice(7);
  return isIP(ip) ? ip.toLowerCase() : undefined;
}

/**
 * The plain form of a connection's peer address, worked out once per connection (an HTTP/2 connection
 * carries many requests), as `sourceIPs` takes it.
 */
export function peerIP(socket: { remoteAddress?: string | undefined } | undefined): string | undefined {
  if (!socket || typeof socket !== 'object') return undefined;
  const known = peers.get(socket);
  if (known !== undefined) return known === '' ? undefined : known;
  const remote = socket.remoteAddress;
  // A socket whose address is not known yet (or any more) is not remembered.
  if (remote === undefined) return undefined;
  const ip = plainIP(remote);
  peers.set(socket, ip ?? '');
  return ip;
}
const peers = new WeakMap<object, string>();

/**
 * The reference's source IP list: the valid X-Forwarded-For entries, then X-Real-Ip unless already listed,
 * then the connection's peer unless it is the last one already (it is the one that cannot be forged).
 * `remote` is the peer's address as node gives it, or (`plainPeer`) as `peerIP` already made it plain.
 */
export function sourceIPs(forwardedFor: string | undefined, realIP: string | undefined, remote: string | undefined, plainPeer = false): string[] {
  if (plainPeer && !forwardedFor && !realIP) return remote ? [remote] : [];
  const out: string[] = [];
  if (forwardedFor) {
    for (const part of forwardedFor.split(',')) {
      const ip = plainIP(part);
      if (ip) out.push(ip);
    }
  }
  if (realIP) {
    const ip = plainIP(realIP);
    if (ip && !out.includes(ip)) out.push(ip);
  }
  const peer = remote ? (plainPeer ? remote : plainIP(remote)) : undefined;
  if (peer && out[out.length - 1] !== peer) out.push(peer);
  return out;
}

/** The message of a failed authentication's event: which kinds of credentials the request carried. */
export function authFailureMessage(authorization: string | undefined, hasAccessTokenParam: boolean, hasClientCert: boolean): string {
  const methods: string[] = [];
  const auth = (authorization ?? '').trim();
  const scheme = auth.split(' ')[0]?.toLowerCase() ?? '';
  if (scheme === 'basic' && auth.length > 6) methods.push('basic');
  if (scheme === 'bearer' && auth.split(' ').length > 1) methods.push('bearer');
  if (hasAccessTokenParam) methods.push('access_token');
  if (hasClientCert) methods.push('x509');
  return methods.length > 0 ? `Authentication failed, attempted: ${methods.join(', ')}` : 'Authentication failed, no credentials provided';
}

/** The user as an event shows it: empty lists and maps are left out. */
export function auditUser(u: { username: string; uid?: string; groups?: readonly string[]; extra?: Record<string, string[]> }): AuditUser {
  const out: AuditUser = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups && u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = u.extra;
  return out;
}

export type ResponseStatus = NonNullable<AuditEvent['responseStatus']>;

/** The bounded fields of a Status response (never its object data); the code is the one actually sent. */
export function statusFields(s: Record<string, unknown>): ResponseStatus {
  const out: ResponseStatus = { metadata: {} };
  if (typeof s.status === 'string' && s.status) out.status = s.status;
  if (typeof s.message === 'string' && s.message) out.message = s.message;
  if (typeof s.reason === 'string' && s.reason) out.reason = s.reason;
  if (s.details && typeof s.details === 'object') out.details = s.details as Record<string, unknown>;
  if (typeof s.code === 'number' && s.code) out.code = s.code;
  return out;
}

/**
 * A copy of a request or response object for an event, detached from the live one (the write path goes on
 * changing it), without `metadata.managedFields` when the policy asks.
 */
export function eventObject(obj: unknown, omitManagedFields: boolean): unknown {
  if (obj === null || typeof obj !== 'object') return obj;
  const copy = structuredClone(obj) as { metadata?: Record<string, unknown>; items?: unknown[] };
  if (omitManagedFields) stripManagedFields(copy);
  return copy;
}

/** Removes managedFields from an object, or from every item of a list. */
export function stripManagedFields(o: { metadata?: Record<string, unknown>; items?: unknown[] }): void {
  if (o.metadata && typeof o.metadata === 'object') delete o.metadata.managedFields;
  if (Array.isArray(o.items)) for (const item of o.items) if (item && typeof item === 'object') stripManagedFields(item as { metadata?: Record<string, unknown> });
}
