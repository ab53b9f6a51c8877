import type { AdmissionChain } from '../admission/index.js';
import { notFoundMessage } from '../errors/index.js';
import type { Registry } from '../registry/index.js';
import type { RequestContext } from './chain.js';
import type { Discovery } from './discovery.js';
import { serveResource, type ResourceAuth } from './handlers/resource.js';
import type { HealthChecks, HealthEndpoint } from './health.js';
import { sendJson, sendText } from './http.js';
import type { OpenAPIV3 } from './openapi.js';
import { serveOpenAPIV2, serveOpenAPIV3Document, serveOpenAPIV3Index, type ServedOpenAPIV2, type ServedOpenAPIV3 } from './openapi-serve.js';
import type { ServiceAccountIssuerDiscovery } from './handlers/oidc-discovery.js';
import type { FeatureGates } from '../features/index.js';
import { serverVersion } from './version.js';
import type { ApiserverMetrics } from '../metrics/index.js';
import { serveMetrics, type MetricsPeers } from './metrics-setup.js';

/** `/version`: this build's facts, read once when the server code loads (version.ts). */
export const SERVER_VERSION = serverVersion();

export interface RouteDeps {
  registry: Registry;
  discovery: Discovery;
  health: HealthChecks;
  openapiV2: () => ServedOpenAPIV2;
  openapiV3: () => ServedOpenAPIV3;
  serverAddress: string;
  shutdown: AbortSignal;
  features: FeatureGates;
  auth: ResourceAuth;
  watch: { bookmarkIntervalMs: number; minTimeoutSeconds: number; maxQueue: number; maxQueueBytes: number };
  admission: AdmissionChain;
  /** `/.well-known/openid-configuration` and `/openid/v1/jwks`, when the issuer allows discovery. */
  serviceAccountDiscovery?: ServiceAccountIssuerDiscovery;
  /** `/metrics` (spec 3.4), with the other worker processes when there are several. */
  metrics?: { metrics: ApiserverMetrics; peers?: MetricsPeers | undefined };
}

/** Routes an authorized request: resources by request info, everything else by path. */
export function routeRequest(deps: RouteDeps): (ctx: RequestContext) => Promise<void> {
  return async (ctx) => {
    const { info, res, url } = ctx;
    if (info.isResourceRequest) {
      return serveResource({
        req: ctx.req,
        res,
        info,
        query: url.searchParams,
        registry: deps.registry,
        // An observer's signal (tests) ends this one watch; the server's shutdown still ends it too.
        shutdown: ctx.signal ? AbortSignal.any([deps.shutdown, ctx.signal]) : deps.shutdown,
        features: deps.features,
        watch: deps.watch,
        user: ctx.user,
        auth: deps.auth,
        admission: deps.admission,
        audit: ctx.audit,
        metrics: deps.metrics?.metrics,
      });
    }
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const parts = path.split('/').filter(Boolean);
    const [first, ...rest] = parts;
    if (first === 'livez' || first === 'readyz' || first === 'healthz') {
      if (rest.length > 1) throw notFoundMessage('the server could not find the requested resource');
      const r = await deps.health.handle(first as HealthEndpoint, rest[0] ?? '', url.searchParams);
      return sendText(res, r.code, r.body);
    }
    if (path === '/metrics' && deps.metrics) return serveMetrics(res, deps.metrics.metrics, deps.metrics.peers);
    if (path === '/version') return sendJson(res, 200, SERVER_VERSION);
    if (path === '/api') return sendJson(res, 200, deps.discovery.api(deps.serverAddress));
    if (path === '/apis') return sendJson(res, 200, deps.discovery.apis());
    if (first === 'api' && rest.length === 1) return sendDoc(res, deps.discovery.resources('', rest[0] as string));
    if (first === 'apis' && rest.length === 1) return sendDoc(res, deps.discovery.group(rest[0] as string));
    if (first === 'apis' && rest.length === 2) return sendDoc(res, deps.discovery.resources(rest[0] as string, rest[1] as string));
    if (path === '/openapi/v2') return serveOpenAPIV2(ctx.req, res, deps.openapiV2());
    if (path === '/openapi/v3') return serveOpenAPIV3Index(ctx.req, res, deps.openapiV3().index);
    if (first === 'openapi' && rest[0] === 'v3') {
      const key = rest.slice(1).join('/');
      const doc = deps.openapiV3().documents.get(key);
      if (doc) return serveOpenAPIV3Document(ctx.req, res, url, key, doc);
    }
    if (deps.serviceAccountDiscovery?.serve(path, ctx.req.method ?? 'GET', res)) return;
    throw notFoundMessage('the server could not find the requested resource');
  };
}

function sendDoc(res: RequestContext['res'], doc: unknown): void {
  if (doc === undefined) throw notFoundMessage('the server could not find the requested resource');
  sendJson(res, 200, doc);
}

export type { OpenAPIV3 };
