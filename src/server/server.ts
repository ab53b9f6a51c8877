import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_NAMESPACE, NAMING, NODE_LEASE_NAMESPACE, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE } from '../api/naming.js';
import { parseNaming, startServerInNaming } from './naming-bundle.js';
import { parseTokenFile } from '../authn/index.js';
import { RbacAuthorizer, RbacIndex } from '../authz/rbac/index.js';
import { buildAuthenticator, buildAuthorizer, serviceAccountSigningKey, webhookFactory } from './auth-setup.js';
import { checkJwtAuthentication } from './auth-setup.js';
import { feedRbacIndex, reconcileDefaultRbac } from './rbac-setup.js';
import { startPolicyStatusController } from './policy-status-setup.js';
import { NodeAuthorizer, NodeGraph } from '../authz/node/index.js';
import { AbacAuthorizer } from '../authz/abac/index.js';
import { feedNodeGraph } from './node-graph-setup.js';
import { collectionPrefix, Registry } from '../registry/index.js';
import { builtinTypes, createOnlyTypes } from '../registry/resources/index.js';
import { ensureApiService, serviceNetwork, startServiceRangeRepair } from '../registry/resources/services/index.js';
import { parseRuntimeConfig, servingFilter } from '../registry/resources/versions.js';
import { ensureBootstrapObjects } from '../registry/resources/bootstrap.js';
import { openBackend } from '../storage/index.js';
import { buildChain } from './chain.js';
import { connectMetricSources, createServerMetrics, followStorageKeyLabels, storageKeyLabels, TimedBackend } from './metrics-setup.js';
import { RequestMetrics } from './request-metrics.js';
import { openAudit, planAudit } from './audit-setup.js';
import { planAdmission } from '../admission/index.js';
import { serverAdmissionChain } from './admission-setup.js';
import { ensureFlowControlObjects, followFlowControlConfig, planFlowControl } from './apf-setup.js';
import { ConnectionDrain } from './connection-drain.js';
import { StallGuard } from './stall-guard.js';
import { H2_MAX_HEADER_LIST_SIZE, headerListSize, headersTooLarge, limitHttp1Headers, MAX_H2_HEADER_BYTES } from './header-limits.js';
import { changingDiscovery } from './discovery.js';
import { followCustomResourceDefinitions } from './crd/index.js';
import { HealthChecks } from './health.js';
import { sendStatusError, type Req, type Res } from './http.js';
import { StreamReq, StreamRes } from './h2-stream.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { buildOpenAPIV2, buildOpenAPIV3 } from './openapi.js';
import { servedOpenAPIV2, servedOpenAPIV3 } from './openapi-serve.js';
import { routeRequest, SERVER_VERSION } from './routes.js';
import { ServiceAccountIssuerDiscovery } from './handlers/oidc-discovery.js';
import { ensureServingCerts } from './tls.js';
import { applyEncryption, loadEncryption, registerEncryptionHealth } from './encryption-setup.js';
import { setUpEgress } from './egress-setup.js';
import { checkInProcessManager, controllerList, startInProcessControllers } from './controllers-setup.js';
import { checkGatedFlags, FeatureGates } from '../features/index.js';
import type { RunningServer, ServerOptions } from './server-options.js';

export type { RunningServer, ServerOptions };



const ADMIN_USER = 'orch-admin';
const MASTERS = 'system:masters';
/** How long a shutdown waits for requests in progress before cutting their connections. */
const DRAIN_DEADLINE_MS = 5000;

/** Starts the API server: storage, registry, filter chain, HTTPS (HTTP/2 and HTTP/1.1 on one port). */
export async function startServer(given: ServerOptions = {}): Promise<RunningServer> {
  // Another naming's server runs in that naming's module graph (naming-bundle.ts).
  const naming = parseNaming('naming', given.naming ?? 'orch');
  if (naming !== NAMING) return startServerInNaming(naming, given);
  const log = given.log ?? (() => undefined);
  // Gates first: an unknown or locked gate, or a flag a disabled gate forbids, stops the start at once.
  const gates = FeatureGates.resolve(given.featureGates ?? {}, log);
  checkGatedFlags(gates, { authenticationConfig: given.authenticationConfigFile !== undefined, authorizationConfig: given.authorizationConfigFile !== undefined, tracingConfig: given.tracingConfigFile !== undefined });
  // A bad --egress-selector-config-file fails first too; its dialers are handed to the webhook clients.
  const { opts, egress } = setUpEgress(given, log);
  // Loaded only with the flag: a server without tracing imports none of it. A bad file fails here.
  const tracing = opts.tracingConfigFile === undefined ? undefined : (await import('./tracing-setup.js')).setUpTracing(opts.tracingConfigFile, { dialer: egress?.controlplane, log });
  // Checked first: a bad --runtime-config leaves nothing behind (not even a temp dir).
  const served = servingFilter(typeof opts.runtimeConfig === 'string' ? parseRuntimeConfig(opts.runtimeConfig) : (opts.runtimeConfig ?? {}));
  const managerList = controllerList(opts.controllers); // likewise an unknown controller name
  checkInProcessManager(opts.controllerManager);
  const network = serviceNetwork({ clusterIPRange: opts.serviceClusterIPRange, nodePortRange: opts.serviceNodePortRange });
  const tempDir = opts.dataDir ? undefined : mkdtempSync(join(tmpdir(), 'orch-'));
  const dataDir = opts.dataDir ?? (tempDir as string);
  mkdirSync(dataDir, { recursive: true });
  const bind = opts.bindAddress ?? '127.0.0.1';

  // Configuration errors (a bad --token-auth-file, an unknown mode or gate) fail before anything is opened.
  const adminToken = ensureAdminToken(dataDir);
  if (opts.tokenAuthFile) parseTokenFile(readFileSync(opts.tokenAuthFile, 'utf8'), opts.tokenAuthFile);
  checkJwtAuthentication(opts); // a bad --oidc-* flag or --authentication-config file, before anything is opened
  const metrics = createServerMetrics(opts, log); // likewise a bad --show-hidden-metrics-for-version
  const rbacIndex = new RbacIndex();
  let nodeGraph: NodeGraph | undefined;
  let feedNodes: ((graph: NodeGraph) => void) | undefined;
  const authz = buildAuthorizer(
    opts,
    {
      rbac: () => new RbacAuthorizer(rbacIndex),
      // The node graph is built (and fed from the watch caches) only when a Node authorizer is configured,
      // at start-up or by a later reload of --authorization-config.
      node: () => {
        if (!nodeGraph) {
          nodeGraph = new NodeGraph();
          feedNodes?.(nodeGraph);
        }
        return new NodeAuthorizer(nodeGraph);
      },
      abac: (file) => AbacAuthorizer.fromFile(file),
      webhook: webhookFactory(log, egress?.controlplane),
    },
    log,
  );
  const authorizer = authz.authorizer;
  planAdmission(opts); // unknown plugins or a bad --admission-control-config-file fail before anything is opened
  const auditPlan = planAudit(opts, log); // likewise a bad --audit-policy-file or --audit-log-* value
  const flowControl = planFlowControl(opts); // likewise in-flight limits that leave priority and fairness no seats
  const encryptionSetup = await loadEncryption(opts, log, { kmsV1: gates.enabled('KMSv1') }); // a bad --encryption-provider-config, likewise
  const certs = await serving(opts, dataDir, bind);
  const types = builtinTypes(served, { serviceNetwork: network });
  // With encryption at rest, everything above storage (registry, watch caches) sees plain values.
  const storageBackend = await openBackend(opts.storage ?? { type: 'memory' }, opts.history);
  const encryption = encryptionSetup && applyEncryption(storageBackend, encryptionSetup, types, log);
  const backend = encryption ? encryption.backend : storageBackend;
  const keyLabels = storageKeyLabels(types);
  const timedBackend = new TimedBackend(backend, metrics, keyLabels);
  const registry = new Registry(tracing ? tracing.backend(timedBackend) : timedBackend, types, { log, createOnly: createOnlyTypes(served), consistentListFromCache: gates.enabled('ConsistentListFromCache'), ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.history?.windowMs ? { cacheWindowMs: opts.history.windowMs } : {}) });
  let auth: ReturnType<typeof buildAuthenticator>;
  let saDiscovery: ServiceAccountIssuerDiscovery | undefined;
  try {
    auth = buildAuthenticator(opts, registry, { token: adminToken, user: { username: ADMIN_USER, uid: 'orch-admin', groups: [MASTERS] } }, serviceAccountSigningKey(opts, join(dataDir)));
    const jwksUri = opts.serviceAccountJwksUri !== undefined ? { jwksUri: opts.serviceAccountJwksUri } : {};
    saDiscovery = ServiceAccountIssuerDiscovery.create({ ...auth.serviceAccountDiscovery, ...jwksUri }, log);
  } catch (e) {
    await backend.close();
    throw e;
  }
  let admission: ReturnType<typeof serverAdmissionChain>;
  try {
    admission = serverAdmissionChain(opts, registry, { authorizer, rbac: authz.rbacEnabled ? rbacIndex : undefined }, log, egress, (name, mutating, op, rejected, s) => metrics.webhook(name, mutating ? 'admit' : 'validating', op, rejected, s));
  } catch (e) {
    await backend.close();
    throw e;
  }
  const health = new HealthChecks({ livezGracePeriodMs: opts.livezGracePeriodMs ?? 0 });
  // The store answering is readiness, not liveness: restarting this process cannot bring etcd back, so
  // livez leaves it out and an orchestrator does not restart servers during a store outage.
  health.add('etcd', async () => void (backend.healthCheck ? await backend.healthCheck() : await backend.currentRevision()), ['readyz', 'healthz']);
  let bootstrapped = false;
  if (encryption && encryptionSetup) registerEncryptionHealth(health, encryptionSetup, encryption.backend);
  health.add('poststarthook/bootstrap-namespaces', () => {
    if (!bootstrapped) throw new Error('not finished');
  }, ['livez', 'readyz', 'healthz']);

  const shutdownAc = new AbortController();
  setMaxListeners(0, shutdownAc.signal); // every open watch listens for shutdown
  const discovery = changingDiscovery(() => [...registry.types, ...registry.createOnly], (f) => registry.onTypesChange(f), { storageVersionHash: gates.enabled('StorageVersionHash') });
  // Built on first use, and again on the first use after the served types changed (custom resources).
  const lazy = <T>(f: () => T) => {
    let v: T | undefined;
    registry.onTypesChange(() => (v = undefined));
    return () => (v ??= f());
  };
  const openapiV2 = lazy(() => servedOpenAPIV2(buildOpenAPIV2(registry.types, { version: SERVER_VERSION.gitVersion })));
  const openapiV3 = lazy(() => servedOpenAPIV3(buildOpenAPIV3(registry.types, { version: SERVER_VERSION.gitVersion })));

  const auditEvents = metrics.auditEvents.with();
  const audit = auditPlan ? openAudit(auditPlan, (n) => auditEvents.inc(n)) : undefined;
  followStorageKeyLabels(registry, keyLabels);
  connectMetricSources(metrics, { registry, ...(audit ? { auditSinks: audit.backends } : {}), ...(auth.jwt ? { jwt: auth.jwt } : {}) });
  const chain = buildChain({
    authenticator: auth.authenticator,
    authorizer,
    handler: routeRequest({
      registry,
      discovery,
      health,
      openapiV2,
      openapiV3,
      serverAddress: `${bind}:${opts.port ?? 6443}`,
      shutdown: shutdownAc.signal,
      features: gates,
      auth: {
        authenticator: auth.authenticator,
        authorizer,
        rbac: authz.rbacEnabled ? rbacIndex : undefined,
        issuer: auth.issuer,
        apiAudiences: auth.audiences,
      },
      watch: {
        bookmarkIntervalMs: opts.watchBookmarkIntervalMs ?? 60_000,
        minTimeoutSeconds: opts.minRequestTimeoutSeconds ?? 1800,
        maxQueue: opts.watchMaxQueue ?? 10_000,
        maxQueueBytes: opts.watchMaxQueueBytes ?? 64 * 1024 * 1024,
      },
      admission,
      ...(saDiscovery ? { serviceAccountDiscovery: saDiscovery } : {}),
      metrics: { metrics, peers: opts.metricsPeers },
    }),
    maxInFlight: { readOnly: opts.maxRequestsInflight ?? 400, mutating: opts.maxMutatingRequestsInflight ?? 200 },
    ...(flowControl ? { flowControl } : {}),
    ...(audit ? { audit: audit.stage } : {}),
    metrics: new RequestMetrics(metrics),
    ...(opts.requestObserver ? { observer: opts.requestObserver } : {}),
    onInternalError: (e, r) => log(`internal error on ${r.method} ${r.path}: ${e instanceof Error ? e.stack : String(e)}`),
  });
  const handle = tracing ? tracing.wrap(chain) : chain;
  const server: Http2SecureServer = createSecureServer({
    cert: certs.certPem,
    key: certs.keyPem,
    allowHTTP1: true,
    // Ask for (but do not require) a client certificate; the authenticators verify it (spec 5.2).
    requestCert: Boolean(opts.clientCAFile || opts.requestHeader),
    rejectUnauthorized: false,
    settings: { maxHeaderListSize: H2_MAX_HEADER_LIST_SIZE },
  });
  limitHttp1Headers(server);
  const stallGuard = new StallGuard(opts.writeStallTimeoutMs ?? 60_000);
  const connections = new ConnectionDrain(server);
  const serve = (req: Req, res: Res, http1Socket?: Socket) => {
    if (!connections.admit(res, http1Socket)) return;
    stallGuard.add(res);
    res.once('close', () => stallGuard.remove(res));
    void handle(req, res);
  };
  // HTTP/1.1 requests arrive as node's request/response objects. Adding a 'request' listener also makes
  // node serve HTTP/2 streams through its compatibility layer; that listener is replaced by the raw stream
  // adapter, which costs less per request (h2-stream.ts).
  server.on('request', (req, res) => serve(req as unknown as Req, res as unknown as Res, req.socket as Socket));
  server.removeAllListeners('stream');
  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
    stream.on('error', () => undefined); // a client reset; the 'close' below still runs
    if (headerListSize(rawHeaders) > MAX_H2_HEADER_BYTES) return sendStatusError(new StreamRes(stream), headersTooLarge(MAX_H2_HEADER_BYTES), headers.accept);
    serve(new StreamReq(stream, headers, rawHeaders), new StreamRes(stream, headers[':method'] === 'HEAD'));
  });
  server.on('sessionError', () => undefined);

  const stops: (() => void)[] = [];
  if (opts.metricsPeers) stops.push(opts.metricsPeers.answer(() => metrics.registry.snapshot()));
  const controllers = opts.controllers !== false;
  try {
    if (controllers) await bootstrapNamespaces(registry);
    await registry.startCaches();
    const fed = await feedRbacIndex(registry, rbacIndex, log);
    stops.push(fed.stop);
    if (nodeGraph) stops.push((await feedNodeGraph(registry, nodeGraph, log)).stop);
    feedNodes = (graph) =>
      void feedNodeGraph(registry, graph, log).then(
        (f) => stops.push(f.stop),
        (e: unknown) => log(`node authorizer: cannot follow pods: ${(e as Error).message}`),
      );
    stops.push(authz.start()); // follows --authorization-config; closes webhook connections at the end
    stops.push(await followCustomResourceDefinitions(registry, { controllers, fieldSelectors: gates.enabled('CustomResourceFieldSelectors'), ...(egress ? { egress } : {}), log }));
    if (flowControl) stops.push(await followFlowControlConfig(registry, flowControl, { controllers, log }));
    if (controllers) {
      await reconcileDefaultRbac(registry, log);
      await ensureBootstrapObjects(registry, log);
      await ensureFlowControlObjects(registry, log);
      stops.push(startPolicyStatusController(registry, log));
    }
    bootstrapped = true;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 6443, bind, () => resolve());
    });
  } catch (e) {
    stops.forEach((x) => x());
    registry.stopCaches();
    await backend.close();
    await audit?.shutdown();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw e;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? 6443);
  const host = bind.includes(':') ? `[${bind}]` : bind === '0.0.0.0' ? '127.0.0.1' : bind;
  const url = `https://${host}:${port}`;
  saDiscovery?.setExternalAddress(`${host}:${port}`);
  if (controllers) {
    // The `kubernetes` Service points at the port actually bound (port 0 picks one at listen).
    await ensureApiService(registry, network, port, log);
    stops.push(await startServiceRangeRepair(registry, network, log));
  }
  // Started once the server answers: the manager is a client of it like any other.
  const caKeyPem = 'caKeyPem' in certs ? certs.caKeyPem : undefined;
  const stopManager = managerList && startInProcessControllers(managerList, { url, caCertPem: certs.caCertPem, ...(caKeyPem ? { caKeyPem } : {}), adminToken, handler: handle }, opts.controllerManager ?? {}, log);

  let kubeconfigPath: string | undefined;
  if (opts.writeKubeconfig) {
    kubeconfigPath = join(dataDir, 'admin.kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfigYaml({ server: url, caCertPem: certs.caCertPem, user: ADMIN_USER, token: adminToken }), { mode: 0o600 });
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await stopManager?.(); // first: its controllers' requests and the lease release need the server
      stops.forEach((x) => x());
      await new Promise<void>((resolve) => {
        server.close(() => resolve()); // stops accepting; resolves once every connection has closed
        void connections.drain();
        shutdownAc.abort(); // ends open watches (after drain() marked their connections as closing)
        // Requests still stuck after the drain period (a client that never sends its body) are cut off.
        setTimeout(() => connections.destroyAll(), DRAIN_DEADLINE_MS).unref();
      });
      // The caches serve the requests being drained, so they stop only now.
      registry.stopCaches();
      auth.close(); // likewise the webhook connections of the authenticators
      await audit?.shutdown(); // the last requests' events are written
      await tracing?.shutdown(); // likewise their spans
      stallGuard.close();
      encryption?.stop();
      await backend.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    })());

  return {
    url,
    port,
    caCertPem: certs.caCertPem,
    adminToken,
    dataDir,
    ...(kubeconfigPath ? { kubeconfigPath } : {}),
    backend,
    storageBackend,
    naming: NAMING,
    direct: handle,
    cachesReached: async (keys, revision, timeoutMs = 5000) => {
      const dirs = new Set(keys.map((k) => k.slice(0, k.lastIndexOf('/') + 1)));
      const owners = registry.storageOwners().filter((s) => {
        const prefix = collectionPrefix(s.type.storageKey);
        for (const d of dirs) if (d.startsWith(prefix)) return true;
        return false;
      });
      const reached = await Promise.all(owners.map((s) => registry.reader(s.type).cacher.waitFor(revision, timeoutMs)));
      return reached.every(Boolean);
    },
    close,
    shutdown: async () => {
      health.setShuttingDown();
      await new Promise((r) => setTimeout(r, opts.shutdownDelayMs ?? 0));
      await close();
    },
  };
}

async function serving(opts: ServerOptions, dataDir: string, bind: string) {
  if (opts.tlsCertFile || opts.tlsPrivateKeyFile) {
    if (!opts.tlsCertFile || !opts.tlsPrivateKeyFile) throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    const certPem = readFileSync(opts.tlsCertFile, 'utf8');
    return { certPem, keyPem: readFileSync(opts.tlsPrivateKeyFile, 'utf8'), caCertPem: certPem };
  }
  const hosts = bind === '0.0.0.0' || bind === '::' ? [] : [bind];
  return ensureServingCerts(join(dataDir, 'pki'), { hosts });
}

/** The admin credential: a random token in `<dataDir>/tokens.csv` (group system:masters), reused later. */
function ensureAdminToken(dataDir: string): string {
  const file = join(dataDir, 'tokens.csv');
  if (existsSync(file)) {
    const users = parseTokenFile(readFileSync(file, 'utf8'), file);
    for (const [token, u] of users) if (u.username === ADMIN_USER) return token;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token},${ADMIN_USER},orch-admin,${MASTERS}\n`, { mode: 0o600 });
  return token;
}

/** The default namespaces exist from the first start (spec 3.1 needs a namespace to create anything in). */
async function bootstrapNamespaces(registry: Registry): Promise<void> {
  for (const name of [DEFAULT_NAMESPACE, SYSTEM_NAMESPACE, PUBLIC_NAMESPACE, NODE_LEASE_NAMESPACE]) {
    try {
      await registry.namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }
}

