/**
 * A lean HTTP/2 client (RFC 9113) for the benchmarks, written on node:tls. node:http2's client costs ~100 µs of
 * CPU per request, enough for the load generator to compete with the server under test; this one keeps the
 * per-request work to one promise, one small state object, a few cached header bytes and one batched write per tick.
 * It does what a benchmark needs: requests with full-body responses; no server push, no priorities.
 */
import { isIP } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { HpackDecoder, HpackEncoder, writeStr } from './hpack.js';

export interface H2Response { status: number; body: Buffer }
export interface H2ConnectOptions { ca?: string | Buffer; insecure?: boolean /* rejectUnauthorized: false */ }

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const MAX_WINDOW = 2 ** 31 - 1;
const MAX_STREAM_ID = 2 ** 31 - 1;
const MAX_FRAME_IN = 16384; // our SETTINGS_MAX_FRAME_SIZE (the default)
const REFILL_AFTER = 64 * 1024 * 1024; // connection receive window consumed before we top it up
const SLAB = 64 * 1024;
const EMPTY = Buffer.alloc(0);
const SCHEME_HTTPS = Buffer.from([0x87]); // static table index 7, :scheme https
// ENABLE_PUSH (2) = 0; INITIAL_WINDOW_SIZE (4) = 2^31-1, so stream receive windows never block.
const OUR_SETTINGS = Buffer.from([0, 2, 0, 0, 0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff]);

const DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
const END_STREAM = 1, ACK = 1, END_HEADERS = 4, PADDED = 8, PRIORITY = 0x20;
const PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3, FRAME_SIZE_ERROR = 6, CANCEL = 8, COMPRESSION_ERROR = 9;
const ERRORS = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR',
  'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
const errName = (code: number) => `${ERRORS[code] ?? 'UNKNOWN'} (${code})`;

/** Per-request state: one plain object of the same shape for every request. */
interface Stream {
  id: number;
  method: string;
  path: string;
  headers: Record<string, string> | undefined;
  body: Buffer | undefined; // request body, until sent
  resolve: (r: H2Response) => void;
  reject: (e: Error) => void;
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

export class H2Client {
  private readonly encoder = new HpackEncoder();
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, Stream>();
  private queue: Stream[] = []; // over the server's MAX_CONCURRENT_STREAMS; FIFO from queueHead
  private queueHead = 0;
  private blockedStreams: Stream[] = [];
  private nextId = 1;
  private maxStreams = Infinity;
  private peerInitialWindow = 65535;
  private peerMaxFrame = 16384;
  private sendWindow = 65535; // connection level
  private unacked = 0; // connection receive window consumed since our last WINDOW_UPDATE
  private dead: Error | null = null; // set once; later requests reject with its message
  private goaway: string | null = null;
  private contId = 0; // a header block continued in CONTINUATION frames
  private contFlags = 0;
  private contParts: Buffer[] = [];
  // A frame split across socket chunks, collected in a buffer of the frame's exact size (9 bytes until known).
  private pend: Buffer | null = null;
  private pendLen = 0;
  // Frames are built in place in a slab: [slabStart, slabPos) is not yet written, `mark` starts the frame being
  // built. Written regions are never reused (the socket may still hold them): a full slab is replaced, not rewound.
  private slab = Buffer.allocUnsafe(SLAB);
  private slabStart = 0;
  private slabPos = 0;
  private mark = 0;
  private out: Buffer[] = [];
  private flushQueued = false;
  private readonly flushCb = () => this.flush();
  private readonly authority: Buffer;

  private constructor(private readonly socket: TLSSocket, authority: string) {
    this.authority = this.encoder.field(':authority', authority);
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => this.onData(c));
    socket.on('error', (e) => this.teardown(`socket error: ${e.message}`));
    socket.on('end', () => this.teardown('connection closed by server'));
    socket.on('close', () => this.teardown('connection closed'));
    this.bytes(PREFACE);
    this.head(OUR_SETTINGS.length, SETTINGS, 0, 0);
    this.bytes(OUR_SETTINGS);
    this.windowUpdate(0, MAX_WINDOW - 65535); // the connection receive window to the maximum too
    this.flush();
  }

  static connect(url: string, opts: H2ConnectOptions = {}): Promise<H2Client> {
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
        if (socket.alpnProtocol === 'h2') return resolve(new H2Client(socket, u.host));
        socket.destroy();
        reject(new Error(`connect ${url}: server did not select h2 via ALPN (got ${socket.alpnProtocol || 'none'})`));
      });
    });
  }

  request(method: string, path: string, headers?: Record<string, string>, body?: Buffer): Promise<H2Response> {
    let s!: Stream;
    const p = new Promise<H2Response>((resolve, reject) => {
      s = { id: 0, method, path, headers, body, resolve, reject, status: 0, first: null, chunks: null, length: 0, sendWindow: 0, sent: 0, localDone: false, blocked: false, received: 0 };
    });
    if (this.dead) s.reject(new Error(this.dead.message));
    else if (this.goaway) s.reject(new Error(`${this.goaway}; no new requests on this connection`));
    else if (this.streams.size < this.maxStreams && this.queueHead === this.queue.length) this.start(s);
    else this.queue.push(s);
    return p;
  }

  close(): void {
    if (this.dead) return;
    this.goawayFrame(0);
    this.flush();
    this.teardown('connection closed by client');
    this.socket.end();
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  // ---- sending

  private start(s: Stream): void {
    if (this.nextId > MAX_STREAM_ID) return s.reject(new Error('stream ids exhausted on this connection (2^31-1 reached); open a new connection'));
    const id = (s.id = this.nextId);
    this.nextId += 2;
    s.sendWindow = this.peerInitialWindow;
    this.streams.set(id, s);
    const hasBody = s.body !== undefined && s.body.length > 0;
    // HEADERS encoded in place: cached bytes for everything but :path, a literal without indexing (static name 4).
    this.head(0, HEADERS, hasBody ? END_HEADERS : END_HEADERS | END_STREAM, id);
    this.bytes(this.encoder.field(':method', s.method));
    this.bytes(SCHEME_HTTPS);
    this.bytes(this.authority);
    this.room(s.path.length * 3 + 8);
    this.slab[this.slabPos++] = 0x04;
    this.slabPos = writeStr(this.slab, this.slabPos, s.path);
    const h = s.headers;
    if (h !== undefined) for (const name in h) this.bytes(this.encoder.field(name, h[name]!));
    const len = this.slabPos - this.mark - 9;
    if (len <= this.peerMaxFrame) this.slab.writeUIntBE(len, this.mark, 3);
    else this.splitHeaders(id, hasBody);
    this.mark = this.slabPos;
    s.method = s.path = '';
    s.headers = undefined;
    if (hasBody) this.sendData(s);
    else s.localDone = true;
    this.scheduleFlush();
  }

  /** Rare: a header block over the peer's MAX_FRAME_SIZE goes out as HEADERS + CONTINUATION frames. */
  private splitHeaders(id: number, hasBody: boolean): void {
    const block = Buffer.from(this.slab.subarray(this.mark + 9, this.slabPos));
    this.slabPos = this.mark;
    for (let off = 0; off < block.length; off += this.peerMaxFrame) {
      const n = Math.min(this.peerMaxFrame, block.length - off);
      const last = off + n === block.length ? END_HEADERS : 0;
      this.head(n, off === 0 ? HEADERS : CONTINUATION, off === 0 && !hasBody ? last | END_STREAM : last, id);
      this.bytes(block.subarray(off, off + n));
    }
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
      this.head(n, DATA, s.sent + n === body.length ? END_STREAM : 0, s.id);
      const chunk = body.subarray(s.sent, s.sent + n);
      if (n <= 2048) this.bytes(chunk);
      else this.seal(), this.out.push(chunk); // large payloads go to the socket as they are, uncopied
      s.sent += n;
      this.sendWindow -= n;
      s.sendWindow -= n;
    }
    s.localDone = true;
    s.body = undefined;
  }

  private unblock(): void {
    if (this.blockedStreams.length === 0) return;
    const list = this.blockedStreams;
    this.blockedStreams = [];
    for (const s of list) {
      s.blocked = false;
      if (this.streams.get(s.id) === s) this.sendData(s);
    }
    this.scheduleFlush();
  }

  private startQueued(): void {
    while (this.queueHead < this.queue.length && this.streams.size < this.maxStreams && !this.dead) this.start(this.queue[this.queueHead++]!);
    if (this.queueHead === this.queue.length && this.queueHead > 0) (this.queue = []), (this.queueHead = 0);
  }

  /** Ensures n bytes of room; the frame under construction (from `mark`) moves along to a new slab. */
  private room(n: number): void {
    if (this.slabPos + n <= this.slab.length) return;
    if (this.mark > this.slabStart) this.out.push(this.slab.subarray(this.slabStart, this.mark));
    const keep = this.slabPos - this.mark;
    const next = Buffer.allocUnsafe(Math.max(SLAB, 2 * (keep + n)));
    this.slab.copy(next, 0, this.mark, this.slabPos);
    this.slab = next;
    this.slabStart = this.mark = 0;
    this.slabPos = keep;
  }

  /** Ends the current slab region (complete frames only) so that an external buffer can follow it. */
  private seal(): void {
    if (this.slabPos > this.slabStart) this.out.push(this.slab.subarray(this.slabStart, this.slabPos));
    this.slabStart = this.mark = this.slabPos;
  }

  private head(len: number, type: number, flags: number, id: number): void {
    this.room(9);
    const b = this.slab;
    const p = (this.mark = this.slabPos);
    b[p] = len >>> 16;
    b[p + 1] = len >>> 8;
    b[p + 2] = len;
    b[p + 3] = type;
    b[p + 4] = flags;
    b.writeUInt32BE(id, p + 5);
    this.slabPos = p + 9;
  }

  private bytes(src: Buffer): void {
    this.room(src.length);
    this.slabPos += src.copy(this.slab, this.slabPos);
  }

  private u32(v: number): void {
    this.room(4);
    this.slabPos = this.slab.writeUInt32BE(v, this.slabPos);
  }

  private windowUpdate(id: number, inc: number): void {
    this.head(4, WINDOW_UPDATE, 0, id);
    this.u32(inc);
    this.scheduleFlush();
  }

  private rst(id: number, code: number): void {
    this.head(4, RST_STREAM, 0, id);
    this.u32(code);
    this.scheduleFlush();
  }

  /** Last stream id 0: we never accept server-initiated streams. */
  private goawayFrame(code: number): void {
    this.head(8, GOAWAY, 0, 0);
    this.u32(0);
    this.u32(code);
  }

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    process.nextTick(this.flushCb); // after the current burst of requests and responses: one write per tick
  }

  private flush(): void {
    this.flushQueued = false;
    this.seal();
    const out = this.out;
    if (out.length === 0 || this.socket.destroyed || this.socket.writableEnded) return void (out.length = 0);
    if (this.slab.length - this.slabPos < 1024) (this.slab = Buffer.allocUnsafe(SLAB)), (this.slabStart = this.slabPos = this.mark = 0);
    if (out.length === 1) this.socket.write(out[0]!);
    else {
      this.socket.cork();
      for (const b of out) this.socket.write(b);
      this.socket.uncork();
    }
    this.out = [];
  }

  // ---- receiving

  private onData(chunk: Buffer): void {
    if (this.dead) return;
    let off = 0;
    const end = chunk.length;
    let p = this.pend;
    if (p !== null) {
      let have = this.pendLen;
      if (have < 9) {
        off = chunk.copy(p, have, 0, Math.min(9 - have, end));
        if ((have += off) < 9) return void (this.pendLen = have);
        const len = (p[0]! << 16) | (p[1]! << 8) | p[2]!;
        if (len > MAX_FRAME_IN) return this.fail(FRAME_SIZE_ERROR, `frame of ${len} bytes exceeds MAX_FRAME_SIZE`);
        if (len > 0) (p = Buffer.allocUnsafe(9 + len)), this.pend!.copy(p, 0, 0, 9);
      }
      const n = chunk.copy(p, have, off, Math.min(end, off + p.length - have));
      off += n;
      if ((have += n) < p.length) return void ((this.pend = p), (this.pendLen = have));
      this.pend = null;
      this.frame(p, 0, p.length);
      if (this.dead) return;
    }
    while (end - off >= 9) {
      const len = (chunk[off]! << 16) | (chunk[off + 1]! << 8) | chunk[off + 2]!;
      if (len > MAX_FRAME_IN) return this.fail(FRAME_SIZE_ERROR, `frame of ${len} bytes exceeds MAX_FRAME_SIZE`);
      if (end - off - 9 < len) break;
      this.frame(chunk, off, off + 9 + len);
      if (this.dead) return;
      off += 9 + len;
    }
    if (off < end) {
      // Keep the incomplete frame; once its length is known, in a buffer of exactly its size (one copy per byte).
      const size = end - off < 9 ? 9 : 9 + ((chunk[off]! << 16) | (chunk[off + 1]! << 8) | chunk[off + 2]!);
      this.pend = Buffer.allocUnsafe(size);
      this.pendLen = chunk.copy(this.pend, 0, off, end);
    }
  }

  private frame(b: Buffer, off: number, end: number): void {
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
        if (id !== 0) return this.fail(PROTOCOL_ERROR, 'SETTINGS on a stream');
        if (flags & ACK) return len === 0 ? undefined : this.fail(FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
        if (len % 6 !== 0) return this.fail(FRAME_SIZE_ERROR, 'SETTINGS length not a multiple of 6');
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
        this.head(0, SETTINGS, ACK, 0);
        this.scheduleFlush();
        this.startQueued();
        return this.unblock();
      case PUSH_PROMISE:
        return this.fail(PROTOCOL_ERROR, 'PUSH_PROMISE although SETTINGS_ENABLE_PUSH is 0');
      case PING:
        if (len !== 8 || id !== 0) return this.fail(len !== 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, 'malformed PING');
        if (flags & ACK) return;
        this.head(8, PING, ACK, 0);
        this.bytes(b.subarray(p, end));
        return this.scheduleFlush();
      case GOAWAY: {
        if (len < 8 || id !== 0) return this.fail(len < 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, 'malformed GOAWAY');
        const last = b.readUInt32BE(p) & 0x7fffffff;
        const debug = b.toString('utf8', p + 8, end);
        this.goaway = `GOAWAY from server: ${errName(b.readUInt32BE(p + 4))}${debug ? ` "${debug}"` : ''}`;
        for (const s of [...this.streams.values()]) if (s.id > last) this.drop(s, `${this.goaway}; stream ${s.id} was not processed (last stream id ${last})`);
        for (let i = this.queueHead; i < this.queue.length; i++) this.queue[i]!.reject(new Error(`${this.goaway}; request was not sent`));
        this.queue = [];
        this.queueHead = 0;
        return;
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

  private finish(s: Stream): void {
    this.streams.delete(s.id);
    if (!s.localDone) this.rst(s.id, CANCEL); // complete response before all of our body was sent: stop sending
    s.resolve({ status: s.status, body: s.chunks !== null ? Buffer.concat(s.chunks, s.length) : (s.first ?? EMPTY) });
    if (this.queueHead < this.queue.length) this.startQueued();
  }

  private drop(s: Stream, message: string): void {
    this.streams.delete(s.id);
    s.reject(new Error(message));
    if (this.queueHead < this.queue.length) this.startQueued();
  }

  private streamError(s: Stream, code: number, message: string): void {
    this.rst(s.id, code);
    this.drop(s, message);
  }

  /** A connection error (5.4.1): GOAWAY, reject everything, close. */
  private fail(code: number, message: string): void {
    if (this.dead) return;
    this.goawayFrame(code);
    this.flush();
    this.teardown(`HTTP/2 connection error ${errName(code)}: ${message}`);
    this.socket.destroySoon();
  }

  private teardown(message: string): void {
    if (this.dead) return;
    this.dead = new Error(message);
    const pending = [...this.streams.values(), ...this.queue.slice(this.queueHead)];
    this.streams.clear();
    this.queue = [];
    this.queueHead = 0;
    this.blockedStreams = [];
    for (const s of pending) s.reject(new Error(message));
  }
}
