/**
 * Incoming HTTP/2 frames (RFC 9113 section 4.1): socket chunks cut into whole frames. A frame that lies
 * within one chunk is handed on as a view of that chunk (no copy); one split across chunks is collected in
 * a buffer of the frame's exact size, so every byte is copied at most once.
 */

/** Our SETTINGS_MAX_FRAME_SIZE (the protocol's default, which we never raise). */
export const MAX_FRAME_IN = 16384;

export class FrameReader {
  // A frame split across socket chunks, collected in a buffer of the frame's exact size (9 bytes until known).
  private pend: Buffer | null = null;
  private pendLen = 0;
  private stopped = false;

  /**
   * `onFrame` gets one whole frame, header included, as `b[off, end)`; `onTooLarge` a frame length over
   * MAX_FRAME_IN, after which nothing more is read from that chunk.
   */
  constructor(
    private readonly onFrame: (b: Buffer, off: number, end: number) => void,
    private readonly onTooLarge: (len: number) => void,
  ) {}

  /** No more frames are handed on, not even the rest of the current chunk (the connection failed). */
  stop(): void {
    this.stopped = true;
    this.pend = null;
  }

  push(chunk: Buffer): void {
    if (this.stopped) return;
    let off = 0;
    const end = chunk.length;
    let p = this.pend;
    if (p !== null) {
      let have = this.pendLen;
      if (have < 9) {
        off = chunk.copy(p, have, 0, Math.min(9 - have, end));
        if ((have += off) < 9) return void (this.pendLen = have);
        const len = (p[0]! << 16) | (p[1]! << 8) | p[2]!;
        if (len > MAX_FRAME_IN) return this.onTooLarge(len);
        if (len > 0) (p = Buffer.allocUnsafe(9 + len)), this.pend!.copy(p, 0, 0, 9);
      }
      const n = chunk.copy(p, have, off, Math.min(end, off + p.length - have));
      off += n;
      if ((have += n) < p.length) return void ((this.pend = p), (this.pendLen = have));
      this.pend = null;
      this.onFrame(p, 0, p.length);
      if (this.stopped) return;
    }
    while (end - off >= 9) {
      const len = (chunk[off]! << 16) | (chunk[off + 1]! << 8) | chunk[off + 2]!;
      if (len > MAX_FRAME_IN) return this.onTooLarge(len);
      if (end - off - 9 < len) break;
      this.onFrame(chunk, off, off + 9 + len);
      if (this.stopped) return;
      off += 9 + len;
    }
    if (off < end) {
      const size = end - off < 9 ? 9 : 9 + ((chunk[off]! << 16) | (chunk[off + 1]! << 8) | chunk[off + 2]!);
      this.pend = Buffer.allocUnsafe(size);
      this.pendLen = chunk.copy(this.pend, 0, off, end);
    }
  }
}
