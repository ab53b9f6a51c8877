/**
 * A transport into a request handler in the same process: the server's whole filter chain (authentication,
 * audit, priority and fairness, authorization, admission in the handlers) runs for every request as it does
 * for one from the network, without TLS, HTTP/2 framing or a socket in between. The in-process controller
 * manager uses it: its watches then cost the server a buffer handed over per event, not a frame encrypted
 * and decrypted again.
 *
 * The request and response objects have the shape the server's handlers use (the `Req` and `Res` of
 * src/server/http.ts); this layer cannot import them, so the shapes are restated here and the server's
 * compiler checks that they fit.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ClusterConnection } from './contract.js';
import { outgoing, queryString, RequestTimeoutError, Transport, type OpenStream, type RawResponse, type RequestSpec } from './transport.js';

/** A server's request handler (its filter chain); it settles once the response has ended. */
export type DirectHandler = (req: DirectRequest, res: DirectResponse) => Promise<void>;

/**
 * The address audit events and traces report for in-process requests: the reference's own controllers
 * reach it over loopback, so its audit log shows them from 127.0.0.1 too.
 */
const LOOPBACK_PEER = Object.freeze({ remoteAddress: '127.0.0.1' });
const EMPTY = Buffer.alloc(0);

export class DirectRequest {
  readonly headers: IncomingHttpHeaders;
  /** Repeated headers (several `impersonate-group` values) stay arrays here, as node keeps them apart. */
  readonly headersDistinct: Record<string, string | string[] | undefined>;
  readonly socket = LOOPBACK_PEER;

  constructor(
    readonly method: string,
    readonly url: string,
    headers: OutgoingHttpHeaders,
    private readonly body: Buffer | undefined,
  ) {
    const joined: IncomingHttpHeaders = {};
    const distinct: Record<string, string | string[]> = {};
    for (const name in headers) {
      const v = headers[name];
      if (v === undefined) continue;
      const key = name.toLowerCase();
      const values = Array.isArray(v) ? v.map(String) : String(v);
      distinct[key] = values;
      joined[key] = Array.isArray(values) ? values.join(', ') : values;
    }
    if (body) joined['content-length'] = String(body.length);
    this.headers = joined;
    this.headersDistinct = distinct;
  }

  readAll(limit: number, tooLarge: () => Error): Promise<Buffer> {
    const b = this.body ?? EMPTY;
    return b.length > limit ? Promise.reject(tooLarge()) : Promise.resolve(b);
  }
}

/**
 * The response as the handler writes it. Its body goes to a Readable the caller consumes (`open`), or is
 * collected whole (`request`). Backpressure is the Readable's: a write returns false past its buffer, and
 * 'drain' follows once the reader takes more. Destroying the Readable closes the response, which is how a
 * watch learns its reader is gone.
 */
export class DirectResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  destroyed = false;
  writableNeedDrain = false;
  private readonly out: Record<string, string | number | readonly string[]> = {};
  private readonly chunks: Buffer[] = [];
  private body: Readable | undefined;

  /** `onHead` runs once the status and headers are final; `streaming` sends the body to a Readable. */
  constructor(
    private readonly onHead: (res: DirectResponse) => void,
    private readonly onEnd: (res: DirectResponse) => void,
    private readonly streaming: boolean,
  ) {
    super();
  }

  get writableLength(): number {
    return this.body?.readableLength ?? 0;
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    if (this.headersSent) throw new Error(`cannot set header ${name}: headers already sent`);
    this.out[name.toLowerCase()] = value;
    return this;
  }

  getHeader(name: string): unknown {
    return this.out[name.toLowerCase()];
  }

  /** The headers as a client receives them (lower-case names, string values, `:status`). */
  receivedHeaders(): IncomingHttpHeaders {
    const h: IncomingHttpHeaders = { ':status': String(this.statusCode) } as IncomingHttpHeaders;
    for (const k in this.out) {
      const v = this.out[k] as string | number | readonly string[];
      h[k] = typeof v === 'number' ? String(v) : (v as string | string[]);
    }
    return h;
  }

  flushHeaders(): void {
    this.head();
  }

  write(chunk: Buffer | string, cb?: (err?: Error | null) => void): boolean {
    this.head();
    if (this.writableEnded || this.destroyed) return false;
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (cb) process.nextTick(cb);
    if (!this.body) {
      this.chunks.push(b);
      return true;
    }
    if (this.body.push(b)) return true;
    this.writableNeedDrain = true;
    return false;
  }

  end(chunk?: Buffer | string): this {
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined && chunk.length > 0) this.write(chunk);
    else this.head();
    this.writableEnded = true;
    this.body?.push(null);
    this.onEnd(this);
    process.nextTick(() => {
      this.emit('finish');
      this.emit('close');
    });
    return this;
  }

  /** Drops the response (the server resetting it): the reader sees an error rather than a clean end. */
  destroy(): void {
    if (this.destroyed || this.writableEnded) return;
    this.close(new Error('the server reset the response'));
  }

  /** The whole body of a collected (not streamed) response. */
  collected(): Buffer {
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
  }

  /** The reader went away (or the server reset): the handler sees 'close' and stops writing. */
  close(err?: Error): void {
    if (this.destroyed || this.writableEnded) return;
    this.destroyed = true;
    if (err && this.body && !this.body.destroyed) this.body.destroy(err);
    process.nextTick(() => this.emit('close'));
  }

  private head(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    if (this.streaming) {
      this.body = new Readable({
        read: () => {
          if (!this.writableNeedDrain) return;
          this.writableNeedDrain = false;
          this.emit('drain');
        },
        destroy: (err, done) => {
          if (!this.writableEnded) this.close();
          done(err);
        },
      });
    }
    this.onHead(this);
  }

  /** The Readable of a streamed response (after the head). */
  get stream(): Readable | undefined {
    return this.body;
  }
}

export class DirectTransport extends Transport {
  private closed = false;

  constructor(
    connection: ClusterConnection,
    private readonly handler: DirectHandler,
  ) {
    super(connection);
  }

  close(): void {
    this.closed = true;
  }

  protected async requestOnce(spec: RequestSpec): Promise<RawResponse> {
    const timeoutMs = spec.timeoutMs ?? this.connection.requestTimeoutMs ?? 0;
    return this.exchange(spec, timeoutMs, false, (res) => ({ status: res.statusCode, headers: res.receivedHeaders(), body: res.collected() }));
  }

  protected async openOnce(spec: RequestSpec): Promise<OpenStream> {
    const opened = await this.exchange(spec, 0, true, (res) => res);
    const stream = opened.stream ?? Readable.from([]);
    return { status: opened.statusCode, headers: opened.receivedHeaders(), stream };
  }

  /**
   * Runs the handler; settles with `done(res)` when the head is out (streamed) or the body has ended
   * (collected). An abort or the timeout closes the response, so the handler stops as for a reset stream.
   */
  private async exchange<T>(spec: RequestSpec, timeoutMs: number, streaming: boolean, done: (res: DirectResponse) => T): Promise<T> {
    if (this.closed) throw new Error('client transport is closed');
    spec.signal?.throwIfAborted();
    const creds = await this.connection.credentials.get();
    const { headers, payload } = outgoing(spec, this.connection, creds);
    const req = new DirectRequest(spec.method, `${spec.path}${queryString(spec.query)}`, headers, payload);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        f();
      };
      const res = new DirectResponse(
        (r) => {
          if (streaming) finish(() => resolve(done(r)));
        },
        (r) => {
          if (!streaming) finish(() => resolve(done(r)));
        },
        streaming,
      );
      const fail = (e: Error) => {
        res.close(e);
        finish(() => reject(e));
      };
      // Until the response closes the signal ends it: before the head the call fails, after it the stream
      // does (as an abort resets an HTTP/2 stream).
      const signal = spec.signal;
      if (signal) {
        const onAbort = () => fail(abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
        res.once('close', () => signal.removeEventListener('abort', onAbort));
      }
      if (timeoutMs > 0) timer = setTimeout(() => fail(new RequestTimeoutError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`)), timeoutMs);
      this.handler(req, res).then(
        () => {
          if (!res.headersSent && !res.destroyed) fail(new Error(`${spec.method} ${spec.path}: the handler ended without a response`));
        },
        (e: unknown) => fail(e instanceof Error ? e : new Error(String(e))),
      );
    });
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
