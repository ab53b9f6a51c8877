import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerOptions } from '../server/index.js';
import { parseNaming } from '../server/naming-bundle.js';
import { normalizeControllerList } from '../config/controller-names.js';
import type { BackendSpec } from '../storage/index.js';
import { parseRuntimeConfig, servingFilter } from '../registry/resources/versions.js';
import { serviceNetwork } from '../registry/resources/services/network.js';
import { planAdmission } from '../admission/index.js';
import { checkTokenWebhookConfig, type TokenReviewVersion, type TokenWebhookConfig } from '../authn/index.js';
import { checkJwksUri } from '../server/handlers/oidc-discovery.js';
import { checkJwtAuthentication } from '../server/auth-setup.js';
import type { OidcFlagOptions } from '../authn/index.js';
import { AUDIT_BATCH_FLAG_OPTIONS, auditBatchFlags } from './audit-batch-flags.js';
import { AUDIT_FLAG_OPTIONS, AUDIT_USAGE, auditFlags } from './audit-flags.js';
import { EGRESS_FLAG_OPTIONS, EGRESS_USAGE, egressFlags } from './egress-flags.js';
import { TRACING_FLAG_OPTIONS, TRACING_USAGE, tracingFlags } from './tracing-flags.js';
import { checkShowHiddenVersion, formatMinorVersion, previousRelease } from '../metrics/stability.js';
import { loadEncryptionConfiguration } from '../encryption/config.js';
import { checkGatedFlags, FeatureGates, featureGatesUsage, parseFeatureGateList } from '../features/index.js';

export const MAX_WORKERS = 64;

export const USAGE = `orch-apiserver: the cluster resource API server

  --secure-port=6443              HTTPS port (HTTP/2 and HTTP/1.1); 0 picks a free port
  --bind-address=127.0.0.1        address to listen on
  --data-dir=./orch-data          certificates, admin credentials, admin.kubeconfig and the SQLite store
  --storage-backend=sqlite        sqlite | etcd | memory
  --etcd-servers=URL[,URL]        etcd client URLs (with --storage-backend=etcd)
  --tls-cert-file, --tls-private-key-file   serve this certificate instead of the generated one
  --token-auth-file=PATH          static tokens: CSV token,user,uid[,groups...]
  --anonymous-auth=true           treat requests without credentials as system:anonymous
  --authorization-mode=RBAC       comma list, in order: RBAC, Node, ABAC, Webhook, AlwaysAllow, AlwaysDeny
  --authorization-webhook-config-file=PATH   kubeconfig of the SubjectAccessReview webhook (mode Webhook)
  --authorization-webhook-version=v1beta1    v1 or v1beta1 SubjectAccessReviews to that webhook
  --authorization-webhook-cache-authorized-ttl=5m0s, --authorization-webhook-cache-unauthorized-ttl=30s
                                  how long the webhook's allow and other answers are cached (0s: not at all)
  --authorization-policy-file=PATH   ABAC policy, one JSON object a line (mode ABAC)
  --authorization-config=PATH     AuthorizationConfiguration file (re-read on change); not with the flags above
  --client-ca-file=PATH           authenticate client certificates signed by these CAs (CN user, O groups)
  --requestheader-client-ca-file=PATH   trust X-Remote-* headers from an authenticating proxy with a cert from this CA
  --requestheader-allowed-names, --requestheader-username-headers, --requestheader-group-headers,
  --requestheader-extra-headers-prefix   the proxy's allowed CNs and header names
  --enable-bootstrap-token-auth=false   bootstrap tokens from Secrets in orch-system
  --service-account-key-file=PATH (repeatable)   keys that verify service account tokens (default: the signing key)
  --service-account-signing-key-file=PATH   key that signs TokenRequest tokens (default: generated in the data dir)
  --service-account-issuer=URL    issuer of service account tokens
  --service-account-lookup=true   tokens of deleted service accounts stop working
  --service-cluster-ip-range=10.0.0.0/24   CIDR (IPv4 or IPv6) Service cluster IPs come from; the first is the kubernetes Service's
  --service-node-port-range=30000-32767    ports NodePort and LoadBalancer Services get node ports from
  --api-audiences=A,B             audiences a token must be meant for (default: the issuer)
  --service-account-jwks-uri=URL  https jwks_uri of /.well-known/openid-configuration (default: this server's /openid/v1/jwks)
  --authentication-token-webhook-config-file=PATH   kubeconfig of a TokenReview webhook for bearer tokens nobody else accepts
  --authentication-token-webhook-version=v1beta1    v1 or v1beta1 TokenReviews to that webhook
  --authentication-token-webhook-cache-ttl=2m0s     how long its answers are reused (0 = not cached)
  --oidc-issuer-url=URL, --oidc-client-id=ID   accept ID tokens (bearer) from this https OpenID Connect issuer for this client
  --oidc-username-claim=sub       claim holding the username; --oidc-username-prefix=P (default <issuer URL># unless the claim is email; - for none)
  --oidc-groups-claim=C, --oidc-groups-prefix=P   claim holding the groups (string or list) and a prefix for them
  --oidc-required-claim=K=V (repeatable)   claims every ID token must carry with exactly this value
  --oidc-ca-file=PATH             CA of the issuer's HTTPS certificate (default: system roots)
  --oidc-signing-algs=RS256       comma list of accepted algorithms (RS, PS, ES with 256/384/512)
  --authentication-config=PATH    AuthenticationConfiguration (YAML or JSON) with jwt[] issuers; reloaded when it changes (not with --oidc-*)
  --shutdown-delay-duration=0s    keep serving this long after SIGTERM while /readyz fails
  --livez-grace-period=0s         failing livez checks report ok for this long after start
  --feature-gates=Name=true|false,...   turn features on or off; an unknown gate, or a GA gate set false, is an error:
${featureGatesUsage('      ')}  --runtime-config=KEY[=true|false],...   serve or hide APIs: <group>/<version>[/<resource>] (core: v1),
                                  api/all, api/ga, api/beta, api/alpha (default: stable on, alpha and most beta off)
  --max-requests-inflight=400     concurrent read requests before 429 (0 = unlimited)
  --max-mutating-requests-inflight=200   concurrent writes before 429 (0 = unlimited)
  --enable-priority-and-fairness=true   classify requests by FlowSchema into priority levels that share the sum
                                  of the two limits above, with fair queuing; false: the two limits apply as they are
  --enable-admission-plugins=A,B  admission plugins to run besides the default set (always in the fixed order)
  --disable-admission-plugins=A,B default plugins not to run
  --admission-control-config-file=PATH   AdmissionConfiguration (YAML or JSON): each plugin's configuration
${AUDIT_USAGE}  --audit-webhook-config-file=PATH   kubeconfig of an audit webhook; each batch of events is POSTed to it as an EventList
  --audit-webhook-version=audit.orch.io/v1   version of the EventList sent (the only one)
  --audit-webhook-mode=batch      batch (requests never wait), blocking, or blocking-strict (a lost RequestReceived event fails the request)
  --audit-webhook-initial-backoff=10s   first wait before retrying a failed call (5 attempts, each wait 1.5 times the last)
  --audit-webhook-batch-buffer-size=10000, --audit-webhook-batch-max-size=400, --audit-webhook-batch-max-wait=30s
                                  events buffered before new ones are dropped; events per call; longest wait for a partial batch
  --audit-webhook-batch-throttle-enable=true, --audit-webhook-batch-throttle-qps=10, --audit-webhook-batch-throttle-burst=15
                                  limit calls per second (burst after a quiet time)
  --audit-log-batch-buffer-size=10000, --audit-log-batch-max-size=1, --audit-log-batch-max-wait=0s,
  --audit-log-batch-throttle-enable=false, --audit-log-batch-throttle-qps, --audit-log-batch-throttle-burst
                                  the same for the log backend in --audit-log-mode=batch
  --encryption-provider-config=PATH   EncryptionConfiguration (YAML or JSON): how values are encrypted at rest, per resource
  --encryption-provider-config-automatic-reload=false   re-read that file when it changes (an invalid version is logged and ignored)
${EGRESS_USAGE}${TRACING_USAGE}  --show-hidden-metrics-for-version=X.Y   expose the metrics hidden in this release; only the previous release (${formatMinorVersion(previousRelease())}) is accepted
  --workers=1                     server processes sharing the port and the store (1-${MAX_WORKERS}, or auto = one per core)
  --controllers=*                 controllers of the in-process controller manager (as orch-controller-manager's); empty = none
  --naming=orch                   orch (the spec's identifiers) | k8s (the reference's: *.k8s.io groups, kube-system, ...)
`;

/** The command line: the options of each server process, and how many of them to run. */
export interface CliOptions {
  server: ServerOptions;
  /** `--workers`: 1 = one process (no supervisor). */
  workers: number;
}

/** Parses a duration like `70s`, `1m30s`, `500ms` or a bare number of seconds. */
export function parseDuration(flag: string, v: string): number {
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(v))) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000;
    consumed = re.lastIndex;
  }
  if (consumed !== v.length || v === '') throw new Error(`${flag}: invalid duration "${v}" (examples: 30s, 1m30s, 500ms)`);
  return total;
}

function parseBool(flag: string, v: string): boolean {
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new Error(`${flag}: invalid boolean "${v}" (true or false)`);
}

function parseCount(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new Error(`${flag}: invalid count "${v}" (a non-negative integer; 0 = unlimited)`);
  return Number(v);
}

/** `--workers=N|auto` */
export function parseWorkers(v: string | undefined): number {
  if (v === undefined) return 1;
  if (v === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > MAX_WORKERS) throw new Error(`--workers: invalid worker count "${v}" (an integer from 1 to ${MAX_WORKERS}, or auto)`);
  return n;
}

/** Flags to CliOptions. Every problem is an Error naming the flag (a start-up error, exit code 1). */
export function parseFlags(argv: string[]): CliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      'secure-port': { type: 'string' },
      'bind-address': { type: 'string' },
      'data-dir': { type: 'string' },
      'storage-backend': { type: 'string' },
      'etcd-servers': { type: 'string' },
      'etcd-prefix': { type: 'string' },
      'tls-cert-file': { type: 'string' },
      'tls-private-key-file': { type: 'string' },
      'token-auth-file': { type: 'string' },
      'anonymous-auth': { type: 'string' },
      'authorization-mode': { type: 'string' },
      'authorization-config': { type: 'string' },
      'authorization-webhook-config-file': { type: 'string' },
      'authorization-webhook-version': { type: 'string' },
      'authorization-webhook-cache-authorized-ttl': { type: 'string' },
      'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
      'authorization-policy-file': { type: 'string' },
      'shutdown-delay-duration': { type: 'string' },
      'livez-grace-period': { type: 'string' },
      'max-requests-inflight': { type: 'string' },
      'feature-gates': { type: 'string' },
      'runtime-config': { type: 'string' },
      'client-ca-file': { type: 'string' },
      'requestheader-client-ca-file': { type: 'string' },
      'requestheader-allowed-names': { type: 'string' },
      'requestheader-username-headers': { type: 'string' },
      'requestheader-group-headers': { type: 'string' },
      'requestheader-extra-headers-prefix': { type: 'string' },
      'enable-bootstrap-token-auth': { type: 'string' },
      'service-account-key-file': { type: 'string', multiple: true },
      'service-account-signing-key-file': { type: 'string' },
      'service-account-issuer': { type: 'string' },
      'service-account-lookup': { type: 'string' },
      'service-cluster-ip-range': { type: 'string' },
      'service-node-port-range': { type: 'string' },
      'api-audiences': { type: 'string' },
      'service-account-jwks-uri': { type: 'string' },
      'authentication-token-webhook-config-file': { type: 'string' },
      'authentication-token-webhook-version': { type: 'string' },
      'authentication-token-webhook-cache-ttl': { type: 'string' },
      'oidc-issuer-url': { type: 'string' },
      'oidc-client-id': { type: 'string' },
      'oidc-username-claim': { type: 'string' },
      'oidc-username-prefix': { type: 'string' },
      'oidc-groups-claim': { type: 'string' },
      'oidc-groups-prefix': { type: 'string' },
      'oidc-required-claim': { type: 'string', multiple: true },
      'oidc-ca-file': { type: 'string' },
      'oidc-signing-algs': { type: 'string' },
      'authentication-config': { type: 'string' },
      'max-mutating-requests-inflight': { type: 'string' },
      'enable-priority-and-fairness': { type: 'string' },
      'enable-admission-plugins': { type: 'string' },
      'disable-admission-plugins': { type: 'string' },
      'admission-control-config-file': { type: 'string' },
      'encryption-provider-config': { type: 'string' },
      'encryption-provider-config-automatic-reload': { type: 'string' },
      'show-hidden-metrics-for-version': { type: 'string' },
      workers: { type: 'string' },
      naming: { type: 'string' },
      controllers: { type: 'string' },
      ...AUDIT_BATCH_FLAG_OPTIONS,
      ...AUDIT_FLAG_OPTIONS,
      ...EGRESS_FLAG_OPTIONS,
      ...TRACING_FLAG_OPTIONS,
    },
  });
  if (values.help) return 'help';
  const workers = parseWorkers(values.workers);
  const port = Number(values['secure-port'] ?? 6443);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--secure-port: invalid port "${values['secure-port']}"`);
  const dataDir = resolve(values['data-dir'] ?? './orch-data');
  const kind = values['storage-backend'] ?? 'sqlite';
  let storage: BackendSpec;
  if (kind === 'sqlite') storage = { type: 'sqlite', path: resolve(dataDir, 'orch.db') };
  else if (kind === 'memory') storage = { type: 'memory' };
  else if (kind === 'etcd') {
    const servers = (values['etcd-servers'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    if (servers.length === 0) throw new Error('--etcd-servers: required with --storage-backend=etcd');
    storage = { type: 'etcd', endpoints: servers, ...(values['etcd-prefix'] ? { keyPrefix: values['etcd-prefix'] } : {}) };
  } else throw new Error(`--storage-backend: unknown backend "${kind}" (sqlite, etcd or memory)`);
  if (workers > 1 && kind === 'memory') {
    throw new Error('--workers: the memory storage backend cannot be shared between worker processes; use sqlite or etcd');
  }
  const opts: ServerOptions = {
    dataDir,
    bindAddress: values['bind-address'] ?? '127.0.0.1',
    port,
    storage,
    anonymousAuth: values['anonymous-auth'] === undefined ? true : parseBool('--anonymous-auth', values['anonymous-auth']),
    shutdownDelayMs: parseDuration('--shutdown-delay-duration', values['shutdown-delay-duration'] ?? '0s'),
    livezGracePeriodMs: parseDuration('--livez-grace-period', values['livez-grace-period'] ?? '0s'),
    writeKubeconfig: true,
    maxRequestsInflight: parseCount('--max-requests-inflight', values['max-requests-inflight'] ?? '400'),
    maxMutatingRequestsInflight: parseCount('--max-mutating-requests-inflight', values['max-mutating-requests-inflight'] ?? '200'),
    enablePriorityAndFairness: parseBool('--enable-priority-and-fairness', values['enable-priority-and-fairness'] ?? 'true'),
  };
  if (values['tls-cert-file']) opts.tlsCertFile = resolve(values['tls-cert-file']);
  if (values['tls-private-key-file']) opts.tlsPrivateKeyFile = resolve(values['tls-private-key-file']);
  const list = (v: string | undefined) => (v ? v.split(',').map((x) => x.trim()).filter(Boolean) : undefined);
  if (values['client-ca-file']) opts.clientCAFile = resolve(values['client-ca-file']);
  if (values['requestheader-client-ca-file']) {
    const usernameHeaders = list(values['requestheader-username-headers']);
    const groupHeaders = list(values['requestheader-group-headers']);
    const extraHeadersPrefix = list(values['requestheader-extra-headers-prefix']);
    const allowedNames = list(values['requestheader-allowed-names']);
    opts.requestHeader = {
      clientCAFile: resolve(values['requestheader-client-ca-file']),
      ...(allowedNames ? { allowedNames } : {}),
      ...(usernameHeaders ? { usernameHeaders } : {}),
      ...(groupHeaders ? { groupHeaders } : {}),
      ...(extraHeadersPrefix ? { extraHeadersPrefix } : {}),
    };
  } else if (values['requestheader-username-headers'] || values['requestheader-allowed-names']) {
    throw new Error('--requestheader-*: need --requestheader-client-ca-file to trust the proxy');
  }
  if (values['enable-bootstrap-token-auth'] !== undefined) opts.enableBootstrapTokenAuth = parseBool('--enable-bootstrap-token-auth', values['enable-bootstrap-token-auth']);
  if (values['service-account-key-file']) opts.serviceAccountKeyFiles = values['service-account-key-file'].map((f) => resolve(f));
  if (values['service-account-signing-key-file']) opts.serviceAccountSigningKeyFile = resolve(values['service-account-signing-key-file']);
  if (values['service-account-issuer']) opts.serviceAccountIssuer = values['service-account-issuer'];
  if (values['service-account-lookup'] !== undefined) opts.serviceAccountLookup = parseBool('--service-account-lookup', values['service-account-lookup']);
  const audiences = list(values['api-audiences']);
  if (audiences) opts.apiAudiences = audiences;
  if (values['feature-gates']) opts.featureGates = parseFeatureGateList(values['feature-gates']);
  // Unknown or locked gates, and flags a disabled gate forbids, are usage errors before any process starts.
  const gates = FeatureGates.resolve(opts.featureGates ?? {});
  checkGatedFlags(gates, { authenticationConfig: values['authentication-config'] !== undefined, authorizationConfig: values['authorization-config'] !== undefined, tracingConfig: values['tracing-config-file'] !== undefined });
  if (values['runtime-config'] !== undefined) {
    opts.runtimeConfig = parseRuntimeConfig(values['runtime-config']);
    servingFilter(opts.runtimeConfig); // unknown or removed versions: a usage error before any process starts
  }
  const enabled = list(values['enable-admission-plugins']);
  const disabled = list(values['disable-admission-plugins']);
  if (enabled) opts.enableAdmissionPlugins = enabled;
  if (disabled) opts.disableAdmissionPlugins = disabled;
  if (values['admission-control-config-file'] !== undefined) {
    if (values['admission-control-config-file'] === '') throw new Error('--admission-control-config-file: a file path is required');
    opts.admissionControlConfigFile = resolve(values['admission-control-config-file']);
  }
  planAdmission(opts); // an unknown plugin or a bad configuration file is a usage error before any process starts
  encryptionFlags(values, opts);
  if (values['token-auth-file']) opts.tokenAuthFile = resolve(values['token-auth-file']);
  const ipRange = values['service-cluster-ip-range'];
  const portRange = values['service-node-port-range'];
  serviceNetwork({ clusterIPRange: ipRange, nodePortRange: portRange }); // a bad range is a usage error at once
  if (ipRange !== undefined) opts.serviceClusterIPRange = ipRange;
  if (portRange !== undefined) opts.serviceNodePortRange = portRange;
  authorizationFlags(values, opts);
  tokenWebhookFlags(values, opts);
  jwtFlags(values, opts);
  auditFlags(values, opts);
  auditBatchFlags(values, opts);
  egressFlags(values, opts);
  tracingFlags(values, opts);
  const showHidden = values['show-hidden-metrics-for-version'];
  checkShowHiddenVersion(showHidden); // anything but the previous release is a usage error
  if (showHidden) opts.showHiddenMetricsForVersion = showHidden;
  if (values.naming !== undefined) opts.naming = parseNaming('--naming', values.naming);
  if (values.controllers !== undefined) {
    const problems: string[] = [];
    opts.controllers = normalizeControllerList(values.controllers === '' ? [] : values.controllers.split(',').map((x) => x.trim()), '--controllers', problems);
    if (problems.length) throw new Error(problems.join('; '));
  }
  return { server: opts, workers };
}

/**
 * The authorization flags (spec 5.7 items 5 and 6): `--authorization-config` excludes `--authorization-mode`
 * and the `--authorization-webhook-*` flags. The rest is checked when the authorizer is built.
 */
function authorizationFlags(values: Record<string, string | boolean | string[] | undefined>, opts: ServerOptions): void {
  const str = (k: string) => values[k] as string | undefined;
  const config = str('authorization-config');
  if (config !== undefined) {
    if (config === '') throw new Error('--authorization-config: a file path is required');
    const other = ['authorization-mode', 'authorization-webhook-config-file', 'authorization-webhook-version', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl'].find((k) => values[k] !== undefined);
    if (other) throw new Error(`--authorization-config cannot be used together with --${other}: the configuration file replaces the authorization mode flags`);
    opts.authorizationConfigFile = resolve(config);
  }
  const mode = str('authorization-mode');
  if (mode !== undefined) opts.authorizationModes = mode.split(',').map((m) => m.trim());
  const webhookFile = str('authorization-webhook-config-file');
  if (webhookFile !== undefined) opts.authorizationWebhookConfigFile = resolve(webhookFile);
  const version = str('authorization-webhook-version');
  if (version !== undefined) opts.authorizationWebhookVersion = version;
  const allowTTL = str('authorization-webhook-cache-authorized-ttl');
  if (allowTTL !== undefined) opts.authorizationWebhookCacheAuthorizedTTLMs = parseDuration('--authorization-webhook-cache-authorized-ttl', allowTTL);
  const otherTTL = str('authorization-webhook-cache-unauthorized-ttl');
  if (otherTTL !== undefined) opts.authorizationWebhookCacheUnauthorizedTTLMs = parseDuration('--authorization-webhook-cache-unauthorized-ttl', otherTTL);
  const policy = str('authorization-policy-file');
  if (policy !== undefined) opts.authorizationPolicyFile = resolve(policy);
}

/**
 * `--authentication-token-webhook-*` and `--service-account-jwks-uri`. The webhook's kubeconfig is read here,
 * so a bad file stops the start before any process is forked; the version and TTL flags mean nothing
 * without the file, so they are refused alone rather than ignored.
 */
function tokenWebhookFlags(values: Record<string, string | boolean | string[] | undefined>, opts: ServerOptions): void {
  const str = (k: string) => values[k] as string | undefined;
  const jwksUri = str('service-account-jwks-uri');
  if (jwksUri !== undefined) {
    checkJwksUri(jwksUri);
    opts.serviceAccountJwksUri = jwksUri;
  }
  const file = str('authentication-token-webhook-config-file');
  const version = str('authentication-token-webhook-version');
  const ttl = str('authentication-token-webhook-cache-ttl');
  if (file === undefined) {
    const alone = version !== undefined ? 'version' : ttl !== undefined ? 'cache-ttl' : undefined;
    if (alone) throw new Error(`--authentication-token-webhook-${alone}: needs --authentication-token-webhook-config-file`);
    return;
  }
  if (file === '') throw new Error('--authentication-token-webhook-config-file: a file path is required');
  const config: TokenWebhookConfig = { configFile: resolve(file) };
  if (version !== undefined) config.version = version as TokenReviewVersion; // checked with the file below
  if (ttl !== undefined) config.cacheTtlMs = parseDuration('--authentication-token-webhook-cache-ttl', ttl);
  checkTokenWebhookConfig(config);
  opts.authenticationTokenWebhook = config;
}

/**
 * `--oidc-*` and `--authentication-config` (spec 5.5). The issuer settings and the file are validated here
 * (after `--service-account-issuer`, which a JWT issuer may not claim), so mistakes stop the start at once.
 */
function jwtFlags(values: Record<string, string | boolean | string[] | undefined>, opts: ServerOptions): void {
  const str = (k: string) => values[k] as string | undefined;
  const oidc: OidcFlagOptions = {};
  const plain = { issuerURL: 'oidc-issuer-url', clientID: 'oidc-client-id', usernameClaim: 'oidc-username-claim', usernamePrefix: 'oidc-username-prefix', groupsClaim: 'oidc-groups-claim', groupsPrefix: 'oidc-groups-prefix' } as const;
  for (const [key, flag] of Object.entries(plain) as [keyof typeof plain, string][]) {
    const v = str(flag);
    if (v !== undefined) oidc[key] = v;
  }
  const required = values['oidc-required-claim'] as string[] | undefined;
  if (required) {
    oidc.requiredClaims = {};
    for (const pair of required) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`--oidc-required-claim: invalid value "${pair}" (expected claim=value)`);
      oidc.requiredClaims[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  const ca = str('oidc-ca-file');
  if (ca !== undefined) oidc.caFile = resolve(ca);
  const algs = str('oidc-signing-algs');
  if (algs !== undefined) oidc.signingAlgs = algs.split(',').map((a) => a.trim()).filter(Boolean);
  if (Object.keys(oidc).length > 0) opts.oidc = oidc;
  const file = str('authentication-config');
  if (file === '') throw new Error('--authentication-config: a file path is required');
  if (file !== undefined) opts.authenticationConfigFile = resolve(file);
  checkJwtAuthentication(opts);
}

/** `--encryption-provider-config[-automatic-reload]`: the file is checked here, before any process starts. */
function encryptionFlags(values: Record<string, string | boolean | string[] | undefined>, opts: ServerOptions): void {
  const file = values['encryption-provider-config'] as string | undefined;
  const reloadText = values['encryption-provider-config-automatic-reload'] as string | undefined;
  const reload = reloadText === undefined ? false : parseBool('--encryption-provider-config-automatic-reload', reloadText);
  if (file === undefined) {
    if (reload) throw new Error('--encryption-provider-config-automatic-reload: requires --encryption-provider-config');
    return;
  }
  if (file === '') throw new Error('--encryption-provider-config: a file path is required');
  opts.encryptionProviderConfig = resolve(file);
  opts.encryptionProviderConfigAutomaticReload = reload;
  try {
    loadEncryptionConfiguration(opts.encryptionProviderConfig, { reload, kmsV1: FeatureGates.resolve(opts.featureGates ?? {}).enabled('KMSv1') });
  } catch (e) {
    throw new Error(`--encryption-provider-config: ${(e as Error).message}`);
  }
}
