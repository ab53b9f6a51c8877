import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCerts } from '../../server/tls.js';
import { closeWebhookConnections, postReview, type Target } from './client.js';

/** An HTTPS server that echoes each request body and counts the TLS connections it accepts. */
let server: https.Server;
let dir: string;
let target: Target;
let connections = 0;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orch-webhook-client-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // Answers after a moment, so that the calls of one burst overlap.
      setTimeout(() => res.end(JSON.stringify({ length: req.headers['content-length'], body: body.toString('utf8') })), 5);
    });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  target = { host: '127.0.0.1', port, path: '/echo', serverName: '127.0.0.1', ca: certs.caCertPem, poolKey: `test ${port}`, url: `https://127.0.0.1:${port}/echo` };
});

after(async () => {
  closeWebhookConnections();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

test('reference behaviour: a webhook that speaks only HTTP/1.1 costs one protocol probe, then a second burst of concurrent calls reuses the kept-alive connections of the first (no new TLS handshakes)', async () => {
  await postReview(target, '{}', 5000);
  const burst = () => Promise.all(Array.from({ length: 32 }, (_, i) => postReview(target, JSON.stringify({ i }), 5000)));
  const first = await burst();
  const afterFirst = connections;
  await new Promise((r) => setTimeout(r, 50)); // every socket back in the pool, idle
  const second = await burst();
  assert.equal(first.length + second.length, 64);
  assert.ok(afterFirst <= 33, `${afterFirst} connections: at most the probe and one per concurrent call`);
  assert.equal(connections, afterFirst);
});

test('reference behaviour: a review with multi-byte characters is sent whole, its Content-Length counted in bytes', async () => {
  const body = JSON.stringify({ note: 'é € 😀 ✓' });
  const answer = JSON.parse(await postReview(target, body, 5000)) as { length: string; body: string };
  assert.equal(answer.body, body);
  assert.equal(Number(answer.length), Buffer.byteLength(body, 'utf8'));
});

test('reference behaviour: a webhook that offers HTTP/2 gets every call, concurrent ones included, over one connection', async () => {
  const certs = await ensureServingCerts(join(dir, 'h2'), { hosts: ['127.0.0.1'] });
  let sessions = 0;
  const h2 = http2.createSecureServer({ cert: certs.certPem, key: certs.keyPem, allowHTTP1: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => res.end(JSON.stringify({ version: req.httpVersion, body: Buffer.concat(chunks).toString('utf8') })), 5));
  });
  h2.on('secureConnection', () => sessions++);
  await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
  try {
    const port = (h2.address() as AddressInfo).port;
    const t: Target = { host: '127.0.0.1', port, path: '/echo', serverName: '127.0.0.1', ca: certs.caCertPem, poolKey: `h2 ${port}`, url: `https://127.0.0.1:${port}/echo` };
    const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => postReview(t, JSON.stringify({ i }), 5000)));
    const parsed = answers.map((a) => JSON.parse(a) as { version: string; body: string });
    assert.deepEqual(new Set(parsed.map((p) => p.version)), new Set(['2.0']));
    assert.deepEqual(parsed.map((p) => JSON.parse(p.body) as { i: number }).map((b) => b.i), Array.from({ length: 32 }, (_, i) => i));
    assert.equal(sessions, 1);
  } finally {
    closeWebhookConnections();
    await new Promise<void>((resolve) => h2.close(() => resolve()));
  }
});

test('reference behaviour: an HTTP/2 webhook that does not answer in time fails the call with the deadline, and a certificate for another name fails it with the TLS error', async () => {
  const certs = await ensureServingCerts(join(dir, 'h2-slow'), { hosts: ['127.0.0.1'] });
  const h2 = http2.createSecureServer({ cert: certs.certPem, key: certs.keyPem }, () => undefined);
  await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
  try {
    const port = (h2.address() as AddressInfo).port;
    const base = { host: '127.0.0.1', port, path: '/', ca: certs.caCertPem, url: `https://127.0.0.1:${port}/` };
    await assert.rejects(postReview({ ...base, serverName: '127.0.0.1', poolKey: `slow ${port}` }, '{}', 200), /context deadline exceeded/);
    await assert.rejects(postReview({ ...base, serverName: 'other.example', poolKey: `name ${port}` }, '{}', 2000), /other\.example/);
  } finally {
    closeWebhookConnections();
    await new Promise<void>((resolve) => h2.close(() => resolve()));
  }
});
