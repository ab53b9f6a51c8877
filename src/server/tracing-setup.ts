/**
 * `--tracing-config-file`: loaded only when the flag is given (server.ts imports this module lazily), so a
 * server without tracing loads none of it. With it: the request span around the whole filter chain, as
 * the reference places its tracing filter (before authentication, so a client's sampled `traceparent`
 * is honoured whoever sends it, as in release 1.31), storage child spans, webhook client spans, and the
 * OTLP/gRPC exporter.
 */
import { hostname } from 'node:os';
import { loadTracingConfiguration, OtlpExporter, TracedBackend, Tracer, traceHook, type Span } from '../tracing/index.js';
import { installTraceHook } from '../util/trace-hook.js';
import type { Dialer } from '../util/dialer.js';
import type { Backend } from '../storage/index.js';
import type { Req, Res } from './http.js';
import { parseRequestInfo, parseRequestUrl, type RequestInfo } from './request-info.js';

export interface TracingOptions {
  /** `--tracing-config-file`: a TracingConfiguration document (spec 2.12). */
  tracingConfigFile?: string;
}

/** The service name the reference's API server reports its spans under. */
const SERVICE_NAME = 'apiserver';
const SCOPE = 'apiserver';

export interface Tracing {
  /** The chain with a request span around it for sampled requests. */
  wrap(chain: (req: Req, res: Res) => Promise<void>): (req: Req, res: Res) => Promise<void>;
  backend(inner: Backend): Backend;
  /** Exports the spans still queued, then closes the collector connection. */
  shutdown(): Promise<void>;
}

/** Reads and checks the file (a start-up error names the flag, the file and the field) and builds the exporter. */
export function setUpTracing(file: string, deps: { dialer?: Dialer | undefined; log(msg: string): void; serverId?: string }): Tracing {
  const config = loadTracingConfiguration(file);
  const exporter = new OtlpExporter({
    endpoint: config.endpoint,
    resource: { 'service.name': SERVICE_NAME, 'host.name': hostname(), ...(deps.serverId ? { 'service.instance.id': deps.serverId } : {}) },
    scope: SCOPE,
    ...(deps.dialer ? { dialer: deps.dialer } : {}),
    log: deps.log,
  });
  const tracer = new Tracer(config.samplingRatePerMillion, exporter);
  installTraceHook(traceHook);
  return {
    wrap: (chain) => (req, res) => {
      const parent = req.headers.traceparent;
      const span = tracer.startServerSpan('', typeof parent === 'string' ? parent : undefined, headerText(req.headers.tracestate));
      if (!span) return chain(req, res);
      const done = tracer.run(span, () => chain(req, res));
      return done.finally(() => finishRequestSpan(span, req, res));
    },
    backend: (inner) => new TracedBackend(inner),
    shutdown: () => exporter.shutdown(),
  };
}

/**
 * The reference's request span: named by method and route template for resource requests, by method
 * alone otherwise, with OpenTelemetry's HTTP server attributes and `http.target`; 5xx marks it failed.
 */
function finishRequestSpan(span: Span, req: Req, res: Res): void {
  const method = req.method ?? 'GET';
  const target = req.url ?? '/';
  let info: RequestInfo | undefined;
  try {
    const url = parseRequestUrl(target);
    info = parseRequestInfo(method, url.pathname, url.searchParams);
  } catch {
    info = undefined; // a malformed target: the chain answered it; the span keeps the plain name
  }
  span.name = requestSpanName(method, info);
  const socket = req.socket as { remoteAddress?: string; remotePort?: number; localPort?: number; alpnProtocol?: unknown } | undefined;
  const host = headerText(req.headers[':authority']) ?? headerText(req.headers.host) ?? '';
  const a = span.attributes;
  a['http.method'] = method;
  a['http.scheme'] = 'https';
  if (host) a['net.host.name'] = host.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  if (socket?.localPort !== undefined) a['net.host.port'] = socket.localPort;
  if (socket?.remoteAddress) a['net.sock.peer.addr'] = socket.remoteAddress;
  if (socket?.remotePort !== undefined) a['net.sock.peer.port'] = socket.remotePort;
  const agent = headerText(req.headers['user-agent']);
  if (agent) a['user_agent.original'] = agent;
  const forwarded = headerText(req.headers['x-forwarded-for']);
  if (forwarded) a['http.client_ip'] = forwarded.split(',')[0]!.trim();
  a['net.protocol.name'] = 'http';
  a['net.protocol.version'] = socket?.alpnProtocol === 'h2' || req.headers[':method'] !== undefined ? '2' : '1.1';
  a['http.target'] = target;
  a['http.status_code'] = res.statusCode;
  if (res.statusCode >= 500) span.fail('');
  span.end();
}

/** `GET /api/v1/namespaces/{:namespace}/pods/{:name}` for resource requests, the method alone otherwise. */
export function requestSpanName(method: string, info: RequestInfo | undefined): string {
  if (!info?.isResourceRequest) return method;
  let route = `/${info.apiPrefix}`;
  if (info.apiGroup) route += `/${info.apiGroup}`;
  route += `/${info.apiVersion}`;
  if (info.namespace) route += '/namespaces/{:namespace}';
  route += `/${info.resource}`;
  if (info.name) route += '/{:name}';
  if (info.subresource) route += `/${info.subresource}`;
  return `${method} ${route}`;
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}
