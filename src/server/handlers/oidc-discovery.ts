/**
 * Service account issuer discovery (the reference's `ServiceAccountIssuerDiscovery`): an OpenID Connect
 * discovery document and the key set that verifies service account tokens, so that a relying party can
 * check those tokens itself. Both answers depend only on configuration, so they are rendered once.
 */
import type { KeyObject } from 'node:crypto';
import { keyIdOf, loadKeyFile } from '../../authn/index.js';
import { methodNotAllowed } from '../../errors/index.js';
import { sendBytes, type Res } from '../http.js';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** The reference lets relying parties keep both answers for an hour. */
const CACHE_CONTROL = 'public, max-age=3600';
const JWKS_MEDIA_TYPE = 'application/jwk-set+json';
const EC_ALGORITHMS: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** The JWS algorithm tokens signed with this key's private half use (as the token issuer picks it). */
export function signingAlgorithm(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  const alg = key.asymmetricKeyType === 'ec' ? EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined;
  if (!alg) throw new Error(`a ${key.asymmetricKeyType ?? 'unknown'} key cannot verify service account tokens (RSA or P-256/P-384/P-521 ECDSA)`);
  return alg;
}

export interface Jwk {
  use: 'sig';
  kty: string;
  kid: string;
  alg: string;
  [member: string]: string;
}

/** One JWK per distinct public key; `kid` is the one the token issuer writes into each token's header. */
export function publicKeySet(keys: readonly KeyObject[]): { keys: Jwk[] } {
  const out: Jwk[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    const kid = keyIdOf(key);
    if (seen.has(kid)) continue; // the same key in two files (or a private key and its public half)
    seen.add(kid);
    const { kty, ...material } = key.export({ format: 'jwk' }) as Record<string, string>;
    out.push({ use: 'sig', kty: kty as string, kid, alg: signingAlgorithm(key), ...material });
  }
  return { keys: out };
}

export interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
}

export function discoveryDocument(issuer: string, jwksUri: string, keys: readonly KeyObject[]): DiscoveryDocument {
  return {
    issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(keys.map(signingAlgorithm))].sort(),
  };
}

/**
 * Why discovery cannot be served for this issuer, or undefined when it can. OpenID discovery needs an https
 * URL without query or fragment; the reference then leaves the endpoints out (and logs why) rather than
 * refusing to start, because a plain-string issuer is otherwise a valid configuration.
 */
export function issuerProblem(issuer: string): string | undefined {
  let u: URL;
  try {
    u = new URL(issuer);
  } catch {
    return `the service account issuer "${issuer}" is not a URL`;
  }
  if (u.protocol !== 'https:') return `the service account issuer "${issuer}" must use the https scheme`;
  if (u.search !== '') return `the service account issuer "${issuer}" must not have a query`;
  if (u.hash !== '') return `the service account issuer "${issuer}" must not have a fragment`;
  return undefined;
}

/** `--service-account-jwks-uri`: an https URL, else a start-up error naming the flag. */
export function checkJwksUri(uri: string): void {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw new Error(`--service-account-jwks-uri: "${uri}" is not a valid URL`);
  }
  if (u.protocol !== 'https:') throw new Error(`--service-account-jwks-uri: "${uri}" must use the https scheme`);
}

export interface IssuerDiscoveryOptions {
  issuer: string;
  /** PEM texts of the keys that verify service account tokens (private keys publish their public half). */
  keyPems: readonly string[];
  /** `--service-account-jwks-uri`; default: this server's own JWKS path. */
  jwksUri?: string;
}

/** Serves both endpoints; the answers are rendered once the server knows its external address. */
export class ServiceAccountIssuerDiscovery {
  private readonly keys: KeyObject[];
  private readonly jwks: Buffer;
  private config: Buffer | undefined;
  private externalAddress = '';

  /** Undefined (with the reason logged) when the issuer cannot have discovery; see `issuerProblem`. */
  static create(o: IssuerDiscoveryOptions, log: (msg: string) => void = () => undefined): ServiceAccountIssuerDiscovery | undefined {
    if (o.jwksUri !== undefined) checkJwksUri(o.jwksUri);
    const problem = issuerProblem(o.issuer);
    if (problem) {
      log(`service account issuer discovery is not served: ${problem}`);
      return undefined;
    }
    return new ServiceAccountIssuerDiscovery(o);
  }

  private constructor(private readonly o: IssuerDiscoveryOptions) {
    this.keys = o.keyPems.flatMap((pem, i) => loadKeyFile(pem, `service account key file #${i + 1}`));
    this.jwks = Buffer.from(JSON.stringify(publicKeySet(this.keys)));
  }

  /** `host:port` clients reach this server at: the default JWKS URI is built from it, as the reference does. */
  setExternalAddress(hostPort: string): void {
    this.externalAddress = hostPort;
    this.config = undefined;
  }

  /** True when the path is one of the discovery endpoints (answered, or refused for a method other than GET). */
  serve(path: string, method: string, res: Res): boolean {
    if (path !== OPENID_CONFIGURATION_PATH && path !== JWKS_PATH) return false;
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, path);
    if (path === JWKS_PATH) sendBytes(res, 200, JWKS_MEDIA_TYPE, this.jwks, { 'Cache-Control': CACHE_CONTROL });
    else sendBytes(res, 200, 'application/json', this.configuration(), { 'Cache-Control': CACHE_CONTROL });
    return true;
  }

  private configuration(): Buffer {
    if (this.config === undefined) {
      const jwksUri = this.o.jwksUri ?? `https://${this.externalAddress}${JWKS_PATH}`;
      this.config = Buffer.from(JSON.stringify(discoveryDocument(this.o.issuer, jwksUri, this.keys)));
    }
    return this.config;
  }
}
