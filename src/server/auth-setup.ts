import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { SYSTEM_NAMESPACE, DEFAULT_SA_ISSUER } from '../api/naming.js';
import {
  AnonymousAuthenticator,
  BootstrapTokenAuthenticator,
  RequestHeaderAuthenticator,
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  TokenFileAuthenticator,
  UnionAuthenticator,
  X509Authenticator,
  parseTokenFile,
  type Authenticator,
  type UserInfo,
} from '../authn/index.js';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, UnionAuthorizer, type Authorizer } from '../authz/index.js';
import { RbacAuthorizer, RbacIndex } from '../authz/rbac/index.js';
import type { Registry } from '../registry/index.js';

export interface AuthOptions {
  tokenAuthFile?: string;
  anonymousAuth?: boolean;
  clientCAFile?: string;
  requestHeader?: {
    clientCAFile: string;
    allowedNames?: string[];
    usernameHeaders?: string[];
    groupHeaders?: string[];
    extraHeadersPrefix?: string[];
  };
  enableBootstrapTokenAuth?: boolean;
  /** PEM files with public (or private) keys that verify service account tokens; default: the signing key. */
  serviceAccountKeyFiles?: string[];
  /** Private key that signs TokenRequest tokens; default: generated once into the data dir. */
  serviceAccountSigningKeyFile?: string;
  serviceAccountIssuer?: string;
  /** Tokens of deleted service accounts (or bound objects) stop working. Default true, as the reference. */
  serviceAccountLookup?: boolean;
  apiAudiences?: string[];
  authorizationModes?: string[];
}

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;

/** Reads the service-account signing key, generating an EC P-256 key into the data dir on first start. */
export function serviceAccountSigningKey(opts: AuthOptions, dataDir: string): string {
  if (opts.serviceAccountSigningKeyFile) return readFileSync(opts.serviceAccountSigningKeyFile, 'utf8');
  const file = join(dataDir, 'pki', 'sa.key');
  if (!existsSync(file)) {
    mkdirSync(join(dataDir, 'pki'), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8');
}

/**
 * The authenticator union, in the order methods are tried (the first success wins; spec 5.1): the
 * authenticating proxy before plain client certificates (a proxy certificate must not log in as the proxy),
 * then bearer tokens of every kind, then anonymous.
 */
export function buildAuthenticator(
  opts: AuthOptions,
  registry: Registry,
  admin: { token: string; user: UserInfo },
  saSigningKeyPem: string,
): { authenticator: Authenticator; issuer: ServiceAccountTokenIssuer; audiences: string[] } {
  const list: Authenticator[] = [];
  if (opts.requestHeader) {
    const r = opts.requestHeader;
    list.push(
      new RequestHeaderAuthenticator({
        clientCA: readFileSync(r.clientCAFile, 'utf8'),
        ...(r.allowedNames ? { allowedNames: r.allowedNames } : {}),
        ...(r.usernameHeaders ? { usernameHeaders: r.usernameHeaders } : {}),
        ...(r.groupHeaders ? { groupHeaders: r.groupHeaders } : {}),
        ...(r.extraHeadersPrefix ? { extraHeaderPrefixes: r.extraHeadersPrefix } : {}),
      }),
    );
  }
  if (opts.clientCAFile) list.push(X509Authenticator.fromFile(opts.clientCAFile));
  list.push(new TokenFileAuthenticator(new Map([[admin.token, admin.user]])));
  if (opts.tokenAuthFile) list.push(new TokenFileAuthenticator(parseTokenFile(readFileSync(opts.tokenAuthFile, 'utf8'), opts.tokenAuthFile)));
  if (opts.enableBootstrapTokenAuth) {
    list.push(new BootstrapTokenAuthenticator({ getSecret: async (ns, name) => lookup(registry, 'secrets', ns, name) }));
  }
  const issuerName = opts.serviceAccountIssuer ?? DEFAULT_SA_ISSUER;
  const audiences = opts.apiAudiences && opts.apiAudiences.length > 0 ? opts.apiAudiences : [issuerName];
  const issuer = new ServiceAccountTokenIssuer({ signingKeyPem: saSigningKeyPem, issuer: issuerName });
  const keyFiles = opts.serviceAccountKeyFiles?.length ? opts.serviceAccountKeyFiles.map((f) => readFileSync(f, 'utf8')) : [saSigningKeyPem];
  list.push(
    new ServiceAccountAuthenticator({
      publicKeysPem: keyFiles,
      issuers: [issuerName],
      audiences,
      ...(opts.serviceAccountLookup ?? true
        ? {
            lookup: {
              getServiceAccount: async (ns, name) => liveOf(await lookup(registry, 'serviceaccounts', ns, name)),
              getPod: async (ns, name) => liveOf(await lookup(registry, 'pods', ns, name)),
              getSecret: async (ns, name) => liveOf(await lookup(registry, 'secrets', ns, name)),
            },
          }
        : {}),
    }),
  );
  if (opts.anonymousAuth ?? true) list.push(new AnonymousAuthenticator());
  return { authenticator: new UnionAuthenticator(list), issuer, audiences };
}

/** A core object from the watch cache, as the authenticators' lookups need it. */
async function lookup(registry: Registry, plural: string, ns: string, name: string): Promise<Record<string, unknown> | undefined> {
  const store = registry.store('', 'v1', plural);
  if (!store) return undefined;
  const reader = registry.reader(store.type);
  await reader.cacher.ready;
  const item = reader.cacher.get(store.key(ns, name));
  return item ? (reader.decode(item) as Record<string, unknown>) : undefined;
}

function liveOf(o: Record<string, unknown> | undefined) {
  const m = o?.metadata as { uid?: string; deletionTimestamp?: string } | undefined;
  if (!m?.uid) return undefined;
  return { uid: m.uid, ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}) };
}

/** `--authorization-mode` in order (spec 5.7); an unknown or repeated mode is a start-up error. */
export function buildAuthorizer(modes: string[], rbac: () => RbacIndex): Authorizer {
  if (modes.length === 0) throw new Error('--authorization-mode: at least one mode is required');
  const seen = new Set<string>();
  return new UnionAuthorizer(
    modes.map((m) => {
      if (seen.has(m)) throw new Error(`--authorization-mode: "${m}" is listed more than once`);
      seen.add(m);
      if (m === 'AlwaysAllow') return new AlwaysAllowAuthorizer();
      if (m === 'AlwaysDeny') return new AlwaysDenyAuthorizer();
      if (m === 'RBAC') return new RbacAuthorizer(rbac());
      throw new Error(`--authorization-mode: unknown authorization mode "${m}" (supported: ${AUTHORIZATION_MODES.join(', ')})`);
    }),
  );
}

export { SYSTEM_NAMESPACE };
