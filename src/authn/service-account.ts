/**
 * Service account tokens (spec 5.4): signed JWTs naming a service account, optionally bound to a pod or
 * secret. Issued through the token request subresource; verified with `--service-account-key-file` keys.
 */
import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject, X509Certificate } from 'node:crypto';
import { SignJWT, compactVerify, decodeJwt } from 'jose';
import { systemClock, type Clock } from '../util/clock.js';
import { TextMemo } from '../util/text-memo.js';
import { AUTHENTICATION_GROUP, LABEL_DOMAIN } from '../api/naming.js';
import { badRequest, fieldError, unauthorized } from '../errors/index.js';
import { bearerToken } from './bearer.js';
import { pemBlocks } from './pem.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

/** The private claim, named like the reference's `kubernetes.io` claim. */
export const SERVICE_ACCOUNT_CLAIM = LABEL_DOMAIN;
export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const POD_NAME_EXTRA = `${AUTHENTICATION_GROUP}/pod-name`;
export const POD_UID_EXTRA = `${AUTHENTICATION_GROUP}/pod-uid`;
export const CREDENTIAL_ID_EXTRA = `${AUTHENTICATION_GROUP}/credential-id`;

/** Reference limits of a token request's `spec.expirationSeconds`. */
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;
/** Clock skew tolerated on exp/nbf/iat, go-jose's default that the reference relies on. */
const LEEWAY_SECONDS = 60;
/** A bound object deleted this long ago no longer backs its tokens; the grace lets a terminating pod finish. */
const DELETION_GRACE_MS = 60_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];
const EC_ALGORITHMS: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export const serviceAccountUsername = (namespace: string, name: string) => `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;

/**
 * The public keys in a PEM text (`--service-account-key-file`): public keys, certificates and private keys
 * (whose public half is used) may be mixed; `EC PARAMETERS` blocks are skipped. Only RSA and EC keys.
 */
export function loadKeyFile(pem: string, source = 'service account key file'): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const block of pemBlocks(pem)) {
    let key: KeyObject;
    try {
      if (block.label === 'CERTIFICATE') key = new X509Certificate(block.text).publicKey;
      else if (block.label.endsWith('PUBLIC KEY')) key = createPublicKey(block.text);
      else if (block.label.endsWith('PRIVATE KEY')) key = createPublicKey(createPrivateKey(block.text));
      else continue;
    } catch (e) {
      throw new Error(`${source}: unreadable ${block.label}: ${(e as Error).message}`);
    }
    if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'ec') {
      throw new Error(`${source}: ${key.asymmetricKeyType} keys are not supported, only RSA and ECDSA`);
    }
    keys.push(key);
  }
  if (keys.length === 0) throw new Error(`${source}: no PEM RSA or ECDSA key found`);
  return keys;
}

/** The first private key of a PEM text and the JWS algorithm it signs with. */
export function loadSigningKey(pem: string, source = 'service account signing key'): { key: KeyObject; alg: string } {
  const block = pemBlocks(pem).find((b) => b.label.endsWith('PRIVATE KEY'));
  if (!block) throw new Error(`${source}: no PEM private key found`);
  let key: KeyObject;
  try {
    key = createPrivateKey(block.text);
  } catch (e) {
    throw new Error(`${source}: unreadable ${block.label}: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType === 'rsa') return { key, alg: 'RS256' };
  const alg = key.asymmetricKeyType === 'ec' ? EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  if (!alg) throw new Error(`${source}: only RSA and P-256/P-384/P-521 ECDSA keys can sign`);
  return { key, alg };
}

/** The reference's key id: unpadded base64url SHA-256 of the DER public key, stable across restarts. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ format: 'der', type: 'spki' })).digest('base64url');
}

export interface BoundObject {
  kind: 'Pod' | 'Secret';
  name: string;
  uid: string;
}

export interface IssueRequest {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  audiences: string[];
  expirationSeconds: number;
  boundObject?: BoundObject;
  /** Milliseconds since the epoch; defaults to the current time. */
  now?: number;
}

interface PrivateClaim {
  namespace: string;
  serviceaccount: { name: string; uid: string };
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
}

export class ServiceAccountTokenIssuer {
  private readonly key: KeyObject;
  private readonly alg: string;
  private readonly keyId: string;
  private readonly issuer: string;

  private readonly clock: Clock;

  constructor(options: { signingKeyPem: string; issuer: string; keyId?: string; clock?: Clock }) {
    this.clock = options.clock ?? systemClock;
    ({ key: this.key, alg: this.alg } = loadSigningKey(options.signingKeyPem));
    if (options.issuer === '') throw new Error('service account issuer must not be empty');
    this.issuer = options.issuer;
    this.keyId = options.keyId ?? keyIdOf(this.key);
  }

  /** Throws 400 naming the token request field for a request the reference would refuse. */
  async issue(req: IssueRequest): Promise<{ token: string; expirationTimestamp: string }> {
    const exp = req.expirationSeconds;
    if (!Number.isInteger(exp) || exp < MIN_EXPIRATION_SECONDS) {
      throw badRequest('spec.expirationSeconds: may not specify a duration less than 10 minutes', [
        fieldError.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'),
      ]);
    }
    if (exp > MAX_EXPIRATION_SECONDS) {
      throw badRequest('spec.expirationSeconds: may not specify a duration larger than 2^32 seconds', [
        fieldError.invalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'),
      ]);
    }
    if (req.audiences.length === 0 || req.audiences.some((a) => a === '')) {
      throw badRequest('spec.audiences: at least one non-empty audience is required', [fieldError.required('spec.audiences')]);
    }
    if (req.namespace === '' || req.serviceAccountName === '' || req.serviceAccountUid === '') {
      throw new Error('service account token: namespace, name and uid are required');
    }

    const iat = Math.floor((req.now ?? this.clock.now()) / 1000);
    const claim: PrivateClaim = {
      namespace: req.namespace,
      serviceaccount: { name: req.serviceAccountName, uid: req.serviceAccountUid },
    };
    const bound = req.boundObject;
    if (bound?.kind === 'Pod') claim.pod = { name: bound.name, uid: bound.uid };
    else if (bound?.kind === 'Secret') claim.secret = { name: bound.name, uid: bound.uid };
    const token = await new SignJWT({ [SERVICE_ACCOUNT_CLAIM]: claim })
      .setProtectedHeader({ alg: this.alg, kid: this.keyId, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setSubject(serviceAccountUsername(req.namespace, req.serviceAccountName))
      .setAudience(req.audiences)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + exp)
      .setJti(randomUUID()) // lets audit logs tell tokens apart without recording them
      .sign(this.key);
    return { token, expirationTimestamp: new Date((iat + exp) * 1000).toISOString().replace('.000Z', 'Z') };
  }
}

/** A looked-up object; one deleted (or being deleted past the grace period) no longer backs tokens. */
export interface LiveObject {
  uid: string;
  deletionTimestamp?: string | null;
}

/** `--service-account-lookup`: the token's objects must still exist with the same uid. */
export interface ServiceAccountLookup {
  getServiceAccount(namespace: string, name: string): Promise<LiveObject | undefined>;
  /** Without it, pod-bound tokens are not checked against pods. */
  getPod?(namespace: string, name: string): Promise<LiveObject | undefined>;
  getSecret?(namespace: string, name: string): Promise<LiveObject | undefined>;
}

export interface ServiceAccountAuthenticatorOptions {
  /** PEM texts, each holding one or more public keys, certificates or private keys. */
  publicKeysPem: string[];
  issuers: string[];
  /** API audiences: a token must be meant for at least one. */
  audiences: string[];
  lookup?: ServiceAccountLookup;
  /** Expiry and not-before are checked against it (default the system clock). */
  clock?: Clock;
}

export class ServiceAccountAuthenticator implements Authenticator {
  private readonly keys: KeyObject[];
  private readonly issuers: ReadonlySet<string>;
  private readonly audiences: ReadonlySet<string>;
  private readonly lookup: ServiceAccountLookup | undefined;

  constructor(options: ServiceAccountAuthenticatorOptions) {
    this.keys = options.publicKeysPem.flatMap((pem, i) => loadKeyFile(pem, `service account key file #${i + 1}`));
    if (this.keys.length === 0) throw new Error('service account authentication needs at least one key');
    this.issuers = new Set(options.issuers);
    this.audiences = new Set(options.audiences);
    // Either set empty would reject every token: a configuration mistake better reported at start-up.
    if (this.issuers.size === 0) throw new Error('service account authentication needs at least one issuer');
    if (this.audiences.size === 0) throw new Error('service account authentication needs at least one API audience');
    this.lookup = options.lookup;
    this.clock = options.clock ?? systemClock;
  }

  private readonly clock: Clock;

  /**
   * No opinion on bearer tokens that are not JWTs from one of our issuers (bootstrap, static, OIDC tokens).
   * A token claiming our issuer must verify completely, else 401.
   */
  authenticate(req: AuthRequest): Promise<UserInfo | undefined> | undefined {
    const token = bearerToken(req.headers);
    if (token === undefined) return undefined;
    // Answered without a promise: most bearer tokens are someone else's (static, bootstrap, OIDC), and
    // their issuer is remembered rather than decoded again on every request.
    let issuer = this.issuerOfToken.get(token);
    if (issuer === undefined) issuer = this.issuerOfToken.set(token, unverifiedIssuer(token));
    if (!this.issuers.has(issuer)) return undefined;
    return this.verify(token);
  }

  private readonly issuerOfToken = new TextMemo<string>(1024, 16 * 1024);

  private async verify(token: string): Promise<UserInfo> {
    const claims = await this.verifySignature(token);
    const now = this.clock.now();
    const sa = this.checkClaims(claims, Math.floor(now / 1000));
    if (this.lookup) await this.checkLive(this.lookup, sa, now);

    const user: UserInfo = {
      username: serviceAccountUsername(sa.namespace, sa.serviceaccount.name),
      uid: sa.serviceaccount.uid,
      groups: [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${sa.namespace}`],
    };
    const extra: Record<string, string[]> = {};
    if (sa.pod) {
      extra[POD_NAME_EXTRA] = [sa.pod.name];
      extra[POD_UID_EXTRA] = [sa.pod.uid];
    }
    if (typeof claims.jti === 'string' && claims.jti !== '') extra[CREDENTIAL_ID_EXTRA] = [`JTI=${claims.jti}`];
    if (Object.keys(extra).length > 0) user.extra = extra;
    return user;
  }

  /** The payload of the first key the signature verifies with; keys rotate, so any configured key counts. */
  private async verifySignature(token: string): Promise<Record<string, unknown>> {
    for (const key of this.keys) {
      let payload: Uint8Array;
      try {
        ({ payload } = await compactVerify(token, key, { algorithms: ALGORITHMS }));
      } catch {
        continue; // wrong key (or key type) for this token: try the next
      }
      try {
        const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
        if (claims !== null && typeof claims === 'object' && !Array.isArray(claims)) return claims as Record<string, unknown>;
      } catch {
        // signed but not JSON: falls through to the rejection below
      }
      throw reject('payload is not a JSON object');
    }
    throw reject('signature does not verify with any configured key');
  }

  /** Time, audience, and the private claim (checked against `sub`, which other consumers may read). */
  private checkClaims(claims: Record<string, unknown>, now: number): PrivateClaim {
    if (typeof claims.exp !== 'number') throw reject('no expiration');
    if (now > claims.exp + LEEWAY_SECONDS) throw reject('token has expired');
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || now + LEEWAY_SECONDS < claims.nbf)) throw reject('token is not valid yet');
    if (claims.iat !== undefined && (typeof claims.iat !== 'number' || now + LEEWAY_SECONDS < claims.iat)) throw reject('token issued in the future');
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (!aud.some((a) => typeof a === 'string' && this.audiences.has(a))) throw reject('token audiences are not accepted');

    const c = claims[SERVICE_ACCOUNT_CLAIM];
    const ref = (v: unknown) => isRecord(v) && nonEmpty(v.name) && nonEmpty(v.uid);
    if (!isRecord(c) || !nonEmpty(c.namespace) || !ref(c.serviceaccount)) throw reject('missing service account claims');
    if (c.pod !== undefined && !ref(c.pod)) throw reject('malformed pod claim');
    if (c.secret !== undefined && !ref(c.secret)) throw reject('malformed secret claim');
    if (c.pod !== undefined && c.secret !== undefined) throw reject('token bound to both a pod and a secret');
    const sa = c as unknown as PrivateClaim;
    if (claims.sub !== serviceAccountUsername(sa.namespace, sa.serviceaccount.name)) throw reject('subject does not match the service account');
    return sa;
  }

  /** Deleted or recreated (new uid) objects revoke the tokens bound to them. */
  private async checkLive(lookup: ServiceAccountLookup, sa: PrivateClaim, now: number): Promise<void> {
    const check = async (what: string, ref: { name: string; uid: string }, get: ((ns: string, name: string) => Promise<LiveObject | undefined>) | undefined) => {
      if (!get) return;
      const live = await get.call(lookup, sa.namespace, ref.name);
      if (live === undefined) throw reject(`${what} ${sa.namespace}/${ref.name} no longer exists`);
      if (live.uid !== ref.uid) throw reject(`${what} ${sa.namespace}/${ref.name} was recreated (uid differs)`);
      const deleted = live.deletionTimestamp ? Date.parse(live.deletionTimestamp) : NaN;
      if (deleted + DELETION_GRACE_MS < now) throw reject(`${what} ${sa.namespace}/${ref.name} has been deleted`);
    };
    await check('service account', sa.serviceaccount, lookup.getServiceAccount);
    if (sa.pod) await check('pod', sa.pod, lookup.getPod);
    if (sa.secret) await check('secret', sa.secret, lookup.getSecret);
  }
}

const reject = (why: string) => unauthorized(`service account token: ${why}`);
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The `iss` claim of a JWT read without verifying it; '' for anything that is not a JWT with one. */
function unverifiedIssuer(token: string): string {
  if (token.split('.').length !== 3) return '';
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : '';
  } catch {
    return '';
  }
}
