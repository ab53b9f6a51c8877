import type { AdmissionChain } from '../admission/index.js';
import { notFoundMessage } from '../errors/index.js';
import type { Registry } from '../registry/index.js';
import type { RequestContext } from './chain.js';
import type { Discovery } from './discovery.js';
import { serveResource, type ResourceAuth } from './handlers/resource.js';
import type { HealthChecks, HealthEndpoint } from './health.js';
import { sendBytes, sendJson, sendText } from './http.js';
import type { OpenAPIV3 } from './openapi.js';
import type { ServiceAccountIssuerDiscovery } from './handlers/oidc-discovery.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.0+orch',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: '',
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch}`,
};

export interface RouteDeps {
  registry: Registry;
  discovery: Discovery;
  health: HealthChecks;
  openapiV2: () => Buffer;
  openapiV3: () => { index: Buffer; documents: Map<string, Buffer> };
  serverAddress: string;
  shutdown: AbortSignal;
  features: { watchList: boolean; compression: boolean };
  auth: ResourceAuth;
  watch: { bookmarkIntervalMs: number; minTimeoutSeconds: number; maxQueue: number; maxQueueBytes: number };
  admission: AdmissionChain;
  /** `/.well-known/openid-configuration` and `/openid/v1/jwks`, when the issuer allows discovery. */
  serviceAccountDiscovery?: ServiceAccountIssuerDiscovery;
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
        shutdown: deps.shutdown,
        features: deps.features,
        watch: deps.watch,
        user: ctx.user,
        auth: deps.auth,
        admission: deps.admission,
        audit: ctx.audit,
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
    if (path === '/version') return sendJson(res, 200, SERVER_VERSION);
    if (path === '/api') return sendJson(res, 200, deps.discovery.api(deps.serverAddress));
    if (path === '/apis') return sendJson(res, 200, deps.discovery.apis());
    if (first === 'api' && rest.length === 1) return sendDoc(res, deps.discovery.resources('', rest[0] as string));
    if (first === 'apis' && rest.length === 1) return sendDoc(res, deps.discovery.group(rest[0] as string));
    if (first === 'apis' && rest.length === 2) return sendDoc(res, deps.discovery.resources(rest[0] as string, rest[1] as string));
    if (path === '/openapi/v2') return sendBytes(res, 200, 'application/json', deps.openapiV2());
    if (path === '/openapi/v3') return sendBytes(res, 200, 'application/json', deps.openapiV3().index);
    if (first === 'openapi' && rest[0] === 'v3') {
      const doc = deps.openapiV3().documents.get(rest.slice(1).join('/'));
      if (doc) return sendBytes(res, 200, 'application/json', doc, { 'Cache-Control': 'public, immutable' });
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
