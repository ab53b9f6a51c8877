/**
 * Where code below the server (webhook clients, admission) asks for a child span of the request being
 * served. Nothing is installed unless the server was started with `--tracing-config-file` (src/tracing/
 * installs it), so without tracing each call site pays one undefined check and nothing more.
 */

export type SpanAttribute = string | number | boolean;

/** A child span of the request being served; ended once. */
export interface ChildSpan {
  /** The W3C `traceparent` header value naming this span (for an outgoing request). */
  readonly traceparent: string;
  setAttribute(key: string, value: SpanAttribute): void;
  /** Marks the span as failed with this description. */
  fail(message: string): void;
  end(): void;
  /** Runs `fn` with this span as the current one, so the spans it starts are its children. */
  run<T>(fn: () => T): T;
}

export interface TraceHook {
  /** A child of the current span, or undefined when the current request is not traced. */
  child(name: string, kind: 'client' | 'internal', attributes: Record<string, SpanAttribute>): ChildSpan | undefined;
}

let installed: TraceHook | undefined;

/** Installed once per process by the first server that traces; other servers' requests have no current span. */
export function installTraceHook(hook: TraceHook): void {
  installed ??= hook;
}

export function childSpan(name: string, kind: 'client' | 'internal', attributes: Record<string, SpanAttribute>): ChildSpan | undefined {
  return installed?.child(name, kind, attributes);
}

/** A client span for an outgoing HTTP call, named as OpenTelemetry's HTTP client instrumentation names it. */
export function httpClientSpan(method: string, url: URL | string): ChildSpan | undefined {
  if (!installed) return undefined;
  const u = typeof url === 'string' ? new URL(url) : url;
  return installed.child(`HTTP ${method}`, 'client', {
    'http.method': method,
    'http.url': u.href,
    'net.peer.name': u.hostname,
    ...(u.port ? { 'net.peer.port': Number(u.port) } : {}),
  });
}
