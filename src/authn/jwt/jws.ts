/**
 * Compact JWS (the ID token's wire form) with node:crypto only: splitting and decoding the three parts,
 * turning JWKS entries into public keys, and checking a signature for the asymmetric algorithms the
 * reference accepts. `none` and the HMAC algorithms are never accepted: an issuer's keys are public.
 */
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** Every algorithm the reference can verify ID tokens with; `--oidc-signing-algs` picks among them. */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;
const KNOWN_ALGORITHMS: ReadonlySet<string> = new Set(SIGNING_ALGORITHMS);

export const isSigningAlgorithm = (alg: string): boolean => KNOWN_ALGORITHMS.has(alg);

/** The curve each ECDSA algorithm signs with (node's names) and its signature length in bytes. */
const EC_CURVES: Record<string, { curve: string; bytes: number }> = {
  ES256: { curve: 'prime256v1', bytes: 64 },
  ES384: { curve: 'secp384r1', bytes: 96 },
  ES512: { curve: 'secp521r1', bytes: 132 },
};

export interface CompactJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` as sent: what the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Strict unpadded base64url; anything else is not a JWS we read. */
function decodeSegment(s: string): Buffer | undefined {
  if (!BASE64URL.test(s) || s.length % 4 === 1) return undefined;
  return Buffer.from(s, 'base64url');
}

function decodeJsonObject(s: string): Record<string, unknown> | undefined {
  const bytes = decodeSegment(s);
  if (bytes === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `iss` claim of an unverified token, read only to choose which authenticator is responsible; undefined
 * when the token is not a three-part JWT with a JSON payload naming an issuer.
 */
export function unverifiedIssuer(token: string): string | undefined {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.indexOf('.', second + 1) >= 0) return undefined;
  const iss = decodeJsonObject(token.slice(first + 1, second))?.iss;
  return typeof iss === 'string' ? iss : undefined;
}

/** The parts of a compact JWS, or a one-line reason it is not one. */
export function parseCompactJws(token: string): CompactJws | string {
  const parts = token.split('.');
  if (parts.length !== 3) return 'not a compact JWS';
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJsonObject(h);
  if (!header) return 'malformed JWS header';
  const payload = decodeJsonObject(p);
  if (!payload) return 'malformed JWT payload';
  const signature = decodeSegment(s);
  if (!signature || signature.length === 0) return 'malformed JWS signature';
  // A critical extension we do not understand must not be ignored (RFC 7515 section 4.1.11).
  if (header.crit !== undefined) return 'unsupported critical JWS header parameters';
  return { header, payload, signingInput: `${h}.${p}`, signature };
}

export interface PublicJwk {
  kid?: string;
  /** The algorithm the issuer pinned the key to, when it did. */
  alg?: string;
  key: KeyObject;
}

/**
 * The usable signing keys of a JWKS document: RSA and EC keys not marked for encryption. Keys of other
 * types, or ones node cannot read, are skipped as the reference's key set skips them; none usable is an error.
 */
export function publicKeysOfJwks(doc: unknown): PublicJwk[] {
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('JWKS document has no "keys" list');
  const out: PublicJwk[] = [];
  for (const jwk of keys) {
    if (jwk === null || typeof jwk !== 'object') continue;
    const j = jwk as Record<string, unknown>;
    if ((j.kty !== 'RSA' && j.kty !== 'EC') || (j.use !== undefined && j.use !== 'sig')) continue;
    let key: KeyObject;
    try {
      key = createPublicKey({ key: publicPart(j), format: 'jwk' });
    } catch {
      continue;
    }
    out.push({ key, ...(typeof j.kid === 'string' ? { kid: j.kid } : {}), ...(typeof j.alg === 'string' ? { alg: j.alg } : {}) });
  }
  if (out.length === 0) throw new Error('JWKS document holds no usable RSA or EC signing key');
  return out;
}

/** Only the public members, so a JWKS that (wrongly) publishes a private key still yields a public key. */
function publicPart(j: Record<string, unknown>): import('node:crypto').JsonWebKey {
  return (j.kty === 'RSA' ? { kty: 'RSA', n: j.n, e: j.e } : { kty: 'EC', crv: j.crv, x: j.x, y: j.y }) as import('node:crypto').JsonWebKey;
}

/** True when `key` fits `alg` (key type, and the curve for ECDSA) and the signature verifies. */
export function verifySignature(alg: string, key: KeyObject, jws: CompactJws): boolean {
  const data = Buffer.from(jws.signingInput, 'latin1');
  const hash = `sha${alg.slice(2)}`;
  try {
    switch (alg.slice(0, 2)) {
      case 'RS':
        return key.asymmetricKeyType === 'rsa' && verify(hash, data, key, jws.signature);
      case 'PS':
        return (
          key.asymmetricKeyType === 'rsa' &&
          verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, jws.signature)
        );
      case 'ES': {
        const want = EC_CURVES[alg];
        if (!want || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== want.curve) return false;
        return jws.signature.length === want.bytes && verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, jws.signature);
      }
      default:
        return false;
    }
  } catch {
    return false;
  }
}
