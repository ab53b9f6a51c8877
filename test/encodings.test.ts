import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startServer, type RunningServer } from '../src/index.js';
import { decodeProtobuf, encodeProtobuf } from '../src/encoding/index.js';
import { decodeWatchEventProtobuf } from '../src/encoding/protobuf/index.js';
import { client } from './helpers/client.js';

const PB = 'application/vnd.orch.protobuf';

function raw(server: RunningServer, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server.url), { method, headers: { authorization: `Bearer ${server.adminToken}`, ...headers }, ca: server.caCertPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('encodings: protobuf and gzip (spec 4.4)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
  });
  after(() => server.close());

  it('creates from a protobuf body and answers get and list in protobuf', async () => {
    const body = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb', namespace: 'default' }, data: { k: 'v' } });
    assert.deepEqual([...body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
    const created = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': PB, accept: PB }, body);
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.headers['content-type'], PB);
    const obj = decodeProtobuf(created.body);
    assert.equal(obj.kind, 'ConfigMap');
    assert.deepEqual(obj.data, { k: 'v' });
    assert.ok(obj.metadata?.uid);
    const got = decodeProtobuf((await raw(server, 'GET', '/api/v1/namespaces/default/configmaps/pb', { accept: PB })).body);
    assert.equal(got.metadata?.resourceVersion, obj.metadata?.resourceVersion);
    const list = decodeProtobuf((await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', { accept: PB })).body);
    assert.equal(list.kind, 'ConfigMapList');
    assert.ok((list.items as unknown[]).length >= 1);
  });

  it('garbage protobuf bodies are 400, never a crash', async () => {
    const r = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': PB }, Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff]));
    assert.equal(r.status, 400, r.body.toString());
    const noMagic = await raw(server, 'POST', '/api/v1/namespaces/default/configmaps', { 'content-type': PB }, Buffer.from('{}'));
    assert.equal(noMagic.status, 400);
  });

  it('watch in protobuf: length-prefixed WatchEvent frames', async () => {
    const rv = JSON.parse((await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', {})).body.toString()).metadata.resourceVersion;
    const frames = new Promise<Buffer>((resolve, reject) => {
      const req = httpsRequest(new URL(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, server.url), { headers: { authorization: `Bearer ${server.adminToken}`, accept: PB }, ca: server.caCertPem }, (res) => {
        let buf = Buffer.alloc(0);
        res.on('data', (c: Buffer) => {
          buf = Buffer.concat([buf, c]);
          if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
            req.destroy();
            resolve(buf.subarray(0, 4 + buf.readUInt32BE(0)));
          }
        });
      });
      req.on('error', (e) => reject(e));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    await client(server)('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pbw' } } });
    const e = decodeWatchEventProtobuf(await frames);
    assert.equal(e.type, 'ADDED');
    assert.equal(e.object.metadata?.name, 'pbw');
  });

  it('gzip for large get and list responses when asked, not for small ones; the feature gate turns it off', async () => {
    const call = client(server);
    const big = 'x'.repeat(200 * 1024);
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { big } } });
    const got = await raw(server, 'GET', '/api/v1/namespaces/default/configmaps/big', { 'accept-encoding': 'gzip' });
    assert.equal(got.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(got.body).toString()).data.big, big);
    const list = await raw(server, 'GET', '/api/v1/namespaces/default/configmaps', { 'accept-encoding': 'gzip' });
    assert.equal(list.headers['content-encoding'], 'gzip');
    assert.ok(JSON.parse(gunzipSync(list.body).toString()).items.length >= 1);
    const small = await raw(server, 'GET', '/api/v1/namespaces/default', { 'accept-encoding': 'gzip' });
    assert.equal(small.headers['content-encoding'], undefined);
    const plain = await raw(server, 'GET', '/api/v1/namespaces/default/configmaps/big', {});
    assert.equal(plain.headers['content-encoding'], undefined);
    const off = await startServer({ port: 0, storage: { type: 'memory' }, featureGates: { APIResponseCompression: false } });
    try {
      await client(off)('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { big } } });
      const r = await raw(off, 'GET', '/api/v1/namespaces/default/configmaps/big', { 'accept-encoding': 'gzip' });
      assert.equal(r.headers['content-encoding'], undefined);
    } finally {
      await off.close();
    }
  });

  it('an unknown feature gate is a start-up error', async () => {
    await assert.rejects(startServer({ port: 0, storage: { type: 'memory' }, featureGates: { NoSuchGate: true } }), /unrecognized feature gate: NoSuchGate/);
  });
});

describe('errors in the negotiated media type (spec 4.4; reference behaviour, found by the fuzz suite)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
  });
  after(() => server.close());
  const get = (path: string, accept: string | undefined, token: string | null = server.adminToken) =>
    client(server)('GET', path, { headers: accept ? { accept } : {}, token });

  /** The raw answer: protobuf bytes must not go through a text decoder. */
  const raw = (path: string, accept: string, token: string) =>
    new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      const req = httpsRequest(new URL(path, server.url), { headers: { accept, authorization: `Bearer ${token}` }, ca: server.caCertPem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });

  it('a protobuf client gets a protobuf Status, from the handler (404) and from the filter chain (401)', async () => {
    for (const [r, code, reason] of [
      [await raw('/api/v1/namespaces/default/configmaps/missing', PB, server.adminToken), 404, 'NotFound'],
      [await raw('/api/v1/namespaces/default/configmaps', `${PB}, application/json;q=0.5`, 'not-a-token'), 401, 'Unauthorized'],
    ] as const) {
      assert.equal(r.status, code);
      assert.equal(r.type, PB);
      const status = decodeProtobuf(r.body) as { kind: string; code: number; reason: string };
      assert.deepEqual([status.kind, status.code, status.reason], ['Status', code, reason]);
    }
  });

  it('YAML clients get YAML; a client accepting nothing we offer, or no Accept, gets JSON', async () => {
    const yaml = await get('/api/v1/namespaces/default/configmaps/missing', 'application/yaml');
    assert.equal(yaml.status, 404);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.text, /^kind: Status$/m);
    for (const accept of ['text/html', undefined]) {
      const r = await get('/api/v1/namespaces/default/configmaps/missing', accept);
      assert.equal(r.status, accept ? 406 : 404);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.json.kind, 'Status');
    }
  });
});
