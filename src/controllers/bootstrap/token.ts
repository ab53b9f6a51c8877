/**
 * Reading bootstrap token Secrets (spec 2.9, 3.5) and the detached JWS the signer publishes for each.
 * Pure functions: the controllers pass the current time in.
 */
import { createHmac } from 'node:crypto';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';

export { BOOTSTRAP_TOKEN_SECRET_TYPE };
export const TOKEN_SECRET_NAMESPACE = SYSTEM_NAMESPACE;
export const TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const CLUSTER_INFO_NAMESPACE = PUBLIC_NAMESPACE;
export const CLUSTER_INFO_NAME = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';

const TOKEN_ID_RE = /^[a-z0-9]{6}$/;
const TOKEN_SECRET_RE = /^[a-z0-9]{16}$/;
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A `data` value decoded from base64; undefined when absent or not a string. */
export function secretValue(secret: KubeObject, key: string): string | undefined {
  const data = secret.data;
  if (data === null || typeof data !== 'object') return undefined;
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

/** Strict RFC 3339 (what Go's time.Parse accepts for that layout): ms since the epoch, or undefined. */
export function parseRfc3339(s: string): number | undefined {
  const m = RFC3339_RE.exec(s);
  if (!m) return undefined;
  const [mo, d, h, mi, sec] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(Number(m[1]), mo, 0)).getUTCDate() || h > 23 || mi > 59 || sec > 59) return undefined;
  const t = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}${(m[8] ?? 'Z').toUpperCase()}`);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * When a token stops being valid, as the reference reads it: no `expiration` = never (undefined); an
 * unreadable one counts as already expired (-Infinity), so a malformed date never keeps a token alive.
 */
export function expirationOf(secret: KubeObject): number | undefined {
  const raw = secretValue(secret, 'expiration');
  if (raw === undefined || raw === '') return undefined;
  return parseRfc3339(raw) ?? Number.NEGATIVE_INFINITY;
}

export const isExpired = (secret: KubeObject, now: number): boolean => {
  const at = expirationOf(secret);
  return at !== undefined && at <= now;
};

/** The id and secret of a token that may sign cluster-info now (spec 2.9), or undefined. */
export function signingToken(secret: KubeObject, now: number): { id: string; secret: string } | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.metadata.namespace !== TOKEN_SECRET_NAMESPACE) return undefined;
  if (secret.metadata.deletionTimestamp) return undefined;
  const id = secretValue(secret, 'token-id');
  const tokenSecret = secretValue(secret, 'token-secret');
  if (id === undefined || !TOKEN_ID_RE.test(id) || tokenSecret === undefined || !TOKEN_SECRET_RE.test(tokenSecret)) return undefined;
  if (secret.metadata.name !== TOKEN_SECRET_PREFIX + id) return undefined;
  if (secretValue(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  if (isExpired(secret, now)) return undefined;
  return { id, secret: tokenSecret };
}

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/**
 * The detached JWS of spec 2.9: protected header `{"alg":"HS256","kid":<id>}`, payload the content, key
 * the full token `<id>.<secret>`; the payload part is left empty (`header..signature`).
 */
export function detachedJws(content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }));
  const signingInput = `${header}.${b64url(content)}`;
  const signature = createHmac('sha256', `${tokenId}.${tokenSecret}`).update(signingInput).digest('base64url');
  return `${header}..${signature}`;
}

/**
 * The cluster-info `data` the signer wants: every entry but the JWS ones kept, one JWS per signing token.
 * `changed` is false when `data` already is that.
 */
export function signedClusterInfoData(
  data: Record<string, string>,
  tokens: readonly { id: string; secret: string }[],
): { data: Record<string, string>; changed: boolean } {
  const content = data[KUBECONFIG_KEY];
  if (content === undefined) return { data, changed: false };
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_KEY_PREFIX)) next[k] = v;
  for (const t of tokens) next[JWS_KEY_PREFIX + t.id] = detachedJws(content, t.id, t.secret);
  const keys = Object.keys(next);
  const changed = keys.length !== Object.keys(data).length || keys.some((k) => data[k] !== next[k]);
  return { data: changed ? next : data, changed };
}

/** The earliest expiration after `now` among `secrets` (when the signer must look again), or undefined. */
export function nextExpiration(secrets: readonly KubeObject[], now: number): number | undefined {
  let next: number | undefined;
  for (const s of secrets) {
    const at = expirationOf(s);
    if (at !== undefined && at > now && (next === undefined || at < next)) next = at;
  }
  return next;
}
