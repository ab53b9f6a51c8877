/**
 * The state of one HTTP/2 client connection and its request streams: which streams are open, queued over
 * the server's stream limit or blocked on flow control, the send windows, deadlines, and how a stream or
 * the whole connection ends. `H2Client` (client.ts) adds the public calls and the handling of incoming frames.
 */
import type { TLSSocket } from 'node:tls';
import { CANCEL, DATA, END_HEADERS, END_STREAM, errName, FRAME_SIZE_ERROR, FrameWriter, GOAWAY, HEADERS, RST_STREAM, WINDOW_UPDATE } from './frame-writer.js';
import { HpackEncoder } from './hpack.js';
import { FrameReader } from './frame-reader.js';

export interface H2Response { status: number; body: Buffer }

/** The message of a request that ran past its deadline (Go's wording, which webhook messages follow). */
export const DEADLINE_MESSAGE = 'context deadline exceeded';

export const MAX_WINDOW = 2 ** 31 - 1;
const MAX_STREAM_ID = 2 ** 31 - 1;
const EMPTY = Buffer.alloc(0);
const SCHEME_HTTPS = Buffer.from([0x87]); // static table index 7, :scheme https

/** Per-request state: one plain object of the same shape for every request. */
export interface Stream {
  id: number; // 0 until started
  method: string;
  path: string;
  headers: Record<string, string> | undefined;
  body: Buffer | undefined; // request body, until sent
  resolve: (r: H2Response) => void;
  reject: (e: Error) => void;
  deadline: number; // performance.now() time; Infinity without one
  done: boolean; // settled (answered, failed or cancelled)
  status: number; // 0 until the final (non-1xx) response headers
  first: Buffer | null; // response body: the usual single DATA frame needs no array and no copy
  chunks: Buffer[] | null;
  length: number;
  sendWindow: number;
  sent: number; // request body bytes sent
  localDone: boolean; // END_STREAM sent
  blocked: boolean; // in blockedStreams, waiting for window
  received: number; // DATA bytes since the last stream WINDOW_UPDATE
}

export abstract class H2Connection {
  protected readonly encoder = new HpackEncoder();
  protected readonly w: FrameWriter;
  protected readonly reader: FrameReader;
  protected readonly streams = new Map<number, Stream>();
  protected queue: Stream[] = []; // over the server's MAX_CONCURRENT_STREAMS; FIFO from queueHead
  protected queueHead = 0;
  private blockedStreams: Stream[] = [];
  private nextId = 1;
  protected maxStreams = Infinity;
  protected peerInitialWindow = 65535;
  protected peerMaxFrame = 16384;
  protected sendWindow = 65535; // connection level
  protected dead: Error | null = null; // set once; later requests reject with its message
  protected goaway: string | null = null;
  protected readonly authority: Buffer;
  // One deadline timer for all requests, armed for the earliest deadline; held only while requests are open.
  private timer: NodeJS.Timeout | undefined;
  protected timerAt = Infinity;
  private readonly closeListeners: (() => void)[] = [];

  protected constructor(protected readonly socket: TLSSocket, authority: string) {
    this.w = new FrameWriter(socket);
    this.reader = new FrameReader(
      (b, off, end) => this.frame(b, off, end),
      (len) => this.fail(FRAME_SIZE_ERROR, `frame of ${len} bytes exceeds MAX_FRAME_SIZE`),
    );
    this.authority = this.encoder.field(':authority', authority);
  }

  /** One whole incoming frame, header included, as `b[off, end)`. */
  protected abstract frame(b: Buffer, off: number, end: number): void;

  // ---- deadlines

  protected armTimer(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.expire(), Math.max(1, at - performance.now()));
  }

  protected disarmIfIdle(): void {
    if (this.timer === undefined || this.streams.size > 0 || this.queueHead < this.queue.length) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const s of [...this.streams.values(), ...this.queue.slice(this.queueHead)]) {
      if (s.deadline <= now) this.cancel(s, DEADLINE_MESSAGE);
      else if (s.deadline < next) next = s.deadline;
    }
    if (next < Infinity) this.armTimer(next);
  }

  /** Stops a request from our side: RST_STREAM when it was sent, then rejects it. */
  protected cancel(s: Stream, message: string): void {
    if (s.id !== 0 && this.streams.get(s.id) === s) {
      this.rst(s.id, CANCEL);
      this.streams.delete(s.id);
    }
    this.settleError(s, message);
    if (this.queueHead < this.queue.length) this.startQueued();
    this.disarmIfIdle();
  }

  protected settleError(s: Stream, message: string): void {
    if (s.done) return;
    s.done = true;
    s.reject(new Error(message));
  }

  // ---- sending

  protected start(s: Stream): void {
    if (s.done) return; // cancelled while queued
    if (this.nextId > MAX_STREAM_ID) return this.settleError(s, 'stream ids exhausted on this connection (2^31-1 reached); open a new connection');
    const id = (s.id = this.nextId);
    this.nextId += 2;
    s.sendWindow = this.peerInitialWindow;
    this.streams.set(id, s);
    const hasBody = s.body !== undefined && s.body.length > 0;
    // Cached bytes for everything but :path.
    this.w.head(0, HEADERS, hasBody ? END_HEADERS : END_HEADERS | END_STREAM, id);
    this.w.bytes(this.encoder.field(':method', s.method));
    this.w.bytes(SCHEME_HTTPS);
    this.w.bytes(this.authority);
    this.w.pathField(s.path);
    const h = s.headers;
    if (h !== undefined) for (const name in h) this.w.bytes(this.encoder.field(name, h[name]!));
    this.w.endHeaderBlock(id, !hasBody, this.peerMaxFrame);
    s.method = s.path = '';
    s.headers = undefined;
    if (hasBody) this.sendData(s);
    else s.localDone = true;
    this.w.scheduleFlush();
  }

  /** Sends as much of the request body as the windows allow; the rest waits for WINDOW_UPDATE or SETTINGS. */
  private sendData(s: Stream): void {
    const body = s.body!;
    while (s.sent < body.length) {
      const n = Math.min(body.length - s.sent, this.peerMaxFrame, this.sendWindow, s.sendWindow);
      if (n <= 0) {
        if (!s.blocked) (s.blocked = true), this.blockedStreams.push(s);
        return;
      }
      this.w.head(n, DATA, s.sent + n === body.length ? END_STREAM : 0, s.id);
      this.w.payload(body.subarray(s.sent, s.sent + n));
      s.sent += n;
      this.sendWindow -= n;
      s.sendWindow -= n;
    }
    s.localDone = true;
    s.body = undefined;
  }

  protected unblock(): void {
    if (this.blockedStreams.length === 0) return;
    const list = this.blockedStreams;
    this.blockedStreams = [];
    for (const s of list) {
      s.blocked = false;
      if (this.streams.get(s.id) === s) this.sendData(s);
    }
    this.w.scheduleFlush();
  }

  protected startQueued(): void {
    while (this.queueHead < this.queue.length && this.streams.size < this.maxStreams && !this.dead) this.start(this.queue[this.queueHead++]!);
    if (this.queueHead === this.queue.length && this.queueHead > 0) (this.queue = []), (this.queueHead = 0);
  }

  protected windowUpdate(id: number, inc: number): void {
    this.w.head(4, WINDOW_UPDATE, 0, id);
    this.w.u32(inc);
    this.w.scheduleFlush();
  }

  protected rst(id: number, code: number): void {
    this.w.head(4, RST_STREAM, 0, id);
    this.w.u32(code);
    this.w.scheduleFlush();
  }

  /** Last stream id 0: we never accept server-initiated streams. */
  protected goawayFrame(code: number): void {
    this.w.head(8, GOAWAY, 0, 0);
    this.w.u32(0);
    this.w.u32(code);
  }

  // ---- how streams and the connection end

  protected finish(s: Stream): void {
    this.streams.delete(s.id);
    if (!s.localDone) this.rst(s.id, CANCEL); // complete response before all of our body was sent: stop sending
    if (!s.done) {
      s.done = true;
      s.resolve({ status: s.status, body: s.chunks !== null ? Buffer.concat(s.chunks, s.length) : (s.first ?? EMPTY) });
    }
    if (this.queueHead < this.queue.length) this.startQueued();
    this.disarmIfIdle();
  }

  protected drop(s: Stream, message: string): void {
    this.streams.delete(s.id);
    this.settleError(s, message);
    if (this.queueHead < this.queue.length) this.startQueued();
    this.disarmIfIdle();
  }

  protected streamError(s: Stream, code: number, message: string): void {
    this.rst(s.id, code);
    this.drop(s, message);
  }

  /** A connection error (5.4.1): GOAWAY, reject everything, close. */
  protected fail(code: number, message: string): void {
    if (this.dead) return;
    this.goawayFrame(code);
    this.w.flush();
    this.teardown(`HTTP/2 connection error ${errName(code)}: ${message}`);
    this.socket.destroySoon();
  }

  protected teardown(message: string): void {
    if (this.dead) return;
    this.dead = new Error(message);
    this.reader.stop();
    const pending = [...this.streams.values(), ...this.queue.slice(this.queueHead)];
    this.streams.clear();
    this.queue = [];
    this.queueHead = 0;
    this.blockedStreams = [];
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    for (const s of pending) this.settleError(s, message);
    this.unusable();
  }

  /** Called once when the connection can no longer be used (closed, failed or told to go away). */
  onUnusable(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  protected unusable(): void {
    const listeners = this.closeListeners.splice(0);
    for (const l of listeners) l();
  }
}
