/**
 * HPACK (RFC 7541) for the lean HTTP/2 client (client.ts): a complete decoder (static and dynamic table,
 * Huffman strings, table size updates) and an encoder that never uses the dynamic table, so the client has no
 * encoder state to keep in sync and can cache the bytes of header fields it sends again and again.
 */

/** RFC 7541 Appendix A; index i + 1. */
export const STATIC_TABLE: readonly (readonly [string, string])[] = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''], ['etag', ''],
  ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''], ['if-modified-since', ''],
  ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''],
  ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''], ['via', ''],
  ['www-authenticate', ''],
];

/**
 * Appendix B code lengths by symbol (256 = EOS). The table is a canonical Huffman code (codes of one length are
 * consecutive, in symbol order, and follow the shorter ones), so the lengths alone determine every code.
 */
const HUFF_LEN = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];

/** The Appendix B codes (right-aligned), derived from HUFF_LEN; exported so tests can check them against the RFC. */
export const HUFF_CODES: readonly number[] = (() => {
  const syms = HUFF_LEN.map((_, s) => s).sort((a, b) => HUFF_LEN[a]! - HUFF_LEN[b]! || a - b);
  const codes: number[] = new Array(257);
  let code = 0;
  let len = HUFF_LEN[syms[0]!]!;
  for (const s of syms) {
    code *= 2 ** (HUFF_LEN[s]! - len);
    len = HUFF_LEN[s]!;
    codes[s] = code++;
  }
  return codes;
})();

// Huffman decoding is a state machine over 4-bit nibbles: a state is an internal node of the code tree (256 of
// them), and each (state, nibble) entry gives the next state, at most one emitted symbol (codes are >= 5 bits),
// and whether the string may end there (padding is a < 8 bit prefix of EOS, i.e. all ones).
const EMIT = 1 << 16;
const FAIL = 1 << 17;
const ACCEPT = 1 << 18;
const HUFF_STATES = (() => {
  const kids = new Int32Array(512); // kids[2 * node + bit]: 0 = none, < 0 = leaf -(symbol + 1)
  const ones = new Uint8Array(256);
  const depth = new Uint8Array(256);
  ones[0] = 1;
  let nodes = 1;
  for (let s = 0; s <= 256; s++) {
    const len = HUFF_LEN[s]!;
    const code = HUFF_CODES[s]!;
    let node = 0;
    for (let i = len - 1; i > 0; i--) {
      const bit = Math.floor(code / 2 ** i) & 1;
      let c = kids[2 * node + bit]!;
      if (c === 0) {
        c = nodes++;
        kids[2 * node + bit] = c;
        ones[c] = ones[node]! & bit;
        depth[c] = depth[node]! + 1;
      }
      node = c;
    }
    kids[2 * node + (code & 1)] = -(s + 1);
  }
  const t = new Uint32Array(256 * 16);
  for (let state = 0; state < nodes; state++) {
    for (let nib = 0; nib < 16; nib++) {
      let node = state;
      let e = 0;
      for (let i = 3; i >= 0; i--) {
        const c = kids[2 * node + ((nib >> i) & 1)]!;
        if (c >= 0) node = c;
        else if (c === -257) e |= FAIL; // EOS inside a string is an error (5.2)
        else (e |= EMIT | ((-c - 1) << 8)), (node = 0);
      }
      if (node === 0 || (ones[node] && depth[node]! < 8)) e |= ACCEPT;
      t[(state << 4) | nib] = e | node;
    }
  }
  return t;
})();

/** Buffer's undocumented direct codecs: they skip toString()/write()'s encoding dispatch on the hot path. */
type RawBuffer = Buffer & { latin1Slice(start: number, end: number): string; utf8Write(s: string, offset: number, length: number): number };

let scratch = Buffer.allocUnsafe(1024) as RawBuffer;

/** Decodes a Huffman-coded string literal (bytes as latin1). */
export function huffmanDecode(src: Buffer, start: number, end: number): string {
  const max = Math.ceil(((end - start) * 8) / 5);
  if (scratch.length < max) scratch = Buffer.allocUnsafe(max * 2) as RawBuffer;
  const out = scratch;
  const T = HUFF_STATES;
  let n = 0;
  let e = ACCEPT;
  for (let i = start; i < end; i++) {
    const b = src[i]!;
    e = T[((e & 0xff) << 4) | (b >> 4)]!;
    if (e & (EMIT | FAIL)) {
      if (e & FAIL) throw new HpackError('EOS symbol in a Huffman string');
      out[n++] = e >> 8;
    }
    e = T[((e & 0xff) << 4) | (b & 15)]!;
    if (e & (EMIT | FAIL)) {
      if (e & FAIL) throw new HpackError('EOS symbol in a Huffman string');
      out[n++] = e >> 8;
    }
  }
  if (!(e & ACCEPT)) throw new HpackError('invalid Huffman padding');
  return out.latin1Slice(0, n);
}

/** Huffman-encodes a latin1 string (tests use it to exercise the decoder on every symbol). */
export function huffmanEncode(s: string): Buffer {
  const bytes = Buffer.from(s, 'latin1');
  let bits = 0;
  for (const b of bytes) bits += HUFF_LEN[b]!;
  const out = Buffer.alloc(Math.ceil(bits / 8));
  let acc = 0; // pending bits, at most 7 + 30, kept in a float-safe number
  let nacc = 0;
  let o = 0;
  for (const b of bytes) {
    acc = acc * 2 ** HUFF_LEN[b]! + HUFF_CODES[b]!;
    nacc += HUFF_LEN[b]!;
    while (nacc >= 8) {
      nacc -= 8;
      const byte = Math.floor(acc / 2 ** nacc);
      out[o++] = byte;
      acc -= byte * 2 ** nacc;
    }
  }
  if (nacc > 0) out[o] = (acc << (8 - nacc)) | (0xff >> nacc); // pad with the EOS prefix (all ones)
  return out;
}

/** A malformed header block: a connection error (COMPRESSION_ERROR) for the HTTP/2 layer. */
export class HpackError extends Error {}

/** Header block decoder with its dynamic table; one per connection, fed every header block in order. */
export class HpackDecoder {
  /** Dynamic table, oldest first from `head`; HPACK index 62 is the last element. */
  private names: string[] = [];
  private values: string[] = [];
  private head = 0;
  private pos = 0;
  /** Current table size in RFC 7541 terms (sum of name + value octets + 32 per entry). */
  size = 0;
  /** Current maximum, changed by dynamic table size updates, never above `limit`. */
  maxSize: number;

  /** `limit` is our SETTINGS_HEADER_TABLE_SIZE (4096 unless we advertise otherwise). */
  constructor(readonly limit = 4096) {
    this.maxSize = limit;
  }

  /** Dynamic table entries, newest (index 62) first. */
  get entries(): [string, string][] {
    const out: [string, string][] = [];
    for (let i = this.names.length - 1; i >= this.head; i--) out.push([this.names[i]!, this.values[i]!]);
    return out;
  }

  /** Decodes one complete header block; returns the fields as a flat [name, value, name, value, ...] list. */
  decode(buf: Buffer, start = 0, end = buf.length): string[] {
    const out: string[] = [];
    this.pos = start;
    while (this.pos < end) {
      const b = buf[this.pos]!;
      if (b & 0x80) {
        const i = this.int(buf, end, 7);
        if (i === 0) throw new HpackError('indexed header field with index 0');
        out.push(this.name(i), this.value(i));
      } else if (b & 0x40) {
        const i = this.int(buf, end, 6);
        const name = i === 0 ? this.str(buf, end) : this.name(i);
        const value = this.str(buf, end);
        this.add(name, value);
        out.push(name, value);
      } else if (b & 0x20) {
        // 4.2: size updates come first in a block
        if (out.length > 0) throw new HpackError('dynamic table size update after a header field');
        const n = this.int(buf, end, 5);
        if (n > this.limit) throw new HpackError(`dynamic table size update to ${n} above the limit ${this.limit}`);
        this.maxSize = n;
        this.evict(0);
      } else {
        // literal without indexing (0000) or never indexed (0001): same layout, no table change
        const i = this.int(buf, end, 4);
        const name = i === 0 ? this.str(buf, end) : this.name(i);
        out.push(name, this.str(buf, end));
      }
    }
    return out;
  }

  private int(buf: Buffer, end: number, bits: number): number {
    const mask = (1 << bits) - 1;
    let v = buf[this.pos++]! & mask;
    if (v < mask) return v;
    for (let m = 0; ; m += 7) {
      if (this.pos >= end) throw new HpackError('truncated integer');
      if (m > 21) throw new HpackError('integer too large');
      const b = buf[this.pos++]!;
      v += (b & 0x7f) << m;
      if (!(b & 0x80)) return v;
    }
  }

  private str(buf: Buffer, end: number): string {
    if (this.pos >= end) throw new HpackError('truncated string');
    const huff = buf[this.pos]! & 0x80;
    const len = this.int(buf, end, 7);
    const s = this.pos;
    if (s + len > end) throw new HpackError('string past the end of the header block');
    this.pos = s + len;
    return huff ? huffmanDecode(buf, s, s + len) : (buf as RawBuffer).latin1Slice(s, s + len);
  }

  private slot(i: number): number {
    const p = this.names.length - (i - STATIC_TABLE.length);
    if (p < this.head || p >= this.names.length) throw new HpackError(`header index ${i} out of range`);
    return p;
  }

  private name(i: number): string {
    return i <= STATIC_TABLE.length ? STATIC_TABLE[i - 1]![0] : this.names[this.slot(i)]!;
  }

  private value(i: number): string {
    return i <= STATIC_TABLE.length ? STATIC_TABLE[i - 1]![1] : this.values[this.slot(i)]!;
  }

  private add(name: string, value: string): void {
    // latin1 strings: length equals octet count, as the 4.1 size rule requires
    const size = name.length + value.length + 32;
    this.evict(size);
    if (size > this.maxSize) return; // 4.4: an entry larger than the table empties it and is not added
    this.names.push(name);
    this.values.push(value);
    this.size += size;
  }

  /** Evicts oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.size + room > this.maxSize && this.head < this.names.length) {
      this.size -= this.names[this.head]!.length + this.values[this.head]!.length + 32;
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.names.length) {
      this.names.splice(0, this.head);
      this.values.splice(0, this.head);
      this.head = 0;
    }
  }
}

const STATIC_FULL = new Map<string, number>(); // "name\0value" -> index
const STATIC_NAME = new Map<string, number>(); // name -> lowest index
STATIC_TABLE.forEach(([n, v], i) => {
  if (v !== '') STATIC_FULL.set(`${n}\0${v}`, i + 1);
  if (!STATIC_NAME.has(n)) STATIC_NAME.set(n, i + 1);
});

/** Writes an HPACK integer with an N-bit prefix at `pos` (the prefix byte's high bits are `flags`); returns the end. */
export function writeInt(buf: Uint8Array, pos: number, v: number, bits: number, flags: number): number {
  const mask = (1 << bits) - 1;
  if (v < mask) {
    buf[pos++] = flags | v;
    return pos;
  }
  buf[pos++] = flags | mask;
  v -= mask;
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Upper bound of the encoded size of one field. */
export function fieldBound(name: string, value: string): number {
  return name.length * 3 + value.length * 3 + 12;
}

/**
 * Writes one field at `pos` without touching any dynamic table: an indexed field if the static table has the exact
 * pair, else a literal without indexing (0000 prefix) with a static name index if possible, plain (utf8) strings.
 * Returns the end position; the caller guarantees fieldBound() bytes of room.
 */
export function writeField(buf: Buffer, pos: number, name: string, value: string): number {
  const full = STATIC_FULL.get(`${name}\0${value}`);
  if (full !== undefined) return writeInt(buf, pos, full, 7, 0x80);
  const ni = STATIC_NAME.get(name);
  if (ni !== undefined) pos = writeInt(buf, pos, ni, 4, 0);
  else {
    buf[pos++] = 0;
    pos = writeStr(buf, pos, name);
  }
  return writeStr(buf, pos, value);
}

/**
 * Writes a plain string literal (H = 0) as utf8. Short ASCII strings (paths, tokens) are copied by a JS loop: it
 * beats a call into C++ for a few dozen bytes and needs no separate length pass.
 */
export function writeStr(buf: Buffer, pos: number, s: string): number {
  const n = s.length;
  if (n < 127) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      buf[pos + 1 + i] = c;
    }
    if (i === n) {
      buf[pos] = n;
      return pos + 1 + n;
    }
  }
  const len = Buffer.byteLength(s);
  pos = writeInt(buf, pos, len, 7, 0);
  return pos + (buf as RawBuffer).utf8Write(s, pos, len);
}

/** Stateless encoder with a per-(name, value) cache of encoded fields: repeated headers cost one Buffer copy. */
export class HpackEncoder {
  private cache = new Map<string, Map<string, Buffer>>();

  field(name: string, value: string): Buffer {
    let byValue = this.cache.get(name);
    if (byValue === undefined) this.cache.set(name, (byValue = new Map()));
    let b = byValue.get(value);
    if (b === undefined) {
      if (byValue.size >= 256) byValue.clear(); // values that never repeat (ids, paths) must not grow it forever
      const tmp = Buffer.allocUnsafe(fieldBound(name, value));
      b = Buffer.from(tmp.subarray(0, writeField(tmp, 0, name, value)));
      byValue.set(value, b);
    }
    return b;
  }

  /** Encodes a whole header list (tests and non-hot paths). */
  encode(fields: readonly (readonly [string, string])[]): Buffer {
    return Buffer.concat(fields.map(([n, v]) => this.field(n, v)));
  }
}
