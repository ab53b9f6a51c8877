/**
 * An OpenID Connect issuer for tests, in-process over HTTPS with a generated CA: it serves a discovery
 * document and a JWKS, counts the calls to each, rotates its keys on demand, can be stopped and started
 * again on the same port (an issuer that is "down"), and mints ID tokens with any claims, algorithm or key.
 */
import { generateKeyPairSync, sign, constants, randomBytes, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCerts } from '../../src/server/tls.js';

export type Alg = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512';

export interface SigningKey {
  kid: string;
  alg: Alg;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface MintOptions {
  alg?: Alg;
  /** The key that signs (default: the newest published one). */
  key?: SigningKey;
  /** The header's kid; null leaves it out. Default: the signing key's id. */
  kid?: string | null;
  /** Extra header members (e.g. `crit`). */
  header?: Record<string, unknown>;
}

export interface OidcIssuer {
  /** The issuer URL (`iss`), `https://127.0.0.1:<port>` plus the optional path. */
  url: string;
  port: number;
  caPem: string;
  /** The CA written to a file, for `--oidc-ca-file`. */
  caFile: string;
  calls: { discovery: number; jwks: number };
  /** Published keys, newest last. */
  keys: SigningKey[];
  /** Overrides what the discovery document says its issuer is (undefined: the real URL). */
  discoveryIssuer: string | undefined;
  /** A new key of `alg`, published and used from now on; `keepOld` keeps the previous keys published too. */
  rotate(alg?: Alg, keepOld?: boolean): SigningKey;
  /** A key that is never published (for bad-signature tests). */
  unpublishedKey(alg?: Alg): SigningKey;
  /** A signed token: `iss`, `aud` (the first audience), `iat`, `exp` (+1 h) and `sub` unless given. */
  mint(claims?: Record<string, unknown>, options?: MintOptions): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

export function newKey(alg: Alg = 'RS256'): SigningKey {
  const pair = alg.startsWith('ES') ? generateKeyPairSync('ec', { namedCurve: CURVE[alg]! }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: randomBytes(8).toString('hex'), alg, ...pair };
}

/** A compact JWS over `payload` with `key`. */
export function signJwt(payload: Record<string, unknown>, key: SigningKey, options: MintOptions = {}): string {
  const alg = options.alg ?? key.alg;
  const kid = options.kid === undefined ? key.kid : options.kid;
  const header = { alg, typ: 'JWT', ...(kid === null ? {} : { kid }), ...options.header };
  const input = `${b64(header)}.${b64(payload)}`;
  const hash = HASH[alg.slice(2)] ?? 'sha256';
  const sig = alg.startsWith('ES')
    ? sign(hash, Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
    : alg.startsWith('PS')
      ? sign(hash, Buffer.from(input), { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST })
      : sign(hash, Buffer.from(input), key.privateKey);
  return `${input}.${sig.toString('base64url')}`;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

export async function startOidcIssuer(options: { path?: string; alg?: Alg; audience?: string } = {}): Promise<OidcIssuer> {
  const dir = await mkdtemp(join(tmpdir(), 'orch-oidc-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1', 'localhost'] });
  const caFile = join(dir, 'issuer-ca.crt');
  writeFileSync(caFile, certs.caCertPem);
  const path = options.path ?? '';
  const calls = { discovery: 0, jwks: 0 };
  let port = 0;
  const issuer: OidcIssuer = {
    url: '',
    port: 0,
    caPem: certs.caCertPem,
    caFile,
    calls,
    keys: [newKey(options.alg ?? 'RS256')],
    discoveryIssuer: undefined,
    rotate(alg = 'RS256', keepOld = false) {
      const k = newKey(alg);
      issuer.keys = keepOld ? [...issuer.keys, k] : [k];
      return k;
    },
    unpublishedKey: (alg = 'RS256') => newKey(alg),
    mint(claims = {}, o = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: issuer.url, aud: options.audience ?? 'orch-test', sub: 'alice', iat: now, exp: now + 3600, ...claims };
      return signJwt(payload, o.key ?? issuer.keys[issuer.keys.length - 1]!, o);
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async start() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    },
    async close() {
      if (server.listening) await issuer.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const url = req.url ?? '';
    res.setHeader('content-type', 'application/json');
    if (url === `${path}/.well-known/openid-configuration`) {
      calls.discovery++;
      return res.end(JSON.stringify({ issuer: issuer.discoveryIssuer ?? issuer.url, jwks_uri: `${issuer.url}/keys`, id_token_signing_alg_values_supported: ['RS256'] }));
    }
    if (url === `${path}/keys`) {
      calls.jwks++;
      const keys = issuer.keys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, use: 'sig', alg: k.alg }));
      return res.end(JSON.stringify({ keys }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await issuer.start();
  issuer.port = port;
  issuer.url = `https://127.0.0.1:${port}${path}`;
  return issuer;
}
