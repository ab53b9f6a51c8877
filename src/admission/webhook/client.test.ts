import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
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

test('reference behaviour: a second burst of concurrent calls reuses the kept-alive connections of the first (no new TLS handshakes)', async () => {
  const burst = () => Promise.all(Array.from({ length: 32 }, (_, i) => postReview(target, JSON.stringify({ i }), 5000)));
  const first = await burst();
  const afterFirst = connections;
  await new Promise((r) => setTimeout(r, 50)); // every socket back in the pool, idle
  const second = await burst();
  assert.equal(first.length + second.length, 64);
  assert.equal(afterFirst, 32);
  assert.equal(connections, afterFirst);
});

test('reference behaviour: a review with multi-byte characters is sent whole, its Content-Length counted in bytes', async () => {
  const body = JSON.stringify({ note: 'é € 😀 ✓' });
  const answer = JSON.parse(await postReview(target, body, 5000)) as { length: string; body: string };
  assert.equal(answer.body, body);
  assert.equal(Number(answer.length), Buffer.byteLength(body, 'utf8'));
});
