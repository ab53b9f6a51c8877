import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

// Issue 23: response headers built from request text, resourceVersions that do not parse, and watch
// timeouts. Each case failed on the code before its fix (a 500 after a stored write, a 504, a hung watch).

const NS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
/** The texts a client reads from `Warning` lines (quoted-string: a backslash quotes the next character). */
const warningTexts = (h: string | string[] | undefined): string[] =>
  [...String(h ?? '').matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => (m[1] as string).replace(/\\(.)/g, '$1'));

interface Streamed {
  status: number;
  body: string;
  ms: number;
}

describe('hostile headers, resourceVersions and watch timeouts (spec 4.5, 7, 8)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let session: ClientHttp2Session;
  const h2 = (method: string, path: string, body?: unknown): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> =>
    new Promise((resolve, reject) => {
      const s = session.request({ ':method': method, ':path': path, authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' });
      const chunks: Buffer[] = [];
      let headers: IncomingHttpHeaders = {};
      s.on('response', (h) => (headers = h));
      s.on('data', (c: Buffer) => chunks.push(c));
      s.on('end', () => resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks).toString() }));
      s.on('error', reject);
      s.end(body === undefined ? undefined : JSON.stringify(body));
    });
  /** Reads a response to its end (a watch: until the server closes it); gives up after `limitMs`. */
  const untilEnd = (path: string, limitMs: number): Promise<Streamed> =>
    new Promise((resolve, reject) => {
      const t0 = Date.now();
      const req = httpsRequest(new URL(path, server.url), { headers: { authorization: `Bearer ${server.adminToken}` }, ca: server.caCertPem, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - t0 });
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        reject(new Error(`${path} still open after ${limitMs} ms`));
      }, limitMs);
      req.on('error', reject);
      req.end();
    });

  before(async () => {
    server = await startServer({ port: 0, storage: { type: "memory" }, controllers: [] });
    call = client(server);
    session = connect(server.url, { ca: server.caCertPem });
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'quiet' } } });
  });
  after(async () => {
    session.close();
    await server.close();
  });

  describe('Warning headers from request text (spec 7)', () => {
    it('an unknown field named past Latin-1 over HTTP/1.1: 201 with an escaped warning, and the object is stored', async () => {
      const r = await call('POST', NS, { body: cm('w-h1', { 'dätaΩ': 1, data: { a: '1' } }) });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(warningTexts(r.headers.warning), ['unknown field "d\\u00e4ta\\u03a9"']);
      const g = await call('GET', `${NS}/w-h1`);
      assert.equal(g.status, 200);
      assert.equal(g.json.data.a, '1');
      assert.equal(g.json['dätaΩ'], undefined, 'the unknown field is dropped');
    });

    it('update and merge patch with such a field: 200 with the warning, and the change is stored', async () => {
      const u = await call('PUT', `${NS}/w-h1`, { body: cm('w-h1', { '😀': true, data: { a: '2' } }) });
      assert.equal(u.status, 200, u.text);
      assert.deepEqual(warningTexts(u.headers.warning), ['unknown field "\\U0001f600"']);
      const p = await call('PATCH', `${NS}/w-h1`, { raw: JSON.stringify({ 'ключ\u0001': 1, data: { a: '3' } }), headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(p.status, 200, p.text);
      assert.deepEqual(warningTexts(p.headers.warning), ['unknown field "\\u043a\\u043b\\u044e\\u0447\\x01"']);
      assert.equal((await call('GET', `${NS}/w-h1`)).json.data.a, '3');
    });

    it('the same over HTTP/2: the warning is escaped ASCII, not mangled to Latin-1', async () => {
      const r = await h2('POST', NS, cm('w-h2', { 'dätaΩ': 1 }));
      assert.equal(r.status, 201, r.body);
      assert.deepEqual(warningTexts(r.headers.warning), ['unknown field "d\\u00e4ta\\u03a9"']);
      assert.equal((await h2('GET', `${NS}/w-h2`)).status, 200);
    });

    it('hundreds of long unknown field names: the write succeeds and the warnings stay bounded, on both protocols', async () => {
      const fields = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`f${i}${'é'.repeat(200)}`, i]));
      const h1 = await call('POST', NS, { body: cm('w-many-1', fields) });
      assert.equal(h1.status, 201, h1.text);
      const h1Lines = warningTexts(h1.headers.warning);
      assert.ok(h1Lines.length >= 1 && String(h1.headers.warning).length <= 8 * 1024 + 200, String(h1.headers.warning).length.toString());
      const viaH2 = await h2('POST', NS, cm('w-many-2', fields));
      assert.equal(viaH2.status, 201, viaH2.body);
      const lines = ([] as string[]).concat(viaH2.headers.warning ?? []);
      assert.ok(lines.length >= 1 && lines.join('').length <= 8 * 1024, String(lines.join('').length));
      assert.equal((await call('GET', `${NS}/w-many-2`)).status, 200);
    });
  });

  describe('resourceVersions that do not parse (spec 4.5, reference behaviour)', () => {
    const unparsable = ['9'.repeat(400), '18446744073709551616'];
    for (const rv of unparsable) {
      it(`400 naming resourceVersion on get, list and watch: ${rv.slice(0, 24)}... (${rv.length} digits)`, async () => {
        await call('POST', NS, { body: cm('rv-target') });
        for (const path of [`${NS}/rv-target?`, `${NS}?`, `${NS}?limit=1&`, `${NS}?watch=1&`]) {
          const r = await call('GET', `${path}resourceVersion=${rv}`);
          assert.equal(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
          assert.equal(r.json.reason, 'BadRequest');
          assert.match(r.json.message, /^resourceVersion: Invalid value: /);
          assert.ok(r.json.message.length < 300, 'the value is quoted only in part');
        }
      });
    }

    it('2^64-1 parses: get and list answer the future-revision 504 quoting it exactly', async () => {
      for (const path of [`${NS}/rv-target?`, `${NS}?`, `${NS}?limit=1&`]) {
        const r = await call('GET', `${path}resourceVersion=18446744073709551615`);
        assert.equal(r.status, 504, `${path}: ${r.text}`);
        assert.match(r.json.message, /^Too large resource version: 18446744073709551615, current: /);
      }
    });

    it('a valid future resourceVersion below 2^53 is still a 504', async () => {
      const r = await call('GET', `${NS}/rv-target?resourceVersion=90071992547409`);
      assert.equal(r.status, 504, r.text);
      assert.match(r.json.message, /^Too large resource version: 90071992547409, current: /);
    });

    it('a watch from 2^64-1 opens, reports nothing, and ends at its timeout', async () => {
      const r = await untilEnd(`${NS}?watch=1&timeoutSeconds=1&resourceVersion=18446744073709551615`, 8000);
      assert.equal(r.status, 200);
      assert.equal(r.body, '');
    });
  });

  describe('watch timeoutSeconds (spec 4.2, reference behaviour)', () => {
    it('a quiet watch without bookmarks ends cleanly at timeoutSeconds (HTTP/1.1)', async () => {
      const r = await untilEnd('/api/v1/namespaces/quiet/configmaps?watch=1&timeoutSeconds=2', 10_000);
      assert.equal(r.status, 200);
      assert.equal(r.body, '');
      assert.ok(r.ms >= 1900 && r.ms < 6000, `${r.ms} ms`);
    });

    it('the same over HTTP/2', async () => {
      const t0 = Date.now();
      const r = await h2('GET', '/api/v1/namespaces/quiet/configmaps?watch=1&timeoutSeconds=1');
      assert.equal(r.status, 200);
      assert.equal(r.body, '');
      assert.ok(Date.now() - t0 < 5000, `${Date.now() - t0} ms`);
    });

    it('a timeout past the 32-bit timer range is capped: the watch stays open, with no timer warning', async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const req = httpsRequest(new URL('/api/v1/namespaces/quiet/configmaps?watch=1&timeoutSeconds=99999999999', server.url), { headers: { authorization: `Bearer ${server.adminToken}` }, ca: server.caCertPem, agent: false }, (res) => {
            res.once('end', () => reject(new Error('the watch ended at once')));
            res.resume();
            setTimeout(() => {
              req.destroy();
              resolve(res.statusCode ?? 0);
            }, 300);
          });
          req.on('error', () => undefined);
          req.end();
        });
        assert.equal(status, 200);
        await new Promise((r) => setImmediate(r));
        assert.deepEqual(warnings.filter((n) => n === 'TimeoutOverflowWarning'), []);
      } finally {
        process.off('warning', onWarning);
      }
    });

    for (const bad of ['-1', '1.5', 'soon', '9223372036854775808']) {
      it(`400 naming timeoutSeconds for ${bad}`, async () => {
        const r = await call('GET', `/api/v1/namespaces/quiet/configmaps?watch=1&timeoutSeconds=${bad}`);
        assert.equal(r.status, 400, r.text);
        assert.match(r.json.message, /^timeoutSeconds: Invalid value: /);
      });
    }
  });
});
