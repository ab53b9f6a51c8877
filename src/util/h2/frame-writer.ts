/**
 * Outgoing HTTP/2 frames (RFC 9113 section 4), built in place in a slab and written to the socket once per
 * tick: a burst of requests and acknowledgements costs one socket write, not one per frame.
 */
import type { TLSSocket } from 'node:tls';
import { writeStr } from './hpack.js';

export const DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
export const END_STREAM = 1, ACK = 1, END_HEADERS = 4, PADDED = 8, PRIORITY = 0x20;
export const PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3, FRAME_SIZE_ERROR = 6, CANCEL = 8, COMPRESSION_ERROR = 9;
const ERRORS = ['NO_ERROR', 'PROTOCOL_ERROR', 'INTERNAL_ERROR', 'FLOW_CONTROL_ERROR', 'SETTINGS_TIMEOUT', 'STREAM_CLOSED', 'FRAME_SIZE_ERROR',
  'REFUSED_STREAM', 'CANCEL', 'COMPRESSION_ERROR', 'CONNECT_ERROR', 'ENHANCE_YOUR_CALM', 'INADEQUATE_SECURITY', 'HTTP_1_1_REQUIRED'];
/** An HTTP/2 error code as messages show it. */
export const errName = (code: number) => `${ERRORS[code] ?? 'UNKNOWN'} (${code})`;

const SLAB = 64 * 1024;

export class FrameWriter {
  // [slabStart, slabPos) is not yet handed to the socket; `mark` starts the frame being built. Regions handed
  // to the socket are never reused (it may still hold them): a full slab is replaced, not rewound.
  private slab = Buffer.allocUnsafe(SLAB);
  private slabStart = 0;
  private slabPos = 0;
  private mark = 0;
  private out: Buffer[] = [];
  private flushQueued = false;
  private readonly flushCb = () => this.flush();

  constructor(private readonly socket: TLSSocket) {}

  /** Starts a frame; its length may be fixed later by `endHeaderBlock`. */
  head(len: number, type: number, flags: number, id: number): void {
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

  bytes(src: Buffer): void {
    this.room(src.length);
    this.slabPos += src.copy(this.slab, this.slabPos);
  }

  u32(v: number): void {
    this.room(4);
    this.slabPos = this.slab.writeUInt32BE(v, this.slabPos);
  }

  /** A `:path` field as a literal without indexing (static name index 4): paths rarely repeat exactly. */
  pathField(path: string): void {
    this.room(path.length * 3 + 8);
    this.slab[this.slabPos++] = 0x04;
    this.slabPos = writeStr(this.slab, this.slabPos, path);
  }

  /**
   * Closes the HEADERS frame started last: its length is set, or, when the block is over the peer's frame
   * size (rare), it is sent as HEADERS plus CONTINUATION frames.
   */
  endHeaderBlock(id: number, endStream: boolean, maxFrame: number): void {
    const len = this.slabPos - this.mark - 9;
    if (len <= maxFrame) {
      this.slab.writeUIntBE(len, this.mark, 3);
    } else {
      const block = Buffer.from(this.slab.subarray(this.mark + 9, this.slabPos));
      this.slabPos = this.mark;
      for (let off = 0; off < block.length; off += maxFrame) {
        const n = Math.min(maxFrame, block.length - off);
        const last = off + n === block.length ? END_HEADERS : 0;
        this.head(n, off === 0 ? HEADERS : CONTINUATION, off === 0 && endStream ? last | END_STREAM : last, id);
        this.bytes(block.subarray(off, off + n));
      }
    }
    this.mark = this.slabPos;
  }

  /** A DATA payload: small ones are copied into the slab, large ones go to the socket as they are. */
  payload(chunk: Buffer): void {
    if (chunk.length <= 2048) return this.bytes(chunk);
    this.seal();
    this.out.push(chunk);
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

  scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    process.nextTick(this.flushCb);
  }

  flush(): void {
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
}
