/**
 * Exports ended spans over OTLP/gRPC: batched as the reference's batch span processor does (a queue of
 * 2048 spans, batches of up to 512, sent every 5 s or as soon as a batch is full; spans past a full queue
 * are dropped and counted), one HTTP/2 connection to the collector, gRPC framing by hand so that the
 * connection can be opened through the egress selector's control-plane dialer like every other outgoing
 * control-plane connection. Export never blocks a request: a failed batch is logged and dropped.
 */
import http2 from 'node:http2';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as protoLoader from '@grpc/proto-loader';
import type { Dialer } from '../util/dialer.js';
import type { Span, SpanSink } from './span.js';

export const MAX_QUEUE = 2048;
export const MAX_BATCH = 512;
export const SCHEDULE_DELAY_MS = 5000;
export const EXPORT_TIMEOUT_MS = 30_000;
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Where the collector listens, from a gRPC target string (config.ts has validated it). */
export type CollectorAddress = { host: string; port: number } | { path: string };

export function collectorAddress(endpoint: string): CollectorAddress {
  if (endpoint.startsWith('unix-abstract:')) return { path: `\0${endpoint.slice('unix-abstract:'.length)}` };
  if (endpoint.startsWith('unix://')) return { path: endpoint.slice('unix://'.length) };
  if (endpoint.startsWith('unix:')) return { path: endpoint.slice('unix:'.length) };
  // dns:[//authority/]host:port; the authority names a DNS server, the system resolver is used instead.
  let hostPort = endpoint.startsWith('dns:') ? endpoint.slice('dns:'.length) : endpoint;
  if (hostPort.startsWith('//')) hostPort = hostPort.slice(hostPort.indexOf('/', 2) + 1);
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(hostPort);
  const host = m?.[1] ?? m?.[2] ?? hostPort;
  return { host: host === '' ? 'localhost' : host, port: m?.[3] ? Number(m[3]) : 443 };
}

export interface ExporterOptions {
  endpoint: string;
  /** Attributes of the emitting process (service.name, host.name, ...). */
  resource: Record<string, string>;
  scope: string;
  dialer?: Dialer;
  log(msg: string): void;
  /** Tests shorten the 5 s schedule. */
  scheduleDelayMs?: number;
}

let serialize: ((request: unknown) => Buffer) | undefined;
function serializer(): (request: unknown) => Buffer {
  if (serialize) return serialize;
  const defs = protoLoader.loadSync('trace-service.proto', {
    includeDirs: [fileURLToPath(new URL('./otlp/', import.meta.url))],
    keepCase: true,
    longs: String,
    enums: String,
    bytes: Buffer,
    oneofs: true,
  });
  const svc = defs['opentelemetry.proto.collector.trace.v1.TraceService'] as protoLoader.ServiceDefinition;
  const m = svc.Export as protoLoader.MethodDefinition<unknown, unknown>;
  return (serialize = (r) => m.requestSerialize(r));
}

export class OtlpExporter implements SpanSink {
  private queue: Span[] = [];
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private session: http2.ClientHttp2Session | undefined;
  private lastComplaint = 0;
  private closed = false;
  private readonly address: CollectorAddress;

  constructor(private readonly opts: ExporterOptions) {
    this.address = collectorAddress(opts.endpoint);
    serializer(); // a broken proto file fails the start, not the first export
  }

  add(span: Span): void {
    if (this.closed) return;
    if (this.queue.length >= MAX_QUEUE) {
      this.dropped++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= MAX_BATCH) this.flushSoon(0);
    else this.flushSoon(this.opts.scheduleDelayMs ?? SCHEDULE_DELAY_MS);
  }

  private flushSoon(delay: number): void {
    if (this.timer && delay > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delay);
    this.timer.unref();
  }

  /** Sends everything queued, one batch after another; resolves when the sends are done. */
  flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        try {
          await this.send(batch);
        } catch (e) {
          this.complain(`cannot export ${batch.length} spans to ${this.opts.endpoint}: ${(e as Error).message}`);
        }
      }
      if (this.dropped > 0) {
        this.complain(`dropped ${this.dropped} spans: the export queue was full`);
        this.dropped = 0;
      }
    });
    return this.sending;
  }

  /** Exports what is queued, then closes the connection. */
  async shutdown(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  private complain(msg: string): void {
    // At most one complaint a minute: a collector that is down must not flood the log.
    const now = Date.now();
    if (now - this.lastComplaint < 60_000) return;
    this.lastComplaint = now;
    this.opts.log(`tracing: ${msg}`);
  }

  private async connect(): Promise<http2.ClientHttp2Session> {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const a = this.address;
    let socket: Duplex;
    if ('path' in a) socket = await connected(net.connect(a.path));
    else if (this.opts.dialer) socket = await this.opts.dialer.dial(a.host, a.port);
    else socket = await connected(net.connect(a.port, a.host));
    const authority = 'path' in a ? 'http://localhost' : `http://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
    const session = http2.connect(authority, { createConnection: () => socket as unknown as net.Socket });
    session.on('error', () => undefined); // the pending stream reports it
    session.on('close', () => {
      if (this.session === session) this.session = undefined;
    });
    session.unref();
    this.session = session;
    return session;
  }

  private async send(batch: Span[]): Promise<void> {
    const message = serializer()({ resource_spans: [{ resource: { attributes: keyValues(this.opts.resource) }, scope_spans: [{ scope: { name: this.opts.scope }, spans: batch.map(toProto) }] }] });
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1); // byte 0: not compressed
    message.copy(frame, 5);
    const session = await this.connect();
    await new Promise<void>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': EXPORT_PATH,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${EXPORT_TIMEOUT_MS}m`,
      });
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), EXPORT_TIMEOUT_MS);
      let status: string | undefined;
      let message = '';
      const headers = (h: http2.IncomingHttpHeaders) => {
        if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
        if (h['grpc-message'] !== undefined) message = decodeURIComponent(String(h['grpc-message']));
      };
      stream.on('response', headers);
      stream.on('trailers', headers);
      stream.on('data', () => undefined);
      stream.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      stream.on('close', () => {
        clearTimeout(timer);
        if (status === '0') resolve();
        else reject(new Error(status === undefined ? 'the collector closed the call without a status' : `gRPC status ${status}${message ? `: ${message}` : ''}`));
      });
      stream.end(frame);
    });
  }
}

function connected(socket: net.Socket): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

const KINDS = { internal: 'SPAN_KIND_INTERNAL', server: 'SPAN_KIND_SERVER', client: 'SPAN_KIND_CLIENT' } as const;

/** One span as the OTLP message (plain object for the proto serializer). */
export function toProto(s: Span): Record<string, unknown> {
  return {
    trace_id: Buffer.from(s.context.traceId, 'hex'),
    span_id: Buffer.from(s.context.spanId, 'hex'),
    trace_state: s.context.traceState ?? '',
    parent_span_id: s.parentSpanId ? Buffer.from(s.parentSpanId, 'hex') : Buffer.alloc(0),
    // Sampled, and whether the parent is known to be remote (bits 8 and 9).
    flags: 0x1 | 0x100 | (s.remoteParent ? 0x200 : 0),
    name: s.name,
    kind: KINDS[s.kind],
    start_time_unix_nano: unixNanos(s.startMs),
    end_time_unix_nano: unixNanos(s.endMs),
    attributes: keyValues(s.attributes),
    status: s.error !== undefined ? { code: 'STATUS_CODE_ERROR', message: s.error } : { code: 'STATUS_CODE_UNSET', message: '' },
  };
}

/** Epoch milliseconds (fractional) as a decimal count of nanoseconds; past 2^53, so built as a string. */
export function unixNanos(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.min(999_999, Math.round((ms - whole) * 1e6));
  return `${whole}${String(nanos).padStart(6, '0')}`;
}

function keyValues(attrs: Record<string, string | number | boolean>): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attrs).map(([key, v]) => ({
    key,
    value: typeof v === 'string' ? { string_value: v } : typeof v === 'boolean' ? { bool_value: v } : Number.isInteger(v) ? { int_value: String(v) } : { double_value: v },
  }));
}
