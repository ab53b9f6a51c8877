/**
 * The schema-driven codec: plain JSON objects to and from protobuf messages described by `MessageDescriptor`s
 * (the rules are in wire.ts's header comment).
 */
import { badRequest } from '../../errors/index.js';
import {
  formatTimestamp,
  parseTimestamp,
  ProtoReader,
  ProtoWriter,
  WT_FIXED64,
  WT_LEN,
  WT_VARINT,
  type DescriptorSet,
  type FieldDescriptor,
  type ScalarType,
} from './wire.js';

const fail = (what: string) => badRequest(`protobuf: ${what}`);

/** Wire type each field type is written with. */
const wireTypeOf = (t: ScalarType): number =>
  t === 'int32' || t === 'int64' || t === 'bool' ? WT_VARINT : t === 'double' ? WT_FIXED64 : WT_LEN;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isZero = (v: unknown) => v === '' || v === 0 || v === false;
/** Types whose decoded zero is a value the sender chose (raw JSON `false`, `additionalProperties: false`). */
const keepsZero = (t: ScalarType | 'map') => t === 'rawextension' || t === 'union';
/** int32 fields come back as 32-bit signed values whatever width the sender used. */
const toInt32 = (n: number) => Number(BigInt.asIntN(32, BigInt(n)));

interface Compiled {
  /** Fields in field-number order, for writing. */
  ordered: [string, FieldDescriptor][];
  byNumber: Map<number, [string, FieldDescriptor]>;
  /** As a union (wire.ts `union`): the JSON names of its object, array and boolean members. */
  members: { object?: string; array?: string; bool?: string };
}

/** Encodes and decodes plain JSON objects with a set of message descriptors. */
export class ProtoCodec {
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly set: DescriptorSet) {}

  private get(name: string): Compiled {
    let c = this.compiled.get(name);
    if (c) return c;
    const d = this.set[name];
    if (!d) throw new Error(`protobuf: no descriptor named ${name}`);
    const ordered = Object.entries(d).sort((a, b) => a[1].no - b[1].no);
    const members: Compiled['members'] = {};
    for (const [json, fd] of ordered) {
      if (fd.repeated) members.array ??= json;
      else if (fd.type === 'bool') members.bool ??= json;
      else if (fd.type === 'message') members.object ??= json;
    }
    c = { ordered, byNumber: new Map(ordered.map((e) => [e[1].no, e])), members };
    this.compiled.set(name, c);
    return c;
  }

  encode(name: string, obj: Record<string, unknown>): Buffer {
    const w = new ProtoWriter();
    for (const [json, fd] of this.get(name).ordered) {
      if (fd.inline) {
        // The reference always writes embedded structs, even when none of their fields is set.
        w.tag(fd.no, WT_LEN).bytes(this.encode(fd.message!, obj));
        continue;
      }
      const v = obj[json];
      if (v === undefined || v === null) continue;
      if (fd.type === 'map') {
        if (isRecord(v)) this.writeMap(w, fd, v);
      } else if (fd.repeated) {
        if (Array.isArray(v)) for (const el of v) if (el !== null && el !== undefined) this.writeValue(w, fd.no, fd.type, fd.message, el);
      } else {
        this.writeValue(w, fd.no, fd.type, fd.message, v);
      }
    }
    return w.finish();
  }

  private writeMap(w: ProtoWriter, fd: FieldDescriptor, v: Record<string, unknown>): void {
    const value = fd.mapValue ?? { type: 'string' as const };
    for (const key of Object.keys(v).sort()) {
      const val = v[key];
      if (val === undefined || val === null) continue;
      const entry = new ProtoWriter();
      entry.tag(1, WT_LEN).string(key);
      this.writeValue(entry, 2, value.type, value.message, val);
      w.tag(fd.no, WT_LEN).bytes(entry.finish());
    }
  }

  /** Writes one value; values of the wrong JSON type are skipped (they cannot be represented). */
  private writeValue(w: ProtoWriter, no: number, type: ScalarType, message: string | undefined, v: unknown): void {
    switch (type) {
      case 'string':
        if (typeof v === 'string') w.tag(no, WT_LEN).string(v);
        return;
      case 'bytes':
        if (typeof v === 'string') w.tag(no, WT_LEN).bytes(Buffer.from(v, 'base64'));
        return;
      case 'int32':
      case 'int64':
        if (typeof v === 'number' && Number.isFinite(v)) w.tag(no, WT_VARINT).varint(Math.trunc(v));
        return;
      case 'bool':
        if (typeof v === 'boolean') w.tag(no, WT_VARINT).varint(v ? 1 : 0);
        return;
      case 'double':
        if (typeof v === 'number') w.tag(no, WT_FIXED64).double(v);
        return;
      case 'message':
        if (isRecord(v)) w.tag(no, WT_LEN).bytes(this.encode(message!, v));
        return;
      case 'time':
      case 'microtime': {
        const t = typeof v === 'string' ? parseTimestamp(v) : undefined;
        // Both fields are always written, as the reference does; an empty message would mean the zero time.
        if (t) w.tag(no, WT_LEN).bytes(new ProtoWriter().tag(1, WT_VARINT).varint(t.seconds).tag(2, WT_VARINT).varint(t.nanos).finish());
        return;
      }
      case 'intorstring': {
        const s = new ProtoWriter();
        if (typeof v === 'number') s.tag(1, WT_VARINT).varint(0).tag(2, WT_VARINT).varint(Math.trunc(v)).tag(3, WT_LEN).string('');
        else if (typeof v === 'string') s.tag(1, WT_VARINT).varint(1).tag(2, WT_VARINT).varint(0).tag(3, WT_LEN).string(v);
        else return;
        w.tag(no, WT_LEN).bytes(s.finish());
        return;
      }
      case 'quantity':
        if (typeof v === 'string' || typeof v === 'number') w.tag(no, WT_LEN).bytes(new ProtoWriter().tag(1, WT_LEN).string(String(v)).finish());
        return;
      case 'rawextension':
        w.tag(no, WT_LEN).bytes(new ProtoWriter().tag(1, WT_LEN).string(JSON.stringify(v)).finish());
        return;
      case 'stringlist': {
        if (!Array.isArray(v)) return;
        const list = new ProtoWriter();
        for (const s of v) if (typeof s === 'string') list.tag(1, WT_LEN).string(s);
        w.tag(no, WT_LEN).bytes(list.finish());
        return;
      }
      case 'union': {
        const fields = this.unionFields(message!, v);
        if (fields) w.tag(no, WT_LEN).bytes(this.encode(message!, fields));
        return;
      }
    }
  }

  /** The message form of a union's JSON value; an object also sets the boolean member, as the reference reads it. */
  private unionFields(name: string, v: unknown): Record<string, unknown> | undefined {
    const { object, array, bool } = this.get(name).members;
    if (isRecord(v) && object) return { [object]: v, ...(bool ? { [bool]: true } : {}) };
    if (Array.isArray(v) && array) return { [array]: v };
    if (typeof v === 'boolean' && bool) return { [bool]: v };
    return undefined;
  }

  /** The JSON value of a union: its array if not empty, else its object, else its boolean. */
  private unionValue(name: string, buf: Uint8Array): unknown {
    const { object, array, bool } = this.get(name).members;
    const m = this.decode(name, buf);
    if (array && Array.isArray(m[array]) && m[array].length > 0) return m[array];
    if (object && m[object] !== undefined) return m[object];
    if (bool) return m[bool] === true;
    return undefined;
  }

  decode(name: string, buf: Uint8Array): Record<string, unknown> {
    const { byNumber } = this.get(name);
    const out: Record<string, unknown> = {};
    const r = new ProtoReader(buf);
    while (!r.eof()) {
      const { no, wireType } = r.tag();
      const entry = byNumber.get(no);
      if (!entry) {
        r.skip(wireType); // unknown fields (newer reference versions) are ignored, as protobuf intends
        continue;
      }
      const [json, fd] = entry;
      const where = `field ${json} (${no}) of ${name}`;
      if (fd.inline) {
        expectWireType(wireType, WT_LEN, where);
        Object.assign(out, this.decode(fd.message!, r.bytes()));
      } else if (fd.type === 'map') {
        expectWireType(wireType, WT_LEN, where);
        const [key, val] = this.readMapEntry(r.bytes(), fd, where);
        const m = (isRecord(out[json]) ? out[json] : (out[json] = {})) as Record<string, unknown>;
        // defineProperty: a key such as "__proto__" must become an own entry, as JSON.parse makes it.
        Object.defineProperty(m, key, { value: val, enumerable: true, writable: true, configurable: true });
      } else if (fd.repeated) {
        const list = (Array.isArray(out[json]) ? out[json] : (out[json] = [])) as unknown[];
        if (wireType === WT_LEN && wireTypeOf(fd.type) === WT_VARINT) {
          // Packed repeated scalars: accepted on input although the reference (proto2) never packs.
          const packed = new ProtoReader(r.bytes());
          while (!packed.eof()) list.push(this.readValue(packed, WT_VARINT, fd.type, fd.message, where) ?? 0);
        } else {
          list.push(this.readValue(r, wireType, fd.type, fd.message, where) ?? zeroOf(fd.type));
        }
      } else {
        const v = this.readValue(r, wireType, fd.type, fd.message, where);
        if (v === undefined || (isZero(v) && !fd.keep && !keepsZero(fd.type))) delete out[json];
        else out[json] = v;
      }
    }
    return out;
  }

  private readMapEntry(buf: Uint8Array, fd: FieldDescriptor, where: string): [string, unknown] {
    const value = fd.mapValue ?? { type: 'string' as const };
    const r = new ProtoReader(buf);
    let key = '';
    let val: unknown;
    while (!r.eof()) {
      const { no, wireType } = r.tag();
      if (no === 1) {
        expectWireType(wireType, WT_LEN, where);
        key = r.string();
      } else if (no === 2) {
        val = this.readValue(r, wireType, value.type, value.message, where);
      } else r.skip(wireType);
    }
    return [key, val ?? zeroOf(value.type)];
  }

  private readValue(r: ProtoReader, wireType: number, type: ScalarType, message: string | undefined, where: string): unknown {
    expectWireType(wireType, wireTypeOf(type), where);
    switch (type) {
      case 'string':
        return r.string();
      case 'bytes':
        return Buffer.from(r.bytes()).toString('base64');
      case 'int32':
        return toInt32(r.varint());
      case 'int64':
        return r.varint();
      case 'bool':
        return r.varint() !== 0;
      case 'double':
        return r.double();
      case 'message':
        return this.decode(message!, r.bytes());
      case 'time':
      case 'microtime':
        return readTimestamp(r.bytes(), type === 'microtime', where);
      case 'intorstring':
        return readIntOrString(r.bytes(), where);
      case 'quantity': {
        const q = readFields(r.bytes(), where);
        return typeof q[1] === 'string' && q[1] !== '' ? q[1] : '0';
      }
      case 'union':
        return this.unionValue(message!, r.bytes());
      case 'stringlist': {
        const list: string[] = [];
        const items = new ProtoReader(r.bytes());
        while (!items.eof()) {
          const t = items.tag();
          if (t.no === 1 && t.wireType === WT_LEN) list.push(items.string());
          else items.skip(t.wireType);
        }
        return list;
      }
      case 'rawextension': {
        const raw = readFields(r.bytes(), where)[1];
        if (raw === undefined || raw === '') return undefined;
        try {
          return JSON.parse(String(raw)) as unknown;
        } catch {
          throw fail(`${where} does not hold JSON`);
        }
      }
    }
  }
}

function expectWireType(actual: number, expected: number, where: string): void {
  if (actual !== expected) throw fail(`${where} has wire type ${actual}, expected ${expected}`);
}

function zeroOf(type: ScalarType): unknown {
  if (type === 'int32' || type === 'int64' || type === 'double') return 0;
  if (type === 'bool') return false;
  if (type === 'message') return {};
  if (type === 'quantity') return '0';
  if (type === 'stringlist') return [];
  if (type === 'union' || type === 'rawextension') return null;
  return '';
}

/** Fields 1..3 of a small helper message: varints as numbers, length-delimited ones as UTF-8 strings. */
function readFields(buf: Uint8Array, where: string): Record<number, number | string> {
  const out: Record<number, number | string> = {};
  const r = new ProtoReader(buf);
  while (!r.eof()) {
    const { no, wireType } = r.tag();
    if (wireType === WT_VARINT) out[no] = r.varint();
    else if (wireType === WT_LEN) out[no] = r.string();
    else {
      if (no <= 3) throw fail(`${where}: unexpected wire type ${wireType}`);
      r.skip(wireType);
    }
  }
  return out;
}

/** An empty message is the reference's zero time, which its JSON form omits. */
function readTimestamp(buf: Uint8Array, micro: boolean, where: string): string | undefined {
  if (buf.length === 0) return undefined;
  const f = readFields(buf, where);
  const seconds = typeof f[1] === 'number' ? f[1] : 0;
  const nanos = typeof f[2] === 'number' ? f[2] : 0;
  if (!Number.isFinite(new Date(seconds * 1000).getTime())) throw fail(`${where}: timestamp out of range`);
  return formatTimestamp(seconds, nanos, micro);
}

function readIntOrString(buf: Uint8Array, where: string): number | string {
  const f = readFields(buf, where);
  if (f[1] === 1) return typeof f[3] === 'string' ? f[3] : '';
  return typeof f[2] === 'number' ? toInt32(f[2]) : 0;
}
