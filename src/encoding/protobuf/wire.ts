/**
 * A minimal protobuf wire layer (varints, fixed64, length-delimited fields) and the descriptor types of the
 * schema-driven codec (codec.ts), for the reference server's protobuf form of built-in objects (spec 4.4). No
 * protobuf library at run time: the descriptors (descriptors.ts, generated from the reference `.proto` files)
 * name each JSON field's public field number and type.
 *
 * Codec rules, chosen to read back the way the reference's own decoder and JSON encoder would:
 * - fields are written in field-number order, map entries sorted by key (the reference's deterministic order);
 * - only fields present in the JSON object are written (null and undefined are absent); JSON fields that no
 *   descriptor names are dropped, since protobuf has no place for them;
 * - on decode, a scalar equal to its zero value ('' / 0 / false) is dropped unless the field is marked `keep`
 *   (a pointer or non-omitempty field of the reference), because the reference writes every non-pointer field
 *   and its JSON form then omits the empty ones; raw JSON and unions are kept as sent (`default: false`).
 */
import { badRequest } from '../../errors/index.js';

export type ScalarType =
  | 'string'
  | 'int32'
  | 'int64'
  | 'bool'
  | 'bytes'
  | 'double'
  | 'message'
  | 'time'
  | 'microtime'
  | 'intorstring'
  | 'quantity'
  | 'rawextension'
  /** A message holding only `repeated string items = 1`, written in JSON as the array itself. */
  | 'stringlist'
  /**
   * A message the reference writes in JSON as one of its members (JSONSchemaProps' `items`,
   * `additionalProperties`, `dependencies`): its message member as an object, its repeated member as an
   * array, its bool member as a boolean. `message` names it.
   */
  | 'union';
export type FieldType = ScalarType | 'map';

export interface FieldDescriptor {
  no: number;
  type: FieldType;
  /** Descriptor name of a `message` field (or of the map value when it is a message). */
  message?: string;
  repeated?: boolean;
  /** Map values; keys are always strings. */
  mapValue?: { type: ScalarType; message?: string };
  /** Keep the zero value on decode (pointer or non-omitempty field of the reference). */
  keep?: boolean;
  /** An embedded struct whose fields appear inline in JSON (e.g. Volume.volumeSource). */
  inline?: boolean;
}

/** JSON field name -> field. */
export type MessageDescriptor = Record<string, FieldDescriptor>;
export type DescriptorSet = Record<string, MessageDescriptor>;

export const WT_VARINT = 0;
export const WT_FIXED64 = 1;
export const WT_LEN = 2;
const WT_FIXED32 = 5;

const fail = (what: string) => badRequest(`protobuf: ${what}`);

export class ProtoWriter {
  private buf = Buffer.allocUnsafe(256);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Unsigned varint; negative numbers are written as their 64-bit two's complement (ten bytes), as protobuf does. */
  varint(n: number): this {
    if (n < 0 || !Number.isSafeInteger(n)) return this.bigVarint(BigInt.asUintN(64, BigInt(Math.trunc(n))));
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
    return this;
  }

  private bigVarint(v: bigint): this {
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }

  tag(no: number, wireType: number): this {
    return this.varint(no * 8 + wireType);
  }

  /** Length-delimited bytes. */
  bytes(b: Uint8Array): this {
    this.varint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  string(s: string): this {
    return this.bytes(Buffer.from(s, 'utf8'));
  }

  double(d: number): this {
    this.ensure(8);
    this.buf.writeDoubleLE(d, this.pos);
    this.pos += 8;
    return this;
  }

  /** Bytes copied as they are (no length prefix). */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

export class ProtoReader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  eof(): boolean {
    return this.pos >= this.buf.length;
  }

  /** A varint read as a signed 64-bit integer (precise up to 2^53). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw fail('unexpected end of data in a varint');
      if (i === 7) return this.longVarint(this.pos - 8);
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 0x80;
    }
    throw fail('varint longer than ten bytes');
  }

  /** Varints of eight or more bytes go through BigInt so that negative int64 values come back signed. */
  private longVarint(start: number): number {
    this.pos = start;
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw fail('unexpected end of data in a varint');
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return Number(BigInt.asIntN(64, v));
    }
    throw fail('varint longer than ten bytes');
  }

  tag(): { no: number; wireType: number } {
    const t = this.varint();
    const no = Math.floor(t / 8);
    if (no < 1) throw fail(`invalid field number ${no}`);
    return { no, wireType: t % 8 };
  }

  bytes(): Uint8Array {
    const len = this.varint();
    if (len < 0 || this.pos + len > this.buf.length) throw fail('length-delimited field runs past the end of the data');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  string(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  double(): number {
    if (this.pos + 8 > this.buf.length) throw fail('unexpected end of data in a fixed64');
    const d = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, 8).readDoubleLE(0);
    this.pos += 8;
    return d;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WT_VARINT:
        this.varint();
        return;
      case WT_FIXED64:
        this.advance(8);
        return;
      case WT_LEN:
        this.bytes();
        return;
      case WT_FIXED32:
        this.advance(4);
        return;
      default:
        throw fail(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (this.pos + n > this.buf.length) throw fail('unexpected end of data');
    this.pos += n;
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 string as {seconds, nanos} since the epoch; undefined when it does not parse. */
export function parseTimestamp(s: string): { seconds: number; nanos: number } | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[3] ?? '').padEnd(9, '0').slice(0, 9)) };
}

/** The reference's Time JSON form (seconds, UTC) or MicroTime form (six fraction digits). */
export function formatTimestamp(seconds: number, nanos: number, micro: boolean): string {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}
