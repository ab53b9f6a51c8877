import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';

interface H2Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// HTTP/2 requests are served from the raw stream (src/server/h2-stream.ts), HTTP/1.1 through node's
// request objects; most integration tests speak HTTP/1.1, so these cover the same rules over HTTP/2.
describe('HTTP/2 (spec 4.4): the same API over raw streams', () => {
  let server: RunningServer;
  let session: ClientHttp2Session;
  const req = (method: string, path: string, headers: OutgoingHttpHeaders = {}, body?: string): Promise<H2Response> =>
    new Promise((resolve, reject) => {
      const s = session.request({ ':method': method, ':path': path, authorization: `Bearer ${server.adminToken}`, ...headers });
      const chunks: Buffer[] = [];
      let h: IncomingHttpHeaders = {};
      s.on('response', (x) => (h = x));
      s.on('data', (c: Buffer) => chunks.push(c));
      s.on('end', () => resolve({ status: Number(h[':status']), headers: h, body: Buffer.concat(chunks) }));
      s.on('error', reject);
      s.end(body);
    });

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    session = connect(server.url, { ca: server.caCertPem });
  });
  after(async () => {
    session.close();
    await server.close();
  });

  it('create and get: 201 then 200 with JSON, content-type and content-length', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h2' }, data: { a: '1' } });
    const c = await req('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, body);
    assert.equal(c.status, 201, c.body.toString());
    const g = await req('GET', '/api/v1/namespaces/default/configmaps/h2');
    assert.equal(g.status, 200);
    assert.equal(g.headers['content-type'], 'application/json');
    assert.equal(Number(g.headers['content-length']), g.body.length);
    assert.equal(JSON.parse(g.body.toString()).data.a, '1');
  });

  it('errors are Status objects with the matching code (spec 7): 404, 400, 401', async () => {
    const nf = await req('GET', '/api/v1/namespaces/default/configmaps/missing');
    assert.equal(nf.status, 404);
    assert.equal(JSON.parse(nf.body.toString()).reason, 'NotFound');
    const bad = await req('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, '{"kind":');
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body.toString()).kind, 'Status');
    const unauth = await req('GET', '/api/v1/namespaces', { authorization: 'Bearer wrong' });
    assert.equal(unauth.status, 401);
    // Refused before its body is read: the Status still arrives whole, and the connection keeps serving.
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' }, data: { a: 'x'.repeat(200_000) } });
    const refused = await req('POST', '/api/v1/namespaces/default/configmaps', { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body);
    assert.equal(refused.status, 401);
    assert.equal(JSON.parse(refused.body.toString()).kind, 'Status');
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/nope')).status, 404);
  });

  it('a body over 3 MiB is 413 and the connection keeps serving (spec 7)', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } });
    const r = await req('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, big);
    assert.equal(r.status, 413);
    assert.equal(JSON.parse(r.body.toString()).reason, 'RequestEntityTooLarge');
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/huge')).status, 404);
    assert.equal((await req('GET', '/api/v1/namespaces/default')).status, 200);
  });

  it('a body sent in several DATA frames arrives whole; a stream reset mid-body leaves nothing behind (spec 4.4, 7)', async () => {
    const value = 'ü'.repeat(30_000) + 'end'; // multi-byte characters split across frames
    const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pieces' }, data: { v: value } }));
    const s = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' });
    const status = new Promise<number>((resolve, reject) => {
      s.on('response', (h) => resolve(Number(h[':status'])));
      s.on('error', reject);
    });
    s.resume();
    for (let i = 0; i < body.length; i += 7001) {
      s.write(body.subarray(i, i + 7001));
      await new Promise((r) => setImmediate(r));
    }
    s.end();
    assert.equal(await status, 201);
    const g = await req('GET', '/api/v1/namespaces/default/configmaps/pieces');
    assert.equal(JSON.parse(g.body.toString()).data.v, value);

    const cut = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' });
    cut.on('error', () => undefined);
    cut.write('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cut"},"data":{"a":"');
    await new Promise((r) => setTimeout(r, 20));
    cut.close(); // RST_STREAM before the body ends
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/cut')).status, 404);
    assert.equal((await req('GET', '/api/v1/namespaces/default')).status, 200);
  });

  it('HEAD answers the headers without a body', async () => {
    const r = await req('HEAD', '/api/v1/namespaces/default');
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
  });

  it('a watch with nothing to report yet still sends its response headers (spec 4.7)', async () => {
    const l = await req('GET', '/api/v1/namespaces/default/configmaps');
    const rv = JSON.parse(l.body.toString()).metadata.resourceVersion as string;
    const s = session.request({ ':path': `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, authorization: `Bearer ${server.adminToken}` });
    const headers = await new Promise<IncomingHttpHeaders>((resolve) => s.once('response', resolve));
    assert.equal(headers[':status'], 200);
    assert.equal(headers['content-type'], 'application/json');
    const line = new Promise<string>((resolve) => s.once('data', (c: Buffer) => resolve(c.toString())));
    await req('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' } }));
    assert.equal(JSON.parse(await line).type, 'ADDED');
    s.close();
  });

  it('repeated Impersonate-Group headers stay separate groups (spec 5.6)', async () => {
    const r = await req('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', {
      'content-type': 'application/json',
      'impersonate-user': 'someone',
      'impersonate-group': ['a, with comma', 'b'],
    }, JSON.stringify({ apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' }));
    assert.equal(r.status, 201, r.body.toString());
    const groups = JSON.parse(r.body.toString()).status.userInfo.groups as string[];
    assert.ok(groups.includes('a, with comma') && groups.includes('b'), JSON.stringify(groups));
  });

  it('a large list is gzip-compressed when the client accepts it (spec 4.4)', async () => {
    const big = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 3; i++) {
      await req('POST', '/api/v1/namespaces/default/configmaps', { 'content-type': 'application/json' }, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { big } }));
    }
    const r = await req('GET', '/api/v1/namespaces/default/configmaps', { 'accept-encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(r.body).toString()).items.length >= 3, true);
  });
});
