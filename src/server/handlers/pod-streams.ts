/**
 * The pod subresources the reference forwards to the node agent (log, exec, attach, portforward) or to the
 * pod (proxy). This server has no connection to node agents or pods, so after the reference's own checks
 * (pod, container, host, node) each ends in a clear Status instead of a stream.
 */
import { isIP } from 'node:net';
import type { ApiObject } from '../../api/types.js';
import { badRequest, fieldError, invalid, methodNotAllowed, StatusError, type FieldError } from '../../errors/index.js';
import type { Registry } from '../../registry/index.js';
import { header, sendBytes } from '../http.js';
import { podsStore, rec, text } from './pod-common.js';
import type { ResourceContext } from './resource.js';

const containerNames = (pod: ApiObject): string[] => {
  const spec = rec(pod.spec);
  return [spec.initContainers, spec.containers, spec.ephemeralContainers].flatMap((l) => (Array.isArray(l) ? l.map((c) => text(rec(c).name)) : []));
};

/** The container a request means: the one asked for (it must exist), or the pod's only container. */
export function resolveContainer(pod: ApiObject, asked: string): string {
  const name = text(pod.metadata?.name);
  if (asked !== '') {
    if (!containerNames(pod).includes(asked)) throw badRequest(`container ${asked} is not valid for pod ${name}`);
    return asked;
  }
  const main = Array.isArray(rec(pod.spec).containers) ? (rec(pod.spec).containers as unknown[]) : [];
  if (main.length === 1) return text(rec(main[0]).name);
  if (main.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
}

const INT_OPTIONS = ['sinceSeconds', 'tailLines', 'limitBytes'] as const;

/** PodLogOptions from the query: integers must parse (400), then the reference's rules (422). */
export function logOptionErrors(q: URLSearchParams): FieldError[] {
  const ints: Partial<Record<(typeof INT_OPTIONS)[number], number>> = {};
  for (const key of INT_OPTIONS) {
    const raw = q.get(key);
    if (raw === null) continue;
    if (!/^-?\d+$/.test(raw)) throw badRequest(`${key}: Invalid value: ${JSON.stringify(raw)}: must be an integer`);
    ints[key] = Number(raw);
  }
  const errs: FieldError[] = [];
  if (ints.tailLines !== undefined && ints.tailLines < 0) errs.push(fieldError.invalid('tailLines', ints.tailLines, 'must be greater than or equal to 0'));
  if (ints.limitBytes !== undefined && ints.limitBytes < 1) errs.push(fieldError.invalid('limitBytes', ints.limitBytes, 'must be greater than 0'));
  const sinceTime = q.get('sinceTime');
  if (sinceTime !== null && Number.isNaN(Date.parse(sinceTime))) throw badRequest(`sinceTime: Invalid value: ${JSON.stringify(sinceTime)}: must be an RFC3339 time`);
  if (ints.sinceSeconds !== undefined && sinceTime !== null) errs.push(fieldError.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (ints.sinceSeconds !== undefined && ints.sinceSeconds < 1) errs.push(fieldError.invalid('sinceSeconds', ints.sinceSeconds, 'must be greater than 0'));
  return errs;
}

/** The pod's node must exist; then the answer is that this server cannot reach its node agent. */
async function nodeAgentUnreachable(registry: Registry, node: string, what: string): Promise<StatusError> {
  const nodes = registry.store('', 'v1', 'nodes');
  if (nodes) await nodes.get(undefined, node);
  return new StatusError(500, 'InternalError', `${what} is unavailable: this server does not connect to node agents, so node ${JSON.stringify(node)} cannot be reached`);
}

const isUpgrade = (ctx: ResourceContext) => /upgrade/i.test(header(ctx.req, 'connection') ?? '') && Boolean(header(ctx.req, 'upgrade'));

/** GET pods/<name>/log. An unscheduled pod has no log source yet: 204 with no body, as the reference. */
export async function serveLog(ctx: ResourceContext): Promise<void> {
  const { namespace, name } = ctx.info;
  if (ctx.req.method !== 'GET' && ctx.req.method !== 'HEAD') throw methodNotAllowed(ctx.req.method ?? '', 'pods/log');
  const errs = logOptionErrors(ctx.query);
  if (errs.length > 0) throw invalid({ kind: 'PodLogOptions', name }, errs);
  const pod = await podsStore(ctx.registry).get(namespace, name);
  const container = resolveContainer(pod, ctx.query.get('container') ?? '');
  const node = text(rec(pod.spec).nodeName);
  if (node === '') return sendBytes(ctx.res, 204, 'text/plain', Buffer.alloc(0));
  throw await nodeAgentUnreachable(ctx.registry, node, `the log of container ${JSON.stringify(container)} of pod ${JSON.stringify(name)}`);
}

/** exec, attach and portforward: connections through the node agent, upgraded to a stream. */
export async function serveNodeStream(ctx: ResourceContext, kind: 'exec' | 'attach' | 'portforward'): Promise<void> {
  const { namespace, name } = ctx.info;
  if (ctx.req.method !== 'GET' && ctx.req.method !== 'POST') throw methodNotAllowed(ctx.req.method ?? '', `pods/${kind}`);
  const pod = await podsStore(ctx.registry).get(namespace, name);
  const container = kind === 'portforward' ? '' : resolveContainer(pod, ctx.query.get('container') ?? '');
  const node = text(rec(pod.spec).nodeName);
  if (node === '') throw badRequest(`pod ${name} does not have a host assigned`);
  const what = kind === 'portforward' ? `port forwarding to pod ${JSON.stringify(name)}` : `${kind} in container ${JSON.stringify(container)} of pod ${JSON.stringify(name)}`;
  const answer = await nodeAgentUnreachable(ctx.registry, node, what);
  if (!isUpgrade(ctx)) throw badRequest('Upgrade request required');
  throw answer;
}

/** `name`, `name:port` or `scheme:name:port`, as the proxy subresource's name segment allows. */
export function splitProxyName(id: string): { name: string; port: string } | undefined {
  const parts = id.split(':');
  if (parts.length === 1) return { name: id, port: '' };
  if (parts.length === 2) return { name: parts[0] as string, port: parts[1] as string };
  if (parts.length === 3 && (parts[0] === 'http' || parts[0] === 'https' || parts[0] === '')) return { name: parts[1] as string, port: parts[2] as string };
  return undefined;
}

/** The pod's primary IP, when it is one a proxy may dial (a global unicast address). */
function proxyableIP(pod: ApiObject): string | undefined {
  const ips = rec(pod.status).podIPs;
  const ip = Array.isArray(ips) && ips.length > 0 ? text(rec(ips[0]).ip) : '';
  if (isIP(ip) === 0) return undefined;
  if (/^(0\.|127\.|169\.254\.|22[4-9]\.|2[3-5]\d\.)/.test(ip) || ip === '::' || ip === '::1' || /^f[ef]/i.test(ip)) return undefined;
  return ip;
}

/** pods/<name>/proxy[/path]: checks the target as the reference does, then says this server does not proxy. */
export async function serveProxy(ctx: ResourceContext): Promise<void> {
  const target = splitProxyName(ctx.info.name);
  if (!target || target.name === '') throw badRequest(`invalid pod request ${JSON.stringify(ctx.info.name)}`);
  const pod = await podsStore(ctx.registry).get(ctx.info.namespace, target.name);
  if (!proxyableIP(pod)) throw badRequest('address not allowed');
  throw new StatusError(503, 'ServiceUnavailable', `unable to reach pod ${JSON.stringify(target.name)}: this server does not proxy requests to pods`);
}
