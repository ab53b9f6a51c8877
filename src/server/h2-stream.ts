import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { constants as http2constants, sensitiveHeaders, type ServerHttp2Stream } from 'node:http2';
import type { Req, Res } from './http.js';

/**
 * The handlers' Req and Res over a raw HTTP/2 stream. Node's HTTP/2 compatibility layer builds two more
 * stream objects and their listeners for every request; serving the `stream` event directly costs less per
 * request, which matters at many thousands of small requests a second. HTTP/1.1 still uses node's
 * request/response objects, which satisfy the same interfaces.
 */
export class StreamReq implements Req {
  readonly method: string;
  readonly url: string;
  private distinct: Record<string, string | string[] | undefined> | undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    private readonly rawHeaders: string[],
  ) {
    this.method = String(headers[':method'] ?? 'GET');
    this.url = String(headers[':path'] ?? '/');
  }

  /**
   * Repeated headers kept apart (node joins them with ", " in `headers`); built on first use. A request
   * without a repeated header name (nearly all) gets `headers` itself: each name has one value there.
   */
  get headersDistinct(): Record<string, string | string[] | undefined> {
    if (!this.distinct) {
      const raw = this.rawHeaders;
      let lines = 0;
      for (let i = 0; i + 1 < raw.length; i += 2) if ((raw[i] as string)[0] !== ':') lines++;
      let names = 0;
      for (const k in this.headers) if (k[0] !== ':') names++;
      if (lines === names) this.distinct = this.headers;
      else {
        const d: Record<string, string[]> = {};
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = (raw[i] as string).toLowerCase();
          if (name.startsWith(':')) continue;
          (d[name] ??= []).push(raw[i + 1] as string);
        }
        this.distinct = d;
      }
    }
    return this.distinct;
  }

  get socket(): unknown {
    return this.stream.session?.socket;
  }

  /**
   * The whole request body, failing with `tooLarge()` once it passes `limit` bytes (the rest is dropped).
   * Not the stream's own async iterator: that one destroys the whole duplex stream once the body has been
   * read, before the response is written (every request then paid for ERR_STREAM_DESTROYED errors built
   * for the response's pending callbacks). One promise per body; a body in one DATA frame is not copied.
   */
  readAll(limit: number, tooLarge: () => Error): Promise<Buffer> {
    const s = this.stream;
    return new Promise<Buffer>((resolve, reject) => {
      let first: Buffer | undefined;
      let more: Buffer[] | undefined;
      let size = 0;
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > limit) {
          cleanup();
          s.resume(); // drop the rest of it
          reject(tooLarge());
        } else if (first === undefined) first = c;
        else (more ??= [first]).push(c);
      };
      const onEnd = () => {
        cleanup();
        resolve(more ? Buffer.concat(more, size) : (first ?? Buffer.alloc(0)));
      };
      const onClose = () => {
        cleanup();
        reject(new Error('the client closed the stream before the request body ended'));
      };
      const cleanup = () => {
        s.removeListener('data', onData);
        s.removeListener('end', onEnd);
        s.removeListener('close', onClose);
      };
      // `on`, not `once` (cleanup removes them all): once-wrappers are garbage made per request.
      s.on('data', onData);
      s.on('end', onEnd);
      s.on('close', onClose);
    });
  }
}

export class StreamRes implements Res {
  statusCode = 200;
  private readonly out: OutgoingHttpHeaders = {};
  private sent = false;
  private ended = false;

  /** `head`: the request was HEAD, so the response has headers only. */
  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly head = false,
  ) {}

  get headersSent(): boolean {
    return this.sent || this.stream.headersSent;
  }

  /** Ended by us; node ends a HEAD request's writable side before the handler runs, so not the stream's flag. */
  get writableEnded(): boolean {
    return this.ended || this.stream.destroyed;
  }

  get writableNeedDrain(): boolean {
    return this.stream.writableNeedDrain;
  }

  get writableLength(): number {
    return this.stream.writableLength;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  /** Resets the stream (RST_STREAM CANCEL), dropping whatever it still had to send. */
  destroy(): void {
    if (!this.stream.destroyed) this.stream.close(http2constants.NGHTTP2_CANCEL);
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    if (this.sent) throw new Error(`cannot set header ${name}: headers already sent`);
    this.out[lowerCase(name)] = value as string | number | string[];
    return this;
  }

  getHeader(name: string): unknown {
    return this.out[lowerCase(name)];
  }

  /** Sends the status and headers now (a watch with nothing to say yet must still answer). */
  flushHeaders(): void {
    this.respond(false);
  }

  write(chunk: Buffer | string, cb?: (err?: Error | null) => void): boolean {
    this.respond(false);
    if (this.writableEnded || this.head) return false;
    return this.stream.write(chunk, cb);
  }

  end(chunk?: Buffer | string): this {
    if (this.writableEnded) return this;
    this.ended = true;
    const empty = chunk === undefined || chunk.length === 0 || this.head;
    if (!this.sent) {
      // A whole response in one go: HEADERS, then DATA with END_STREAM (or END_STREAM on the HEADERS).
      this.respond(empty);
      if (empty) return this;
    }
    if (empty) {
      if (!this.stream.writableEnded) this.stream.end();
    } else this.stream.end(chunk);
    return this;
  }

  on(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.on(event, listener);
    return this;
  }

  once(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.once(event, listener);
    return this;
  }

  removeListener(event: string, listener: (...args: unknown[]) => void): this {
    this.stream.removeListener(event, listener);
    return this;
  }

  private respond(endStream: boolean): void {
    if (this.sent || this.stream.destroyed) return;
    this.sent = true;
    this.out[':status'] = this.statusCode;
    if (this.out[PER_RESPONSE_HEADER] !== undefined) (this.out as Record<symbol, unknown>)[sensitiveHeaders] = NEVER_INDEXED;
    this.stream.respond(this.out, { endStream });
  }
}

/**
 * The audit ID differs in every response: kept out of HPACK's table (sent "never indexed"), it does not push
 * the repeated headers out of it, which saves encoding work for every response on the connection.
 */
const PER_RESPONSE_HEADER = 'audit-id';
const NEVER_INDEXED = [PER_RESPONSE_HEADER];

/** HTTP/2 field names are lower case on the wire; most names the handlers set already are. */
const lowerCase = (name: string) => (/[A-Z]/.test(name) ? name.toLowerCase() : name);
