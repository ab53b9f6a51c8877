/**
 * Spans, the sampler and W3C trace context. A request span is started only when it is sampled: the
 * reference's ParentBased(TraceIDRatioBased) rule (a client's sampled `traceparent` is traced, an
 * unsampled one is not, a request without one is traced at the configured rate). Unsampled requests get
 * no span object at all. The current span is kept in an AsyncLocalStorage entered only for sampled
 * requests, so storage and webhook calls deep below the handler find their parent.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';
import type { ChildSpan, SpanAttribute, TraceHook } from '../util/trace-hook.js';

export type SpanKind = 'internal' | 'server' | 'client';

export interface SpanContext {
  /** 32 lower-case hex digits. */
  traceId: string;
  /** 16 lower-case hex digits. */
  spanId: string;
  traceState?: string;
}

/** Receives every ended span (the batching exporter). */
export interface SpanSink {
  add(span: Span): void;
}

export class Span implements ChildSpan {
  readonly attributes: Record<string, SpanAttribute> = {};
  /** Epoch milliseconds (fractional). */
  readonly startMs: number;
  endMs = 0;
  error: string | undefined;

  constructor(
    readonly tracer: Tracer,
    public name: string,
    readonly kind: SpanKind,
    readonly context: SpanContext,
    readonly parentSpanId: string | undefined,
    /** Set when the parent came from a client's `traceparent`. */
    readonly remoteParent: boolean,
  ) {
    this.startMs = nowMs();
  }

  get traceparent(): string {
    return `00-${this.context.traceId}-${this.context.spanId}-01`;
  }

  setAttribute(key: string, value: SpanAttribute): void {
    this.attributes[key] = value;
  }

  fail(message: string): void {
    this.error = message;
  }

  end(): void {
    if (this.endMs !== 0) return;
    this.endMs = nowMs();
    this.tracer.sink.add(this);
  }

  child(name: string, kind: SpanKind, attributes: Record<string, SpanAttribute> = {}): Span {
    const s = new Span(this.tracer, name, kind, { traceId: this.context.traceId, spanId: newSpanId(), ...(this.context.traceState ? { traceState: this.context.traceState } : {}) }, this.context.spanId, false);
    Object.assign(s.attributes, attributes);
    return s;
  }

  run<T>(fn: () => T): T {
    return current.run(this, fn);
  }
}

/** The span of the work in progress, for sampled requests only. */
const current = new AsyncLocalStorage<Span>();

export const traceHook: TraceHook = {
  child(name, kind, attributes) {
    return current.getStore()?.child(name, kind, attributes);
  },
};

export function currentSpan(): Span | undefined {
  return current.getStore();
}

export class Tracer {
  /** Sampled when the trace id's low 63 bits fall below this (the reference's ratio rule). */
  private readonly bound: number;

  constructor(
    readonly samplingRatePerMillion: number,
    readonly sink: SpanSink,
  ) {
    this.bound = (samplingRatePerMillion / 1_000_000) * 2 ** 63;
  }

  /** The server span of a request, or undefined when the request is not sampled. */
  startServerSpan(name: string, traceparent: string | undefined, tracestate: string | undefined): Span | undefined {
    const parent = traceparent === undefined ? undefined : parseTraceparent(traceparent);
    if (parent) {
      if (!parent.sampled) return undefined;
      const context: SpanContext = { traceId: parent.traceId, spanId: newSpanId(), ...(tracestate ? { traceState: tracestate } : {}) };
      return new Span(this, name, 'server', context, parent.spanId, true);
    }
    if (this.samplingRatePerMillion === 0) return undefined;
    const traceId = newTraceId();
    if (!this.ratioSampled(traceId)) return undefined;
    return new Span(this, name, 'server', { traceId, spanId: newSpanId() }, undefined, false);
  }

  ratioSampled(traceId: string): boolean {
    if (this.samplingRatePerMillion >= 1_000_000) return true;
    // The low 8 bytes of the id as an unsigned number, shifted right by one.
    const low = Number.parseInt(traceId.slice(16, 24), 16) * 2 ** 31 + Math.floor(Number.parseInt(traceId.slice(24, 32), 16) / 2);
    return low < this.bound;
  }

  /** Runs `fn` with `span` as the current span. */
  run<T>(span: Span, fn: () => T): T {
    return current.run(span, fn);
  }
}

export interface ParsedTraceparent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * A W3C `traceparent` value, or undefined when it is invalid (then it is ignored, as the propagator does):
 * version ff, an all-zero trace or span id, or extra fields in version 00 make it invalid.
 */
export function parseTraceparent(value: string): ParsedTraceparent | undefined {
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

// Ids come from a pooled random buffer: one random fill per 170 spans, not one per id.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return /^0+$/.test(hex) ? randomHex(bytes) : hex;
}
export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

const nowMs = (): number => performance.timeOrigin + performance.now();
