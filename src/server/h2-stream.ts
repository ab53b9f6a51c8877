import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { ServerHttp2Stream } from 'node:http2';
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
  private distinct: Record<string, string[]> | undefined;

  constructor(
    readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    private readonly rawHeaders: string[],
  ) {
    this.method = String(headers[':method'] ?? 'GET');
    this.url = String(headers[':path'] ?? '/');
  }

  /** Repeated headers kept apart (node joins them with ", " in `headers`); built on first use. */
  get headersDistinct(): Record<string, string[]> {
    if (!this.distinct) {
      const d: Record<string, string[]> = {};
      const raw = this.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = (raw[i] as string).toLowerCase();
        if (name.startsWith(':')) continue;
        (d[name] ??= []).push(raw[i + 1] as string);
      }
      this.distinct = d;
    }
    return this.distinct;
  }

  get socket(): unknown {
    return this.stream.session?.socket;
  }

  /**
   * The request body, chunk by chunk. Not the stream's own async iterator: that one destroys the whole
   * duplex stream once the body has been read, before the response is written (every request then paid
   * for ERR_STREAM_DESTROYED errors built for the response's pending callbacks).
   */
  [Symbol.asyncIterator](): AsyncIterator<Buffer | string> {
    const s = this.stream;
    const chunks: Buffer[] = [];
    let ended = false;
    let failed: Error | undefined;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      notify();
    };
    const onEnd = () => {
      ended = true;
      notify();
    };
    const onClose = () => {
      if (!ended) failed ??= new Error('the client closed the stream before the request body ended');
      notify();
    };
    const cleanup = () => {
      s.removeListener('data', onData);
      s.removeListener('end', onEnd);
      s.removeListener('close', onClose);
    };
    s.on('data', onData);
    s.once('end', onEnd);
    s.once('close', onClose);
    return {
      next: async () => {
        while (chunks.length === 0 && !ended && !failed) await new Promise<void>((r) => (wake = r));
        if (chunks.length > 0) return { value: chunks.shift() as Buffer, done: false };
        cleanup();
        if (failed) throw failed;
        return { value: undefined, done: true };
      },
      // The reader stopped early (a body over the limit): drop the rest of it.
      return: async () => {
        cleanup();
        if (!ended) s.resume();
        return { value: undefined, done: true };
      },
    };
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

  setHeader(name: string, value: string | number | readonly string[]): this {
    if (this.sent) throw new Error(`cannot set header ${name}: headers already sent`);
    this.out[name.toLowerCase()] = value as string | number | string[];
    return this;
  }

  getHeader(name: string): unknown {
    return this.out[name.toLowerCase()];
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
    this.stream.respond(this.out, { endStream });
  }
}
