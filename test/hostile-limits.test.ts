import assert from 'node:assert/strict';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents } from './helpers/client.js';

// Issue 23: limits on what a request line, its headers and its selectors may hold, and clients that stop
// reading. Each case failed on the code before its fix: node's bare 431 without a Status (and at 16 KiB,
// refusing selectors the reference serves), a 1 MiB selector echoed back and matched in full, a stuck list
// reader holding its in-flight slot for ever, a watch without resourceVersion cut off after maxQueue objects.

const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/**
 * Opens a TLS connection speaking HTTP/1.1 that sends `request` and then reads nothing until `drain()`,
 * which reads what the kernel still holds and resolves with the byte count once the connection is closed.
 * (A paused socket does not notice the server closing it, so the cut is observed by reading afterwards.)
 */
function stuckReader(server: RunningServer, request: string): Promise<{ drain(): Promise<number> }> {
  return new Promise((resolve, reject) => {
    let received = 0;
    const socket: TLSSocket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
      socket.write(request);
      socket.pause();
      resolve({
        drain: () =>
          new Promise<number>((r) => {
            socket.on('close', () => r(received));
            socket.on('data', (c: Buffer) => (received += c.length));
            socket.resume();
          }),
      });
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends raw HTTP/1.1 requests, each after an answer to the one before arrived; reads until the server closes. */
function rawExchange(server: RunningServer, requests: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let next = 0;
    const send = () => socket.write(requests[next++] as string);
    const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca: server.caCertPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, send);
    socket.on('data', (c: Buffer) => {
      out += c.toString();
      if (next < requests.length) send();
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms).unref())]);

describe('request line, header and selector limits (issue 23, spec 7, 8)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let session: ClientHttp2Session;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
    session = h2connect(server.url, { ca: server.caCertPem, maxSendHeaderBlockLength: 4 << 20 } as never);
    await new Promise((r) => session.once('remoteSettings', r));
  });
  after(async () => {
    session.close();
    await server.close();
  });

  it('HTTP/1.1: a 20 KiB URL (a long selector) is served; past 1 MiB of URL or headers the answer is a 431 Status naming the limit', async () => {
    const longSelector = `k in (${Array.from({ length: 4000 }, (_, i) => `v${i}`).join(',')})`;
    assert.ok(longSelector.length > 16 * 1024);
    const served = await call('GET', `${CM}?labelSelector=${encodeURIComponent(longSelector)}`);
    assert.equal(served.status, 200, served.text);
    for (const r of [
      await call('GET', `${CM}?labelSelector=${'a'.repeat(1100 * 1024)}`),
      await call('GET', CM, { headers: { 'x-padding': 'p'.repeat(1100 * 1024) } }),
    ]) {
      assert.equal(r.status, 431);
      assert.equal(r.json.kind, 'Status');
      assert.match(r.json.message, /the request line and headers are too large: the limit is 1048576 bytes/);
    }
  });

  it('HTTP/2: the header limit is advertised, and a header list past it gets a 431 Status on its stream', async () => {
    assert.equal(session.remoteSettings.maxHeaderListSize, 128 * 1024 + 4096);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Just over 128 KiB as HTTP/2 counts it (name + value + 32 per field), under the advertised size.
      const s = session.request({ ':path': CM, authorization: `Bearer ${server.adminToken}`, 'x-a': 'a'.repeat(66_000), 'x-b': 'b'.repeat(66_000) });
      let status = 0;
      let body = '';
      s.on('response', (h) => (status = Number(h[':status'])));
      s.on('data', (c: Buffer) => (body += c.toString()));
      s.on('end', () => resolve({ status, body }));
      s.on('error', reject);
      s.end();
    });
    assert.equal(answer.status, 431);
    assert.match(JSON.parse(answer.body).message, /the limit is 131072 bytes/);
  });

  it('a request node cannot parse gets a 400 Status, not a bare text answer, also after earlier answers on the connection', async () => {
    const bad = 'GET /api HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n';
    for (const [requests, first] of [[[bad], /^HTTP\/1\.1 400/], [['GET /version HTTP/1.1\r\nHost: x\r\n\r\n', bad], /^HTTP\/1\.1 200/]] as const) {
      const out = await rawExchange(server, [...requests]);
      assert.match(out, first);
      const at = out.indexOf('HTTP/1.1 400 Bad Request\r\n');
      assert.ok(at >= 0, out.slice(0, 300));
      const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n', at) + 4));
      assert.equal(body.kind, 'Status');
      assert.equal(body.code, 400);
    }
  });

  it('label and field selectors over their limits are 400s that name the limit and quote a bounded part', async () => {
    const label = Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join(',');
    const field = Array.from({ length: 1001 }, (_, i) => `metadata.name!=n${i}`).join(',');
    const tooManyValues = `k in (${Array.from({ length: 10_001 }, (_, i) => `v${i}`).join(',')})`;
    for (const [q, limit] of [
      [`labelSelector=${label}`, /too many requirements: the limit is 1000/],
      [`fieldSelector=${field}`, /too many requirements: the limit is 1000/],
      [`labelSelector=${encodeURIComponent(tooManyValues)}`, /too many values: the limit is 10000/],
    ] as const) {
      for (const path of [`${CM}?${q}`, `${CM}?watch=1&${q}`]) {
        const r = await call('GET', path);
        assert.equal(r.status, 400, path.slice(0, 80));
        assert.match(r.json.message, limit);
        assert.ok(r.text.length < 2048, `the Status is short (${r.text.length} bytes)`);
      }
    }
  });

  it('a continue token longer than any the server issues is a 400', async () => {
    const r = await call('GET', `${CM}?limit=1&continue=${'A'.repeat(5000)}`);
    assert.equal(r.status, 400);
    assert.match(r.json.message, /continue key is not valid: longer than 4096 characters/);
  });
});

describe('clients that stop reading are cut off (issue 23: slow or stuck clients are bounded)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    // One read slot: a reader stuck in it would lock every other reader out. The limit applies to users
    // outside system:masters, with priority and fairness off.
    const tokens = join(mkdtempSync(join(tmpdir(), 'orch-hostile-')), 'tokens.csv');
    writeFileSync(tokens, 'tok-reader,reader,uid-reader\n');
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      writeStallTimeoutMs: 500,
      maxRequestsInflight: 1,
      watchMaxQueue: 20,
      enablePriorityAndFairness: false,
      tokenAuthFile: tokens,
      authorizationModes: ['AlwaysAllow'],
    });
    call = client(server);
    // A 24 MiB list: more than the loopback socket buffers hold, so a reader that stops reading stalls it.
    const big = 'x'.repeat(1024 * 1024 - 200);
    for (let i = 0; i < 24; i++) assert.equal((await call('POST', CM, { body: cm(`big-${i}`, { big }) })).status, 201);
  });
  after(() => server.close());

  it('HTTP/1.1: a list whose reader stops reading is cut off, and its in-flight slot is freed', async () => {
    const stuck = await stuckReader(server, `GET ${CM} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-reader\r\n\r\n`);
    const statuses: number[] = [];
    // While the stuck list holds the one read slot others get 429; once it is cut they are served.
    await until('the read slot to be free again', async () => {
      statuses.push((await call('GET', `${CM}/big-0`, { token: 'tok-reader' })).status);
      return statuses.at(-1) === 200;
    });
    assert.ok(statuses.includes(429), `the stuck reader held the slot first: ${statuses.join(',')}`);
    const received = await within(stuck.drain(), 10_000, 'the cut connection to end');
    assert.ok(received < 24 * 1024 * 1024, `the connection was cut before the whole list was sent (${received} bytes)`);
  });

  it('HTTP/2: a list whose stream is never read is reset, and the connection serves other requests', async () => {
    const session = h2connect(server.url, { ca: server.caCertPem });
    try {
      const stream = session.request({ ':path': CM, authorization: `Bearer ${server.adminToken}` });
      stream.pause();
      stream.on('error', () => undefined);
      stream.end();
      await within(new Promise<void>((r) => stream.once('close', () => r())), 10_000, 'the server resetting the stuck stream');
      assert.equal(stream.rstCode, 8, 'RST_STREAM CANCEL');
      const other = await new Promise<number>((resolve, reject) => {
        const s = session.request({ ':path': `${CM}/big-1`, authorization: `Bearer ${server.adminToken}` });
        s.on('response', (h) => resolve(Number(h[':status'])));
        s.on('error', reject);
        s.resume();
        s.end();
      });
      assert.equal(other, 200);
    } finally {
      session.close();
    }
  });

  it('a watcher that never reads is cut off, and other watchers get every event', async () => {
    const rv = (await call('GET', `${CM}?limit=1`)).json.metadata.resourceVersion as string;
    const stuck = await stuckReader(server, `GET ${CM}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminToken}\r\n\r\n`);
    const healthy = watchEvents(server, `${CM}?watch=1&resourceVersion=${rv}`, 30, 30_000);
    await new Promise((r) => setTimeout(r, 200));
    const big = 'y'.repeat(512 * 1024);
    for (let i = 0; i < 30; i++) assert.equal((await call('PUT', `${CM}/big-${i % 24}`, { body: { ...cm(`big-${i % 24}`, { big: `${big}${i}` }) } })).status, 200);
    assert.equal((await healthy).length, 30, 'the healthy watcher got every event');
    // Past the stall timeout the server has cut it: reading now gets what the kernel held, then the end.
    await new Promise((r) => setTimeout(r, 1500));
    const received = await within(stuck.drain(), 10_000, 'the cut watch connection to end');
    assert.ok(received < 30 * 512 * 1024, `the watch was cut before every event was sent (${received} bytes)`);
  });
});

describe('a watch without resourceVersion sends the whole collection (regression: initial events counted as backlog)', () => {
  it('more objects than the per-watcher queue bound are all sent as ADDED', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, watchMaxQueue: 5 });
    try {
      const call = client(server);
      for (let i = 0; i < 12; i++) assert.equal((await call('POST', CM, { body: cm(`c${i}`) })).status, 201);
      const events = await watchEvents(server, `${CM}?watch=1`, 12, 10_000);
      assert.deepEqual(events.map((e) => e.object.metadata.name).sort(), Array.from({ length: 12 }, (_, i) => `c${i}`).sort());
      assert.ok(events.every((e) => e.type === 'ADDED'));
    } finally {
      await server.close();
    }
  });
});

describe('a watch resumed from a resourceVersion further back than the queue bound (regression: replayed history counted as backlog)', () => {
  it('spec 4.2: every event since that resourceVersion is sent, in order, instead of an empty watch', async () => {
    // Before the fix the replay overflowed the queue at once: the watch ended with no event, and a client
    // resuming from its last resourceVersion (an informer) asked for the same replay again, for ever.
    const server = await startServer({ port: 0, storage: { type: 'memory' }, watchMaxQueue: 5, controllers: [] });
    try {
      const call = client(server);
      const from = (await call('GET', CM)).json.metadata.resourceVersion as string;
      for (let i = 0; i < 12; i++) assert.equal((await call('POST', CM, { body: cm(`r${i}`) })).status, 201);
      assert.equal((await call('DELETE', `${CM}/r0`)).status, 200);
      const events = await watchEvents(server, `${CM}?watch=1&resourceVersion=${from}`, 13, 10_000);
      assert.deepEqual(
        events.map((e) => `${e.type} ${e.object.metadata.name}`),
        [...Array.from({ length: 12 }, (_, i) => `ADDED r${i}`), 'DELETED r0'],
      );
      // A selector still applies to the replay: only the matching events, and nothing else first.
      const selected = await watchEvents(server, `${CM}?watch=1&resourceVersion=${from}&fieldSelector=metadata.name%3Dr7`, 1, 10_000);
      assert.deepEqual(selected.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED r7']);
    } finally {
      await server.close();
    }
  });
});

describe('a watcher falling behind by more bytes than its bound is ended (issue 23: bounded memory per watcher)', () => {
  it('with the stall guard off, a stalled watch ends after the byte bound; it saw fewer events than were written', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, writeStallTimeoutMs: 0, watchMaxQueueBytes: 2 * 1024 * 1024 });
    try {
      const call = client(server);
      assert.equal((await call('POST', CM, { body: cm('grows') })).status, 201);
      const rv = (await call('GET', CM)).json.metadata.resourceVersion as string;
      const stuck = await stuckReader(server, `GET ${CM}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminToken}\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 200));
      // 40 events of 512 KiB: 20 MiB, far past what the socket buffers and the 2 MiB queue bound hold.
      const big = 'q'.repeat(512 * 1024);
      for (let i = 0; i < 40; i++) assert.equal((await call('PUT', `${CM}/grows`, { body: cm('grows', { big: `${big}${i}` }) })).status, 200);
      const received = await within(stuck.drain(), 20_000, 'the overflowed watch to end');
      assert.ok(received < 40 * 512 * 1024, `the watch ended before every event was sent (${received} bytes)`);
    } finally {
      await server.close();
    }
  });
});
