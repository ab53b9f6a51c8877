import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Clock } from '../util/clock.js';
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
  tokenWebhookFromConfig,
  jwtConfigurationOf,
  startJwtAuthentication,
  type JwtAuthentication,
  type JwtSettings,
  type OidcFlagOptions,
  type Authenticator,
  type TokenWebhookConfig,
  type UserInfo,
} from '../authn/index.js';
import type { AuthorizationOptions } from './authz-setup.js';
import { unauthorized } from '../errors/index.js';
import type { Registry } from '../registry/index.js';
import { isUnreadable, UnreadableLog } from '../registry/readable.js';

export interface AuthOptions extends AuthorizationOptions {
  /** Token issue times and expiry follow it (`startServer({ clock })`; default the system clock). */
  clock?: Clock;
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
  /** `--authentication-token-webhook-*`: bearer tokens nobody else accepted go to this TokenReview webhook. */
  authenticationTokenWebhook?: TokenWebhookConfig;
  /** `--service-account-jwks-uri`: the `jwks_uri` of the issuer discovery document (https). */
  serviceAccountJwksUri?: string;
  /** `--oidc-*` (spec 5.5): one OpenID Connect issuer whose ID tokens authenticate users. */
  oidc?: OidcFlagOptions;
  /** `--authentication-config` (spec 5.5): an AuthenticationConfiguration file, followed for changes. */
  authenticationConfigFile?: string;
}

export { AUTHORIZATION_MODES, buildAuthorizer, webhookFactory, type AuthorizerFactories, type AuthorizationSetup } from './authz-setup.js';

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
  opts: AuthOptions & { log?: (msg: string) => void },
  registry: Registry,
  admin: { token: string; user: UserInfo },
  saSigningKeyPem: string,
): {
  authenticator: Authenticator;
  issuer: ServiceAccountTokenIssuer;
  audiences: string[];
  serviceAccountDiscovery: { issuer: string; keyPems: string[] };
  close: () => void;
  /** JWT authentication, when configured (its `lastReloadTimestampSeconds` reports file reloads). */
  jwt?: JwtAuthentication;
} {
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
  const unreadable = new UnreadableLog(opts.log ?? (() => undefined), 'authentication: rejecting the credential that needs an unreadable object');
  const find = (plural: string, ns: string, name: string) => lookup(registry, unreadable, plural, ns, name);
  if (opts.enableBootstrapTokenAuth) {
    list.push(new BootstrapTokenAuthenticator({ getSecret: async (ns, name) => find('secrets', ns, name) }, opts.clock));
  }
  const issuerName = opts.serviceAccountIssuer ?? DEFAULT_SA_ISSUER;
  const audiences = opts.apiAudiences && opts.apiAudiences.length > 0 ? opts.apiAudiences : [issuerName];
  const issuer = new ServiceAccountTokenIssuer({ signingKeyPem: saSigningKeyPem, issuer: issuerName, ...(opts.clock ? { clock: opts.clock } : {}) });
  const keyFiles = opts.serviceAccountKeyFiles?.length ? opts.serviceAccountKeyFiles.map((f) => readFileSync(f, 'utf8')) : [saSigningKeyPem];
  list.push(
    new ServiceAccountAuthenticator({
      publicKeysPem: keyFiles,
      issuers: [issuerName],
      audiences,
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.serviceAccountLookup ?? true
        ? {
            lookup: {
              getServiceAccount: async (ns, name) => liveOf(await find('serviceaccounts', ns, name)),
              getPod: async (ns, name) => liveOf(await find('pods', ns, name)),
              getSecret: async (ns, name) => liveOf(await find('secrets', ns, name)),
            },
          }
        : {}),
    }),
  );
  // ID tokens before the token webhook, as in the reference: a remote call only for tokens nobody here knows.
  const jwt = startJwtAuthentication(jwtSettings(opts), { ...(opts.log ? { log: opts.log } : {}) });
  if (jwt) list.push(jwt);
  const tokenWebhook = opts.authenticationTokenWebhook ? tokenWebhookFromConfig(opts.authenticationTokenWebhook, audiences) : undefined;
  if (tokenWebhook) list.push(tokenWebhook);
  if (opts.anonymousAuth ?? true) list.push(new AnonymousAuthenticator());
  return {
    authenticator: new UnionAuthenticator(list),
    issuer,
    audiences,
    /** What the issuer discovery endpoints publish. */
    serviceAccountDiscovery: { issuer: issuerName, keyPems: keyFiles },
    close: () => {
      tokenWebhook?.close();
      jwt?.stop();
    },
    ...(jwt ? { jwt } : {}),
  };
}

/** The JWT options as authn/jwt takes them; the service-account issuer is one a JWT issuer may not claim. */
export function jwtSettings(opts: AuthOptions): JwtSettings {
  return {
    ...(opts.oidc ? { oidc: opts.oidc } : {}),
    ...(opts.authenticationConfigFile !== undefined ? { authenticationConfigFile: opts.authenticationConfigFile } : {}),
    serviceAccountIssuers: [opts.serviceAccountIssuer ?? DEFAULT_SA_ISSUER],
  };
}

/** Start-up check of the `--oidc-*` flags or `--authentication-config` file; throws naming the flag or file. */
export function checkJwtAuthentication(opts: AuthOptions): void {
  jwtConfigurationOf(jwtSettings(opts));
}

/**
 * A core object from the watch cache, as the authenticators' lookups need it. One whose stored value no
 * encryption provider can read fails the credential that needs it (a 401, like any rejected credential):
 * never decoded, never taken as absent-but-fine; the reason is logged once per object version.
 */
async function lookup(registry: Registry, unreadable: UnreadableLog, plural: string, ns: string, name: string): Promise<Record<string, unknown> | undefined> {
  const store = registry.store('', 'v1', plural);
  if (!store) return undefined;
  const reader = registry.reader(store.type);
  await reader.cacher.ready;
  const item = reader.cacher.get(store.key(ns, name));
  if (!item) return undefined;
  if (isUnreadable(item)) {
    unreadable.report(item);
    throw unauthorized(`${plural} ${ns}/${name} cannot be read`);
  }
  return reader.decode(item) as Record<string, unknown>;
}

function liveOf(o: Record<string, unknown> | undefined) {
  const m = o?.metadata as { uid?: string; deletionTimestamp?: string } | undefined;
  if (!m?.uid) return undefined;
  return { uid: m.uid, ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}) };
}

export { SYSTEM_NAMESPACE };
