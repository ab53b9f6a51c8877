/**
 * The few protobuf (proto3) wire shapes the KMS messages use: strings, bytes, a small enum, and
 * map<string, bytes>. Hand-written because the stored envelope is decoded on every read of an encrypted
 * object, and because a malformed stored value must become a clear error, never a crash.
 */

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** A malformed message; the caller adds which message it was reading. */
export class WireError extends Error {}

/** Accumulates encoded fields; proto3 leaves default values (empty, zero) out. */
export class WireWriter {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.length;
  }

  private varint(n: number): void {
    const out: number[] = [];
    let v = n;
    while (v > 0x7f) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(v);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, value: Uint8Array | undefined): this {
    if (!value || value.length === 0) return this;
    this.tag(field, WIRE_LEN);
    this.varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value ? this.bytes(field, utf8.encode(value)) : this;
  }

  uint(field: number, value: number | undefined): this {
    if (!value) return this;
    this.tag(field, WIRE_VARINT);
    this.varint(value);
    return this;
  }

  /** A map<string, bytes>: one length-delimited entry per pair, key as field 1 and value as field 2. */
  stringBytesMap(field: number, map: Readonly<Record<string, Uint8Array>> | undefined): this {
    if (!map) return this;
    for (const key of Object.keys(map).sort()) {
      const entry = new WireWriter().string(1, key).bytes(2, map[key]).finish();
      this.tag(field, WIRE_LEN);
      this.varint(entry.length);
      this.push(entry);
    }
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

/** One field as read: varints as numbers, length-delimited fields as views into the input. */
export type WireField = { field: number; wire: typeof WIRE_VARINT; value: number } | { field: number; wire: typeof WIRE_LEN; value: Uint8Array };

/** Walks the fields of one message; fixed-width fields are skipped since no KMS message uses them. */
export function* readFields(buf: Uint8Array): Generator<WireField> {
  let at = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= buf.length) throw new WireError('truncated varint');
      const b = buf[at++] as number;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(result)) throw new WireError('varint out of range');
        return result;
      }
      scale *= 128;
    }
    throw new WireError('varint longer than 10 bytes');
  };
  while (at < buf.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new WireError('field number 0');
    if (wire === WIRE_VARINT) {
      yield { field, wire, value: varint() };
    } else if (wire === WIRE_LEN) {
      const len = varint();
      if (len > buf.length - at) throw new WireError(`field ${field} runs past the end of the message`);
      yield { field, wire, value: buf.subarray(at, at + len) };
      at += len;
    } else if (wire === WIRE_I64 || wire === WIRE_I32) {
      const width = wire === WIRE_I64 ? 8 : 4;
      if (width > buf.length - at) throw new WireError(`field ${field} runs past the end of the message`);
      at += width;
    } else {
      throw new WireError(`unsupported wire type ${wire} in field ${field}`);
    }
  }
}

/** The value of a length-delimited field; a field of another wire type is a malformed message. */
export function lenValue(f: WireField): Uint8Array {
  if (f.wire !== WIRE_LEN) throw new WireError(`field ${f.field} should be length-delimited`);
  return f.value;
}

export function varintValue(f: WireField): number {
  if (f.wire !== WIRE_VARINT) throw new WireError(`field ${f.field} should be a varint`);
  return f.value;
}

export function stringValue(f: WireField): string {
  try {
    return utf8Strict.decode(lenValue(f));
  } catch (e) {
    if (e instanceof WireError) throw e;
    throw new WireError(`field ${f.field} is not valid UTF-8`);
  }
}

/** Reads one map<string, bytes> entry into `into` (a later entry for the same key wins, as protobuf says). */
export function readStringBytesEntry(f: WireField, into: Record<string, Uint8Array>): void {
  let key = '';
  let value: Uint8Array = new Uint8Array(0);
  for (const inner of readFields(lenValue(f))) {
    if (inner.field === 1) key = stringValue(inner);
    else if (inner.field === 2) value = lenValue(inner);
  }
  into[key] = value;
}
