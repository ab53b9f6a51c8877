/**
 * Copies of small stored values, packed into 8 KiB slabs that only the cache uses. A Buffer of its own per
 * value would cost a backing store each (most of a 1 KiB object's overhead in a large cache); Node's
 * shared Buffer pool would mix cached values with short-lived request buffers, so one long-lived value
 * could keep a slab of garbage alive. A slab is freed once no value in it is referenced.
 */
export class ValueSlab {
  private slab: Buffer = Buffer.allocUnsafeSlow(0);
  private offset = 0;

  constructor(
    private readonly slabSize = 8 * 1024,
    /** Values this large or larger keep their own memory (copying them would not save a backing store). */
    private readonly maxCopy = 4 * 1024,
  ) {}

  /** `value` itself when it is large, else a copy of it in the current slab. */
  copy(value: Uint8Array): Uint8Array {
    const n = value.length;
    if (n >= this.maxCopy) return value;
    if (n > this.slab.length - this.offset) {
      this.slab = Buffer.allocUnsafeSlow(this.slabSize);
      this.offset = 0;
    }
    const out = this.slab.subarray(this.offset, this.offset + n);
    out.set(value);
    this.offset = (this.offset + n + 7) & ~7; // 8-byte aligned, as Node's pool does
    return out;
  }
}
