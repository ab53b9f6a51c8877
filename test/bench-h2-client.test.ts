import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { H2Client } from '../bench/h2-client.js';
import { HUFF_CODES, HpackDecoder, HpackEncoder, huffmanDecode, huffmanEncode, writeInt } from '../bench/hpack.js';
import { startServer, type RunningServer } from '../src/index.js';
import { ensureServingCerts, type ServingCerts } from '../src/server/tls.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const pairs = (flat: string[]) => flat.reduce<[string, string][]>((a, x, i) => (i % 2 ? a.push([flat[i - 1]!, x]) : undefined, a), []);

describe('HPACK (bench/hpack.ts)', () => {
  it('HPACK: derives the RFC 7541 Appendix B Huffman codes and round-trips every symbol', () => {
    const expected: Record<number, number> = { 0: 0x1ff8, 10: 0x3ffffffc, 32: 0x14, 48: 0x0, 97: 0x3, 127: 0xffffffc, 128: 0xfffe6, 195: 0x7fff1, 220: 0xffffffd, 255: 0x3ffffee, 256: 0x3fffffff };
    for (const [sym, code] of Object.entries(expected)) assert.equal(HUFF_CODES[Number(sym)], code, `symbol ${sym}`);
    let all = '';
    for (let i = 0; i < 256; i++) all += String.fromCharCode(i);
    const enc = huffmanEncode(all + all);
    assert.equal(huffmanDecode(enc, 0, enc.length), all + all);
    assert.equal(huffmanDecode(hex('f1e3c2e5f23a6ba0ab90f4ff'), 0, 12), 'www.example.com');
  });

  it('HPACK: rejects Huffman strings with bad padding or an EOS symbol', () => {
    assert.throws(() => huffmanDecode(hex('00'), 0, 1), /padding/); // '0' (00000) then 000: padding must be ones
    assert.throws(() => huffmanDecode(hex('1fff'), 0, 2), /padding/); // 'a' then 11 ones: padding over 7 bits
    assert.throws(() => huffmanDecode(hex('ffffffff'), 0, 4), /EOS/);
  });

  it('HPACK: encodes integers with N-bit prefixes (RFC 7541 C.1)', () => {
    const b = Buffer.alloc(8);
    assert.deepEqual(b.subarray(0, writeInt(b, 0, 10, 5, 0)), hex('0a'));
    assert.deepEqual(b.subarray(0, writeInt(b, 0, 1337, 5, 0)), hex('1f9a0a'));
    assert.deepEqual(b.subarray(0, writeInt(b, 0, 42, 8, 0)), hex('2a'));
  });

  it('HPACK: decodes the RFC 7541 C.4 requests (Huffman) sharing one dynamic table', () => {
    const d = new HpackDecoder();
    const base: [string, string][] = [[':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']];
    assert.deepEqual(pairs(d.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))), base);
    assert.deepEqual(d.entries, [[':authority', 'www.example.com']]);
    assert.equal(d.size, 57);
    assert.deepEqual(pairs(d.decode(hex('8286 84be 5886 a8eb 1064 9cbf'))), [...base, ['cache-control', 'no-cache']]);
    assert.deepEqual(d.entries, [['cache-control', 'no-cache'], [':authority', 'www.example.com']]);
    assert.equal(d.size, 110);
    assert.deepEqual(pairs(d.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))), [
      [':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value'],
    ]);
    assert.deepEqual(d.entries, [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']]);
    assert.equal(d.size, 164);
  });

  it('HPACK: decodes the RFC 7541 C.6 responses (Huffman) with eviction in a 256-octet table', () => {
    const d = new HpackDecoder(256);
    const date1 = 'Mon, 21 Oct 2013 20:13:21 GMT';
    const date2 = 'Mon, 21 Oct 2013 20:13:22 GMT';
    const loc = 'https://www.example.com';
    const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
    assert.deepEqual(pairs(d.decode(hex(`4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
      2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`))), [[':status', '302'], ['cache-control', 'private'], ['date', date1], ['location', loc]]);
    assert.deepEqual(d.entries, [['location', loc], ['date', date1], ['cache-control', 'private'], [':status', '302']]);
    assert.equal(d.size, 222);
    assert.deepEqual(pairs(d.decode(hex('4883 640e ffc1 c0bf'))), [[':status', '307'], ['cache-control', 'private'], ['date', date1], ['location', loc]]);
    assert.deepEqual(d.entries, [[':status', '307'], ['location', loc], ['date', date1], ['cache-control', 'private']]);
    assert.equal(d.size, 222);
    assert.deepEqual(pairs(d.decode(hex(`88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
      77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`))), [
      [':status', '200'], ['cache-control', 'private'], ['date', date2], ['location', loc], ['content-encoding', 'gzip'], ['set-cookie', cookie],
    ]);
    assert.deepEqual(d.entries, [['set-cookie', cookie], ['content-encoding', 'gzip'], ['date', date2]]);
    assert.equal(d.size, 215);
  });

  it('HPACK: applies dynamic table size updates and rejects malformed blocks', () => {
    const d = new HpackDecoder();
    d.decode(hex('4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')); // custom-key: custom-value, 54 octets
    assert.equal(d.size, 54);
    assert.deepEqual(pairs(d.decode(hex('3f45 be'))), [['custom-key', 'custom-value']]); // max 100: the entry stays
    assert.equal(d.maxSize, 100);
    d.decode(hex('3f09')); // max 40: the 54-octet entry is evicted
    assert.equal(d.size, 0);
    d.decode(hex('3fe11f 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')); // back to 4096, add it again
    assert.equal(d.size, 54);
    assert.deepEqual(pairs(d.decode(hex('20'))), []); // size update to 0 empties the table
    assert.equal(d.size, 0);
    assert.deepEqual(d.entries, []);
    assert.throws(() => d.decode(hex('be')), /out of range/);
    assert.throws(() => d.decode(hex('3fe21f')), /above the limit/); // 4097 > 4096
    assert.throws(() => d.decode(hex('82 20')), /after a header field/);
    assert.throws(() => d.decode(hex('80')), /index 0/);
    assert.throws(() => d.decode(hex('0085')), /truncated|past the end/);
  });

  it('HPACK: the encoder round-trips through the decoder', () => {
    const e = new HpackEncoder();
    const fields: [string, string][] = [
      [':method', 'GET'], [':method', 'PATCH'], [':scheme', 'https'], [':path', '/api/v1/namespaces/default/configmaps?x=' + 'y'.repeat(300)],
      [':authority', '127.0.0.1:6443'], ['authorization', 'Bearer abc'], ['accept', 'application/json'], ['x-custom', 'välue ✓'], ['content-type', ''],
    ];
    const block = e.encode(fields);
    assert.equal(block[0], 0x82); // exact static match: indexed
    assert.deepEqual(pairs(new HpackDecoder().decode(block)).map(([n, v]) => [n, Buffer.from(v, 'latin1').toString('utf8')]), fields);
    assert.equal(e.field('accept', 'application/json'), e.field('accept', 'application/json')); // cached bytes
  });
});

describe('H2Client against the real server', () => {
  let s: RunningServer;
  let c: H2Client;
  let auth: Record<string, string>;
  before(async () => {
    s = await startServer({ port: 0, storage: { type: 'memory' } });
    c = await H2Client.connect(s.url, { ca: s.caCertPem });
    auth = { authorization: `Bearer ${s.adminToken}`, accept: 'application/json' };
  });
  after(async () => {
    c.close();
    await s.close();
  });
  const json = { 'content-type': 'application/json' };
  const cm = (name: string, data: Record<string, string>) => Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }));
  const base = '/api/v1/namespaces/default/configmaps';

  it('H2Client: GETs /version and a namespace', async () => {
    const v = await c.request('GET', '/version', auth);
    assert.equal(v.status, 200);
    assert.match(JSON.parse(v.body.toString()).gitVersion, /^v\d+\.\d+\.\d+/);
    const ns = await c.request('GET', '/api/v1/namespaces/default', auth);
    assert.equal(ns.status, 200, ns.body.toString());
    assert.equal(JSON.parse(ns.body.toString()).metadata.name, 'default');
  });

  it('H2Client: POSTs a ConfigMap (201) and reads it back', async () => {
    const r = await c.request('POST', base, { ...auth, ...json }, Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}}'));
    assert.equal(r.status, 201, r.body.toString());
    const got = await c.request('GET', `${base}/a`, auth);
    assert.equal(got.status, 200);
    assert.deepEqual(JSON.parse(got.body.toString()).data, { k: 'v' });
  });

  it('H2Client: resolves a 404 with the JSON Status body', async () => {
    const r = await c.request('GET', `${base}/missing`, auth);
    assert.equal(r.status, 404);
    const st = JSON.parse(r.body.toString());
    assert.equal(st.kind, 'Status');
    assert.equal(st.code, 404);
  });

  it('H2Client: 500 concurrent GETs on one connection all succeed', async () => {
    const rs = await Promise.all(Array.from({ length: 500 }, (_, i) => c.request('GET', i % 2 ? `${base}/a` : '/api/v1/namespaces/default', auth)));
    for (const [i, r] of rs.entries()) {
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.body.toString()).metadata.name, i % 2 ? 'a' : 'default');
    }
  });

  it('H2Client: POSTs a 900 KiB body across flow-control windows and reads a > 1 MiB list in full', async () => {
    for (const name of ['big-1', 'big-2']) {
      const r = await c.request('POST', base, { ...auth, ...json }, cm(name, { v: 'x'.repeat(900 * 1024) }));
      assert.equal(r.status, 201, r.body.toString().slice(0, 300));
    }
    const list = await c.request('GET', base, auth);
    assert.equal(list.status, 200);
    assert.ok(list.body.length > 1024 * 1024, `list is ${list.body.length} bytes`);
    const items = JSON.parse(list.body.toString()).items as { metadata: { name: string }; data: { v?: string } }[];
    const big = items.find((i) => i.metadata.name === 'big-2');
    assert.equal(big?.data.v?.length, 900 * 1024);
  });

  it('H2Client: close() rejects an in-flight watch and later requests', async () => {
    const c2 = await H2Client.connect(s.url, { ca: s.caCertPem });
    const watch = c2.request('GET', `${base}?watch=true`, auth);
    assert.equal((await c2.request('GET', '/version', auth)).status, 200); // the watch is on the wire by now
    c2.close();
    await assert.rejects(watch, (e: Error) => e instanceof Error && /closed/.test(e.message));
    await assert.rejects(c2.request('GET', '/version', auth), /closed/);
  });
});

// ---- a scripted HTTP/2 peer, for frame-level behaviour the real server does not produce on demand

const [DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION] = [0, 1, 3, 4, 6, 7, 8, 9];
const frame = (type: number, flags: number, id: number, payload: Buffer = Buffer.alloc(0)) => {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id, 5);
  return Buffer.concat([h, payload]);
};
const u32 = (...v: number[]) => Buffer.concat(v.map((x) => { const b = Buffer.alloc(4); b.writeUInt32BE(x); return b; }));
const setting = (id: number, v: number) => Buffer.concat([Buffer.from([0, id]), u32(v)]);

interface Frame { type: number; flags: number; id: number; payload: Buffer }
class Peer {
  frames: Frame[] = [];
  onFrame: (f: Frame) => void = () => undefined;
  private buf = Buffer.alloc(0);
  private preface = false;
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  constructor(readonly sock: TLSSocket) {
    sock.on('error', () => undefined);
    sock.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      if (!this.preface) {
        if (this.buf.length < 24) return;
        assert.equal(this.buf.toString('latin1', 0, 24), 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
        this.buf = this.buf.subarray(24);
        this.preface = true;
      }
      while (this.buf.length >= 9 && this.buf.length >= 9 + this.buf.readUIntBE(0, 3)) {
        const len = this.buf.readUIntBE(0, 3);
        const f = { type: this.buf[3]!, flags: this.buf[4]!, id: this.buf.readUInt32BE(5) & 0x7fffffff, payload: Buffer.from(this.buf.subarray(9, 9 + len)) };
        this.buf = this.buf.subarray(9 + len);
        this.frames.push(f);
        this.waiters = this.waiters.filter((w) => !(w.pred(f) && (w.resolve(f), true)));
        this.onFrame(f);
      }
    });
  }
  send(...frames: Buffer[]) {
    this.sock.write(Buffer.concat(frames));
  }
  waitFor(pred: (f: Frame) => boolean): Promise<Frame> {
    const f = this.frames.find(pred);
    return f ? Promise.resolve(f) : new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
}

describe('H2Client against a scripted HTTP/2 peer', () => {
  let certs: ServingCerts;
  let dir: string;
  const servers: { close(): void }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'h2c-'));
    certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  });
  after(() => {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A TLS server that hands each connection to `script` after sending its SETTINGS. `first` resolves with the first
   * connection (the client's handshake may finish before the server side sees the connection).
   */
  async function peer(script: (p: Peer) => void, settings: Buffer[] = [], alpn = true): Promise<{ url: string; first: Promise<Peer> }> {
    const socks = new Set<TLSSocket>();
    let onFirst!: (p: Peer) => void;
    const first = new Promise<Peer>((r) => (onFirst = r));
    const server = createTlsServer({ key: certs.keyPem, cert: certs.certPem, ...(alpn ? { ALPNProtocols: ['h2'] } : {}) }, (sock) => {
      socks.add(sock);
      const p = new Peer(sock);
      p.send(frame(SETTINGS, 0, 0, Buffer.concat(settings)));
      script(p);
      onFirst(p);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push({ close: () => (server.close(), socks.forEach((s) => s.destroy())) });
    return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, first };
  }
  /** Resolves once the client acknowledged our SETTINGS, i.e. applied them. */
  const settled = async (first: Promise<Peer>) => void (await (await first).waitFor((f) => f.type === SETTINGS && f.flags === 1));

  it('H2Client: parses 1-byte chunks, padding, PRIORITY, CONTINUATION, trailers and dynamic table references; answers PING', async () => {
    const requests: string[][] = [];
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type !== HEADERS) return;
        requests.push(new HpackDecoder().decode(f.payload));
        // First response adds x-test: abc (Huffman) to the table; the second refers to it by index 62.
        const [name, value] = [huffmanEncode('x-test'), huffmanEncode('abc')];
        const block = f.id === 1 ? Buffer.concat([hex('88 40'), Buffer.from([0x80 | name.length]), name, Buffer.from([0x80 | value.length]), value]) : hex('88 be');
        const cut = 1;
        const bytes = Buffer.concat([
          frame(HEADERS, 0x08 | 0x20, f.id, Buffer.concat([Buffer.from([3]), u32(0), Buffer.from([16]), block.subarray(0, cut), Buffer.alloc(3)])),
          frame(CONTINUATION, 0x04, f.id, block.subarray(cut)),
          frame(0xfa, 0, 0, Buffer.from('unknown frame type')),
          frame(PING, 0, 0, Buffer.from('pingpong')),
          frame(DATA, 0x08, f.id, Buffer.concat([Buffer.from([4]), Buffer.from('hel'), Buffer.alloc(4)])),
          frame(DATA, 0, f.id, Buffer.from('lo ')),
          frame(HEADERS, 0x01 | 0x04, f.id, Buffer.concat([hex('00 0b'), Buffer.from('grpc-status'), hex('01'), Buffer.from('0')])),
        ]);
        for (let i = 0; i < bytes.length; i++) p.sock.write(bytes.subarray(i, i + 1));
      };
    });
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    for (const path of ['/one', '/two']) {
      const r = await c.request('GET', path, { authorization: 'Bearer t' });
      assert.equal(r.status, 200);
      assert.equal(r.body.toString(), 'hello ');
    }
    assert.deepEqual(pairs(requests[0]!), [[':method', 'GET'], [':scheme', 'https'], [':authority', new URL(url).host], [':path', '/one'], ['authorization', 'Bearer t']]);
    c.close();
  });

  it('H2Client: answers PING with an ACK carrying the same payload', async () => {
    const { url, first } = await peer((p) => p.send(frame(PING, 0, 0, Buffer.from('12345678'))));
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    const ack = await (await first).waitFor((f) => f.type === PING);
    assert.equal(ack.flags, 1);
    assert.equal(ack.payload.toString(), '12345678');
    c.close();
  });

  it('H2Client: a stream reset by the server rejects with the error code; the connection stays usable', async () => {
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type === HEADERS && f.id === 1) p.send(frame(RST_STREAM, 0, 1, u32(7)));
        else if (f.type === HEADERS) p.send(frame(HEADERS, 0x05, f.id, hex('89'))); // 204, no body
      };
    });
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    await assert.rejects(c.request('GET', '/'), { message: 'stream 1 reset by server: REFUSED_STREAM (7)' });
    const r = await c.request('GET', '/');
    assert.equal(r.status, 204);
    assert.equal(r.body.length, 0);
    c.close();
  });

  it('H2Client: GOAWAY rejects streams above last-stream-id and every later request', async () => {
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type === HEADERS && f.id === 3) {
          p.send(frame(GOAWAY, 0, 0, Buffer.concat([u32(1, 0), Buffer.from('bye')])), frame(HEADERS, 0x05, 1, hex('88')));
        }
      };
    });
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    const [a, b] = [c.request('GET', '/a'), c.request('GET', '/b')];
    assert.equal((await a).status, 200);
    await assert.rejects(b, /^Error: GOAWAY from server: NO_ERROR \(0\) "bye"; stream 3 was not processed/);
    await assert.rejects(c.request('GET', '/c'), /GOAWAY/);
    c.close();
  });

  it('H2Client: queues requests beyond the server MAX_CONCURRENT_STREAMS in FIFO order', async () => {
    let open = 0;
    let maxOpen = 0;
    const order: number[] = [];
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type !== HEADERS) return;
        maxOpen = Math.max(maxOpen, ++open);
        order.push(f.id);
        setTimeout(() => (open--, p.send(frame(HEADERS, 0x04, f.id, hex('88')), frame(DATA, 0x01, f.id, Buffer.from(String(f.id))))), 5);
      };
    }, [setting(3, 2)]);
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    await settled(first);
    const rs = await Promise.all(Array.from({ length: 10 }, () => c.request('GET', '/')));
    assert.deepEqual(rs.map((r) => r.body.toString()), ['1', '3', '5', '7', '9', '11', '13', '15', '17', '19']);
    assert.equal(maxOpen, 2);
    assert.deepEqual(order, [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    c.close();
  });

  it('H2Client: splits request bodies by MAX_FRAME_SIZE and never exceeds the send windows', async () => {
    const body = Buffer.alloc(200_000, 'z');
    let got = 0;
    let credit = 1000; // stream window (INITIAL_WINDOW_SIZE below); the connection window is the default 65535
    let connCredit = 65535;
    let maxFrame = 0;
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type !== DATA) return;
        got += f.payload.length;
        credit -= f.payload.length;
        connCredit -= f.payload.length;
        maxFrame = Math.max(maxFrame, f.payload.length);
        assert.ok(credit >= 0 && connCredit >= 0, 'window exceeded');
        if (f.flags & 1) return p.send(frame(HEADERS, 0x05, f.id, hex('88')));
        // Grant credit in odd-sized steps, the connection window only every few frames.
        if (credit === 0) (credit += 30_000), p.send(frame(WINDOW_UPDATE, 0, f.id, u32(30_000)));
        if (connCredit < 20_000) (connCredit += 50_000), p.send(frame(WINDOW_UPDATE, 0, 0, u32(50_000)));
      };
    }, [setting(4, 1000)]);
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    await settled(first); // before our SETTINGS arrive the client may rightly use the default 65535 window
    const r = await c.request('POST', '/upload', { 'content-type': 'application/octet-stream' }, body);
    assert.equal(r.status, 200);
    assert.equal(got, body.length);
    assert.ok(maxFrame <= 16384, `frame of ${maxFrame}`);
    c.close();
  });

  it('H2Client: an HPACK decoding error is a connection error (GOAWAY COMPRESSION_ERROR, everything rejects)', async () => {
    const { url, first } = await peer((p) => {
      p.onFrame = (f) => {
        if (f.type === HEADERS && f.id === 3) p.send(frame(HEADERS, 0x05, 3, hex('80'))); // index 0 is invalid
      };
    });
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    const hangs = c.request('GET', '/hangs');
    await assert.rejects(c.request('GET', '/bad'), /COMPRESSION_ERROR \(9\): HPACK decoding failed/);
    await assert.rejects(hangs, /COMPRESSION_ERROR/);
    const goaway = await (await first).waitFor((f) => f.type === GOAWAY);
    assert.equal(goaway.payload.readUInt32BE(4), 9);
    await assert.rejects(c.request('GET', '/after'), /COMPRESSION_ERROR/);
  });

  it('H2Client: connect rejects when ALPN does not select h2', async () => {
    const { url, first } = await peer(() => undefined, [], false);
    await assert.rejects(H2Client.connect(url, { ca: certs.caCertPem }), /did not select h2/);
  });

  it('H2Client: fails new requests once stream ids are exhausted', async () => {
    const { url, first } = await peer(() => undefined);
    const c = await H2Client.connect(url, { ca: certs.caCertPem });
    (c as unknown as { nextId: number }).nextId = 2 ** 31 + 1;
    await assert.rejects(c.request('GET', '/'), /stream ids exhausted/);
    c.close();
  });
});
