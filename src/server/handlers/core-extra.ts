/**
 * Routes the core/v1 operations that are not plain stored objects: component statuses, bindings and the
 * pod subresources served by their own handlers. The ephemeralcontainers subresource goes through the
 * generic store, with a Pod view whose writes change only the ephemeral containers.
 */
import type { GenericStore, Registry } from '../../registry/index.js';
import { podEphemeralContainersView } from '../../registry/resources/core-extra/index.js';
import { methodNotAllowed, notFoundMessage } from '../../errors/index.js';
import type { RequestInfo } from '../request-info.js';
import { serveComponentStatuses } from './component-status.js';
import { serveBinding } from './pod-binding.js';
import { podViewStore } from './pod-common.js';
import { serveEviction } from './pod-eviction.js';
import { serveLog, serveNodeStream, serveProxy } from './pod-streams.js';
import { respond, type ResourceContext } from './resource.js';

type Handler = (ctx: ResourceContext) => Promise<void>;

/** A create-only operation: any other method is 405. */
const createOnly = (what: string, serve: Handler): Handler => async (ctx) => {
  if (ctx.req.method !== 'POST') throw methodNotAllowed(ctx.req.method ?? '', what);
  return serve(ctx);
};

const answer = (ctx: ResourceContext) => (code: number, obj: unknown) => respond(ctx, code, obj);

const POD_SUBRESOURCES: Record<string, Handler> = {
  binding: createOnly('pods/binding', (ctx) => serveBinding(ctx, answer(ctx), ctx.info.name)),
  eviction: createOnly('pods/eviction', (ctx) => serveEviction(ctx, answer(ctx))),
  log: serveLog,
  exec: (ctx) => serveNodeStream(ctx, 'exec'),
  attach: (ctx) => serveNodeStream(ctx, 'attach'),
  portforward: (ctx) => serveNodeStream(ctx, 'portforward'),
  proxy: serveProxy,
};

/** Pod subresources whose answer is a stream (text or an upgraded connection), not an object. */
const STREAMING = new Set(['log', 'exec', 'attach', 'portforward', 'proxy']);

export const isStreamingSubresource = (info: RequestInfo): boolean => info.apiGroup === '' && info.resource === 'pods' && STREAMING.has(info.subresource);

/** The ephemeralcontainers subresource reads and writes the pod; nothing else. */
const EPHEMERAL_VERBS = new Set(['get', 'update', 'patch']);

/** The handler for a request this module serves, or undefined for the generic path. */
export function coreExtraHandler(info: RequestInfo): Handler | undefined {
  if (info.apiGroup !== '' || info.apiVersion !== 'v1') return undefined;
  if (info.resource === 'componentstatuses') return (ctx) => serveComponentStatuses(ctx, answer(ctx));
  if (info.resource === 'bindings') {
    return createOnly('bindings', async (ctx) => {
      if (!ctx.info.namespace || ctx.info.name) throw notFoundMessage('the server could not find the requested resource');
      return serveBinding(ctx, answer(ctx));
    });
  }
  if (info.resource !== 'pods' || !info.name || !info.namespace) return undefined;
  if (info.subresource === 'ephemeralcontainers' && !EPHEMERAL_VERBS.has(info.verb)) {
    return async (ctx) => {
      throw methodNotAllowed(ctx.req.method ?? '', 'pods/ephemeralcontainers');
    };
  }
  return Object.hasOwn(POD_SUBRESOURCES, info.subresource) ? POD_SUBRESOURCES[info.subresource] : undefined;
}

/** The store serving pods/ephemeralcontainers, or undefined for any other request. */
export function ephemeralContainersStore(registry: Registry, info: RequestInfo): GenericStore | undefined {
  if (info.apiGroup !== '' || info.apiVersion !== 'v1' || info.resource !== 'pods' || info.subresource !== 'ephemeralcontainers') return undefined;
  if (!registry.store('', 'v1', 'pods')) return undefined;
  return podViewStore(registry, podEphemeralContainersView);
}
