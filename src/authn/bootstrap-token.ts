/**
 * Bootstrap tokens (spec 2.9, 3.5, 5.4; `--enable-bootstrap-token-auth`): `<id>.<secret>` bearer tokens
 * backed by Secrets `bootstrap-token-<id>` in the system namespace.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { LABEL_DOMAIN, SYSTEM_NAMESPACE } from '../api/naming.js';
import { fieldError, unauthorized, type FieldError } from '../errors/index.js';
import { bearerToken } from './bearer.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = `bootstrap.${LABEL_DOMAIN}/token`;
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const TOKEN_ID_RE = /^[a-z0-9]{6}$/;
const TOKEN_SECRET_RE = /^[a-z0-9]{16}$/;
/** The reference's BootstrapGroupPattern. */
const EXTRA_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const USAGE_PREFIX = 'usage-bootstrap-';

export interface BootstrapSecretLookup {
  /** The stored Secret object (base64 `data`), or undefined when it does not exist. */
  getSecret(namespace: string, name: string): Promise<Record<string, unknown> | undefined>;
}

export class BootstrapTokenAuthenticator implements Authenticator {
  constructor(
    private readonly lookup: BootstrapSecretLookup,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * A bearer token of another shape is not ours (static or service account tokens): no opinion. A token of
   * our shape that fails any check is a 401; the messages name the check for the server log only.
   */
  async authenticate(req: AuthRequest): Promise<UserInfo | undefined> {
    const token = bearerToken(req.headers);
    const m = token === undefined ? null : TOKEN_RE.exec(token);
    if (!m) return undefined;
    const [, id, secret] = m as unknown as [string, string, string];

    const obj = await this.lookup.getSecret(SYSTEM_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_PREFIX + id);
    const reject = (why: string) => unauthorized(`bootstrap token ${id}: ${why}`);
    if (obj === undefined) throw reject('no secret');
    const meta = record(obj.metadata);
    if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) throw reject('secret is being deleted');
    if (obj.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) throw reject('secret has the wrong type');
    const data = secretData(obj);
    if (!sameSecret(data.get('token-secret'), secret)) throw reject('wrong token secret');
    if (data.get('token-id') !== id) throw reject('token id does not match the secret');
    const expiration = data.get('expiration');
    if (expiration !== undefined) {
      // An unreadable expiration counts as expired, as in the reference: never trust a date we cannot read.
      const at = parseRfc3339(expiration);
      if (at === undefined || at <= this.clock.now()) throw reject('expired');
    }
    if (data.get('usage-bootstrap-authentication') !== 'true') throw reject('not marked for authentication');
    const groups = [BOOTSTRAPPERS_GROUP];
    const extra = data.get('auth-extra-groups');
    if (extra !== undefined && extra !== '') {
      for (const g of extra.split(',').map((s) => s.trim())) {
        if (!EXTRA_GROUP_RE.test(g)) throw reject('invalid auth-extra-groups');
        if (!groups.includes(g)) groups.push(g);
      }
    }
    // Sorted like the reference's set; the default group sorts first as a prefix of every extra group.
    return { username: BOOTSTRAP_USER_PREFIX + id, groups: groups.sort() };
  }
}

/** Hashing first gives equal lengths, so the comparison time says nothing about the stored secret. */
function sameSecret(stored: string | undefined, presented: string): boolean {
  if (stored === undefined) return false;
  const h = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(h(stored), h(presented));
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decoded `data` values; entries that are not valid base64 strings are left out (and reported by validation). */
function secretData(secret: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(record(secret.data))) {
    if (typeof v === 'string' && BASE64_RE.test(v)) out.set(k, Buffer.from(v, 'base64').toString('utf8'));
  }
  return out;
}

/** Strict RFC 3339 date-time (`Z` or a numeric offset); milliseconds since the epoch, or undefined. */
export function parseRfc3339(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) return undefined;
  let offset = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const frac = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d); // not Date.UTC: it maps years 0–99 to 1900–1999
  utc.setUTCHours(h, mi, sec, frac);
  return utc.getTime() - offset;
}

/**
 * Spec 2.9 rules for a Secret of the bootstrap token type (other secrets pass). Run after `stringData`
 * has been merged into `data`. The token secret never appears in a message.
 */
export function validateBootstrapTokenSecret(secret: Record<string, unknown>): FieldError[] {
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return [];
  const errs: FieldError[] = [];
  const raw = record(secret.data);
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'string' || !BASE64_RE.test(v)) errs.push(fieldError.invalid(`data[${k}]`, '<value omitted>', 'must be base64 encoded'));
  }
  const data = secretData(secret);
  const f = (key: string) => `data[${key}]`;

  const id = data.get('token-id');
  if (id === undefined) {
    if (!('token-id' in raw)) errs.push(fieldError.required(f('token-id')));
  } else if (!TOKEN_ID_RE.test(id)) {
    errs.push(fieldError.invalid(f('token-id'), id, 'must be 6 characters of [a-z0-9]'));
  }
  const name = record(secret.metadata).name;
  if (id !== undefined && name !== BOOTSTRAP_TOKEN_SECRET_PREFIX + id) {
    errs.push(fieldError.invalid('metadata.name', name, `must be "${BOOTSTRAP_TOKEN_SECRET_PREFIX}<token-id>"`));
  }

  const tokenSecret = data.get('token-secret');
  if (tokenSecret === undefined) {
    if (!('token-secret' in raw)) errs.push(fieldError.required(f('token-secret')));
  } else if (!TOKEN_SECRET_RE.test(tokenSecret)) {
    errs.push({ type: 'FieldValueInvalid', field: f('token-secret'), message: 'Invalid value: must be 16 characters of [a-z0-9]' });
  }

  const expiration = data.get('expiration');
  if (expiration !== undefined && parseRfc3339(expiration) === undefined) {
    errs.push(fieldError.invalid(f('expiration'), expiration, 'must be an RFC 3339 timestamp, e.g. "2030-01-02T15:04:05Z"'));
  }
  for (const [k, v] of data) {
    if (k.startsWith(USAGE_PREFIX) && v !== 'true' && v !== 'false') errs.push(fieldError.notSupported(f(k), v, ['true', 'false']));
  }
  const extra = data.get('auth-extra-groups');
  if (extra !== undefined && extra !== '') {
    for (const g of extra.split(',').map((s) => s.trim())) {
      if (!EXTRA_GROUP_RE.test(g)) {
        errs.push(fieldError.invalid(f('auth-extra-groups'), g, 'each group must match "system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]"'));
      }
    }
  }
  return errs;
}
