/**
 * A lean HTTP/2 client (RFC 9113) on node:tls, for calls made many times a second: admission webhooks, and
 * the benchmarks' load generators (bench/h2-client.ts). node:http2's client costs ~60 µs of CPU per request
 * (a stream object, an async resource and its bound callbacks, header mapping, several events); this one
 * keeps a request to one promise, one small state object, cached header bytes and one batched socket write
 * per tick, about 8 µs.
 *
 * It sends requests with bodies and reads whole responses: no server push, no priorities. Deadlines are kept
 * per request but share one timer per connection; an answer larger than the connection's bound is cancelled.
 * Files: frame-reader.ts cuts incoming bytes into frames, frame-writer.ts batches outgoing ones, connection.ts
 * keeps the connection's and streams' state; this file is the public face and the handling of each frame.
 */
import { isIP } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import {
  ACK, COMPRESSION_ERROR, CONTINUATION, DATA, END_HEADERS, END_STREAM, errName, FLOW_CONTROL_ERROR, FRAME_SIZE_ERROR, GOAWAY,
  HEADERS, PADDED, PING, PRIORITY, PROTOCOL_ERROR, PUSH_PROMISE, RST_STREAM, SETTINGS, WINDOW_UPDATE,
} from './frame-writer.js';
import { H2Connection, MAX_WINDOW, type H2Response, type Stream } from './connection.js';
import { HpackDecoder } from './hpack.js';

export { DEADLINE_MESSAGE, type H2Response } from './connection.js';
export interface H2ConnectOptions { ca?: string | Buffer; insecure?: boolean /* rejectUnauthorized: false */ }
export interface H2ClientOptions {
  /** A response body over this many bytes fails its request (the stream is cancelled). Default: no bound. */
  maxBodyBytes?: number;
  /** The connection is closed after this long without any traffic. Default: never. */
  idleMs?: number;
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const REFILL_AFTER = 64 * 1024 * 1024; // connection receive window consumed before we top it up
// ENABLE_PUSH (2) = 0; INITIAL_WINDOW_SIZE (4) = 2^31-1, so stream receive windows never block.
const OUR_SETTINGS = Buffer.from([0, 2, 0, 0, 0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff]);

export class H2Client extends H2Connection {
  private readonly decoder = new HpackDecoder();
  private unacked = 0; // connection receive window consumed since our last WINDOW_UPDATE
  private contId = 0; // a header block continued in CONTINUATION frames
  private contFlags = 0;
  private contParts: Buffer[] = [];
  private readonly maxBody: number;

  /** Takes over a TLS socket on which `h2` was negotiated; `authority` is the `:authority` of every request. */
  constructor(socket: TLSSocket, authority: string, opts: H2ClientOptions = {}) {
    super(socket, authority);
    this.maxBody = opts.maxBodyBytes ?? Infinity;
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => this.reader.push(c));
    socket.on('error', (e) => this.teardown(`socket error: ${e.message}`));
    socket.on('end', () => this.teardown('connection closed by server'));
    socket.on('close', () => this.teardown('connection closed'));
    if (opts.idleMs !== undefined) socket.setTimeout(opts.idleMs, () => this.close());
    this.w.bytes(PREFACE);
    this.w.head(OUR_SETTINGS.length, SETTINGS, 0, 0);
    this.w.bytes(OUR_SETTINGS);
    this.windowUpdate(0, MAX_WINDOW - 65535); // the connection receive window to the maximum too
    this.w.flush();
  }

  static connect(url: string, opts: H2ConnectOptions = {}, clientOpts: H2ClientOptions = {}): Promise<H2Client> {
    return new Promise((resolve, reject) => {
      const u = new URL(url);
      if (u.protocol !== 'https:') return reject(new Error(`connect ${url}: only https URLs are supported`));
      const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
      const socket = tlsConnect({
        host,
        port: Number(u.port || 443),
        ALPNProtocols: ['h2'],
        ...(isIP(host) ? {} : { servername: host }),
        ...(opts.ca ? { ca: opts.ca } : {}),
        rejectUnauthorized: !opts.insecure,
      });
      const onError = (e: Error) => reject(new Error(`connect ${url}: ${e.message}`));
      socket.once('error', onError);
      socket.once('secureConnect', () => {
        socket.off('error', onError);
        if (socket.alpnProtocol === 'h2') return resolve(new H2Client(socket, u.host, clientOpts));
        socket.destroy();
        reject(new Error(`connect ${url}: server did not select h2 via ALPN (got ${socket.alpnProtocol || 'none'})`));
      });
    });
  }

  /** Whether new requests can be sent (not closed, no GOAWAY received). */
  get usable(): boolean {
    return this.dead === null && this.goaway === null;
  }

  /** Sends a request; `timeoutMs` bounds the whole exchange (rejecting with DEADLINE_MESSAGE). */
  request(method: string, path: string, headers?: Record<string, string>, body?: Buffer, timeoutMs?: number): Promise<H2Response> {
    let s!: Stream;
    const p = new Promise<H2Response>((resolve, reject) => {
      s = { id: 0, method, path, headers, body, resolve, reject, deadline: Infinity, done: false, status: 0, first: null, chunks: null, length: 0, sendWindow: 0, sent: 0, localDone: false, blocked: false, received: 0 };
    });
    const refused = this.dead ? this.dead.message : this.goaway ? `${this.goaway}; no new requests on this connection` : undefined;
    if (refused !== undefined) {
      this.settleError(s, refused);
      return p;
    }
    if (timeoutMs !== undefined) {
      s.deadline = performance.now() + timeoutMs;
      if (s.deadline < this.timerAt) this.armTimer(s.deadline);
    }
    if (this.streams.size < this.maxStreams && this.queueHead === this.queue.length) this.start(s);
    else this.queue.push(s);
    return p;
  }

  /** Sends GOAWAY, fails what is open and closes the connection. */
  close(): void {
    if (this.dead) return;
    this.goawayFrame(0);
    this.w.flush();
    this.teardown('connection closed by client');
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  /** Fails what is open and drops the connection at once (shutdown and tests). */
  destroy(): void {
    this.teardown('connection closed by client');
    this.socket.destroy();
  }

  // ---- receiving

  protected frame(b: Buffer, off: number, end: number): void {
    const type = b[off + 3]!;
    const flags = b[off + 4]!;
    const id = ((b[off + 5]! & 0x7f) << 24) | (b[off + 6]! << 16) | (b[off + 7]! << 8) | b[off + 8]!;
    let p = off + 9;
    const len = end - p;
    if (this.contId !== 0 && (type !== CONTINUATION || id !== this.contId)) return this.fail(PROTOCOL_ERROR, 'header block interrupted by another frame');
    switch (type) {
      case DATA: {
        if (id === 0) return this.fail(PROTOCOL_ERROR, 'DATA on stream 0');
        // Flow control counts the whole payload, padding included, and frames of streams we no longer track.
        if ((this.unacked += len) > REFILL_AFTER) this.windowUpdate(0, this.unacked), (this.unacked = 0);
        if (flags & PADDED && (end -= len > 0 ? b[p++]! : 1) < p) return this.fail(PROTOCOL_ERROR, 'DATA padding exceeds the frame');
        const s = this.streams.get(id);
        if (s === undefined) return;
        if (s.status === 0) return this.streamError(s, PROTOCOL_ERROR, `stream ${id}: DATA before the response headers`);
        if ((s.received += len) > 2 ** 30) this.windowUpdate(id, s.received), (s.received = 0); // only for > 1 GiB bodies
        if (end > p) {
          if (s.length + (end - p) > this.maxBody) return this.cancel(s, `the answer is larger than ${this.maxBody} bytes`);
          const data = b.subarray(p, end); // chunks from the socket are never reused: no copy
          if (s.first === null) s.first = data;
          else (s.chunks ??= [s.first]).push(data);
          s.length += end - p;
        }
        if (flags & END_STREAM) this.finish(s);
        return;
      }
      case HEADERS:
        if (id === 0) return this.fail(PROTOCOL_ERROR, 'HEADERS on stream 0');
        if (flags & PADDED) end -= len > 0 ? b[p++]! : 1;
        if (flags & PRIORITY) p += 5;
        if (end < p) return this.fail(PROTOCOL_ERROR, 'HEADERS padding or priority exceed the frame');
        if (flags & END_HEADERS) return this.headerBlock(id, flags, b, p, end);
        this.contId = id;
        this.contFlags = flags;
        this.contParts = [b.subarray(p, end)];
        return;
      case CONTINUATION: {
        if (this.contId === 0) return this.fail(PROTOCOL_ERROR, 'unexpected CONTINUATION');
        this.contParts.push(b.subarray(p, end));
        if (!(flags & END_HEADERS)) return;
        const block = Buffer.concat(this.contParts);
        this.contId = 0;
        this.contParts = [];
        return this.headerBlock(id, this.contFlags, block, 0, block.length);
      }
      case RST_STREAM: {
        if (len !== 4 || id === 0) return this.fail(len !== 4 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, 'malformed RST_STREAM');
        const s = this.streams.get(id);
        if (s !== undefined) this.drop(s, `stream ${id} reset by server: ${errName(b.readUInt32BE(p))}`);
        return;
      }
      case SETTINGS:
        return this.settings(id, flags, b, p, end);
      case PUSH_PROMISE:
        return this.fail(PROTOCOL_ERROR, 'PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0');
      case PING:
        if (len !== 8 || id !== 0) return this.fail(len !== 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, 'malformed PING');
        if (flags & ACK) return;
        this.w.head(8, PING, ACK, 0);
        this.w.bytes(b.subarray(p, end));
        return this.w.scheduleFlush();
      case GOAWAY: {
        if (len < 8 || id !== 0) return this.fail(len < 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, 'malformed GOAWAY');
        const last = b.readUInt32BE(p) & 0x7fffffff;
        const debug = b.toString('utf8', p + 8, end);
        this.goaway = `GOAWAY from server: ${errName(b.readUInt32BE(p + 4))}${debug ? ` "${debug}"` : ''}`;
        for (const s of [...this.streams.values()]) if (s.id > last) this.drop(s, `${this.goaway}; stream ${s.id} was not processed (last stream id ${last})`);
        for (let i = this.queueHead; i < this.queue.length; i++) this.settleError(this.queue[i]!, `${this.goaway}; request was not sent`);
        this.queue = [];
        this.queueHead = 0;
        this.disarmIfIdle();
        return this.unusable();
      }
      case WINDOW_UPDATE: {
        if (len !== 4) return this.fail(FRAME_SIZE_ERROR, 'malformed WINDOW_UPDATE');
        const inc = b.readUInt32BE(p) & 0x7fffffff;
        const s = this.streams.get(id);
        if (id === 0) {
          if (inc === 0) return this.fail(PROTOCOL_ERROR, 'WINDOW_UPDATE of 0 on the connection');
          if ((this.sendWindow += inc) > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, 'connection send window above 2^31-1');
        } else if (s === undefined) return;
        else if (inc === 0) return this.streamError(s, PROTOCOL_ERROR, `stream ${id}: WINDOW_UPDATE of 0`);
        else if ((s.sendWindow += inc) > MAX_WINDOW) return this.streamError(s, FLOW_CONTROL_ERROR, `stream ${id}: send window above 2^31-1`);
        return this.unblock();
      }
      default:
        return; // PRIORITY and unknown frame types are ignored
    }
  }

  private settings(id: number, flags: number, b: Buffer, p: number, end: number): void {
    if (id !== 0) return this.fail(PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) return end === p ? undefined : this.fail(FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
    if ((end - p) % 6 !== 0) return this.fail(FRAME_SIZE_ERROR, 'SETTINGS length not a multiple of 6');
    for (; p < end; p += 6) {
      const v = b.readUInt32BE(p + 2);
      // HEADER_TABLE_SIZE (1) bounds our encoder's dynamic table, which it never uses; 2 and 6 do not concern us.
      const key = b.readUInt16BE(p);
      if (key === 3) this.maxStreams = v;
      else if (key === 4) {
        if (v > MAX_WINDOW) return this.fail(FLOW_CONTROL_ERROR, `INITIAL_WINDOW_SIZE ${v} above 2^31-1`);
        for (const s of this.streams.values()) s.sendWindow += v - this.peerInitialWindow; // 6.9.2: open streams too
        this.peerInitialWindow = v;
      } else if (key === 5) {
        if (v < 16384 || v > 16777215) return this.fail(PROTOCOL_ERROR, `MAX_FRAME_SIZE ${v} out of range`);
        this.peerMaxFrame = v;
      }
    }
    this.w.head(0, SETTINGS, ACK, 0);
    this.w.scheduleFlush();
    this.startQueued();
    this.unblock();
  }

  /** A complete header block: always decoded (the dynamic table must stay in sync), even for a stream we dropped. */
  private headerBlock(id: number, flags: number, b: Buffer, p: number, end: number): void {
    let fields: string[];
    try {
      fields = this.decoder.decode(b, p, end);
    } catch (e) {
      return this.fail(COMPRESSION_ERROR, `HPACK decoding failed: ${(e as Error).message}`);
    }
    const s = this.streams.get(id);
    if (s === undefined) return;
    if (s.status === 0) {
      const i = fields[0] === ':status' ? 0 : fields.indexOf(':status');
      const status = i < 0 || i % 2 ? NaN : Number(fields[i + 1]);
      if (!(status >= 100 && status <= 999)) return this.streamError(s, PROTOCOL_ERROR, `stream ${id}: response without a valid :status`);
      if (status >= 200) s.status = status; // 1xx is informational: the final response follows
      else if (flags & END_STREAM) return this.streamError(s, PROTOCOL_ERROR, `stream ${id}: END_STREAM on a ${status} response`);
    }
    if (flags & END_STREAM) this.finish(s); // with status already set, this block was trailers
  }
}
