import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCerts } from '../../server/tls.js';
import { DEADLINE_MESSAGE, H2Client } from './client.js';

// The frame and HPACK handling is shared with the benchmark client, whose suite (test/bench-h2-client.test.ts)
// covers it; these tests cover what the server's calls add: deadlines, the answer bound, connection state.
let server: http2.Http2SecureServer;
let dir: string;
let url: string;
let ca: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orch-h2-client-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  ca = certs.caCertPem;
  server = http2.createSecureServer({ cert: certs.certPem, key: certs.keyPem });
  server.on('stream', (stream, headers) => {
    const path = String(headers[':path']);
    const body: Buffer[] = [];
    stream.on('data', (c: Buffer) => body.push(c));
    stream.on('end', () => {
      const wait = Number(/wait=(\d+)/.exec(path)?.[1] ?? 0);
      const size = Number(/size=(\d+)/.exec(path)?.[1] ?? -1);
      setTimeout(() => {
        if (stream.closed) return;
        stream.respond({ ':status': path.startsWith('/missing') ? 404 : 200 });
        stream.end(size >= 0 ? 'x'.repeat(size) : Buffer.concat(body));
      }, wait);
    });
    stream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

test('reference behaviour: requests past their deadline fail with the deadline message, each at its own time, and the others are answered', async () => {
  const c = await H2Client.connect(url, { ca });
  try {
    const started = performance.now();
    const slow = c.request('POST', '/?wait=2000', {}, Buffer.from('a'), 5000);
    const late = c.request('POST', '/?wait=1000', {}, Buffer.from('b'), 100);
    const quick = c.request('POST', '/?wait=0', {}, Buffer.from('c'), 1000);
    await assert.rejects(late, (e: Error) => e.message === DEADLINE_MESSAGE);
    const lateAt = performance.now() - started;
    assert.ok(lateAt >= 90 && lateAt < 900, `the earlier deadline fired on time (${lateAt.toFixed(0)} ms)`);
    assert.equal((await quick).body.toString(), 'c');
    const answer = await slow;
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), 'a');
    assert.ok(c.usable, 'a cancelled stream leaves the connection usable');
    assert.equal((await c.request('POST', '/missing', {}, Buffer.from('d'), 1000)).status, 404, 'a status is returned as it is');
  } finally {
    c.close();
  }
});

test('reference behaviour: an answer over the bound fails its request only', async () => {
  const socketClient = await H2Client.connect(url, { ca }, { maxBodyBytes: 1000 });
  try {
    await assert.rejects(socketClient.request('POST', '/?size=5000', {}, Buffer.from('x'), 1000), /the answer is larger than 1000 bytes/);
    assert.equal((await socketClient.request('POST', '/?size=1000', {}, Buffer.from('x'), 1000)).body.length, 1000);
  } finally {
    socketClient.close();
  }
});

test('reference behaviour: a closed connection is unusable, tells its listeners once and refuses new requests', async () => {
  const c = await H2Client.connect(url, { ca });
  let told = 0;
  c.onUnusable(() => told++);
  assert.ok(c.usable);
  c.close();
  assert.equal(c.usable, false);
  assert.equal(told, 1);
  await assert.rejects(c.request('POST', '/', {}, Buffer.from('x'), 1000), /closed/);
  c.destroy();
  assert.equal(told, 1);
});
