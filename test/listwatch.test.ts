import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents } from './helpers/client.js';

const cm = (name: string, data: Record<string, string> = { a: '1' }, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

describe('list and watch through the watch cache (spec 4.5-4.7)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      controllers: [],
      watchBookmarkIntervalMs: 200,
      featureGates: { WatchList: true },
    });
    call = client(server);
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lw' } } });
  });
  after(() => server.close());

  it('a list without resourceVersion is consistent: it sees the write just acknowledged', async () => {
    for (let i = 0; i < 20; i++) {
      const c = await call('POST', '/api/v1/namespaces/lw/configmaps', { body: cm(`c${i}`) });
      const l = await call('GET', '/api/v1/namespaces/lw/configmaps?fieldSelector=metadata.name%3Dc' + i);
      assert.equal(l.json.items.length, 1, `c${i} missing from a consistent list`);
      assert.ok(Number(l.json.metadata.resourceVersion) >= Number(c.json.metadata.resourceVersion));
    }
  });

  it('a get without resourceVersion is consistent: it sees the update just acknowledged (spec 4.5)', async () => {
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lw-get' } } });
    await call('POST', '/api/v1/namespaces/lw-get/configmaps', { body: cm('g0') });
    for (let i = 0; i < 20; i++) {
      const u = await call('PATCH', '/api/v1/namespaces/lw-get/configmaps/g0', { body: { data: { a: String(i) } }, headers: { 'content-type': 'application/merge-patch+json' } });
      const g = await call('GET', '/api/v1/namespaces/lw-get/configmaps/g0');
      assert.equal(g.json.data.a, String(i));
      assert.equal(g.json.metadata.resourceVersion, u.json.metadata.resourceVersion);
    }
  });

  it('a get at a resourceVersion not yet seen is 504; at one already seen it answers (spec 4.5)', async () => {
    const c = await call('POST', '/api/v1/namespaces/lw-get/configmaps', { body: cm('g1') });
    const ok = await call('GET', `/api/v1/namespaces/lw-get/configmaps/g1?resourceVersion=${c.json.metadata.resourceVersion}`);
    assert.equal(ok.status, 200, ok.text);
    const r = await call('GET', '/api/v1/namespaces/lw-get/configmaps/g1?resourceVersion=99999999');
    assert.equal(r.status, 504, r.text);
  });

  it('resourceVersion newer than the server has seen: 504 with Retry-After naming a too large resource version (spec 7)', async () => {
    const r = await call('GET', '/api/v1/namespaces/lw/configmaps?resourceVersion=99999999&resourceVersionMatch=NotOlderThan');
    assert.equal(r.status, 504, r.text);
    assert.match(r.json.message, /Too large resource version/);
    assert.equal(r.headers['retry-after'], '1');
  });

  it('invalid parameter combinations are 400 (spec 4.5)', async () => {
    for (const q of ['resourceVersionMatch=Exact', 'resourceVersion=0&resourceVersionMatch=Exact', 'continue=abc&resourceVersion=5', 'limit=x', 'resourceVersion=abc']) {
      const r = await call('GET', `/api/v1/namespaces/lw/configmaps?${q}`);
      assert.equal(r.status, 400, `${q}: ${r.text}`);
    }
  });

  it('remainingItemCount: present on a chunk without selectors, absent with selectors and on the last page (spec 2.3)', async () => {
    const p1 = await call('GET', '/api/v1/namespaces/lw/configmaps?limit=5');
    assert.equal(p1.json.items.length, 5);
    assert.equal(p1.json.metadata.remainingItemCount, 15);
    const sel = await call('GET', '/api/v1/namespaces/lw/configmaps?limit=5&labelSelector=x!%3Dy');
    assert.ok(sel.json.metadata.continue);
    assert.equal(sel.json.metadata.remainingItemCount, undefined);
    const all = await call('GET', '/api/v1/namespaces/lw/configmaps?limit=100');
    assert.equal(all.json.metadata.remainingItemCount, undefined);
    assert.equal(all.json.metadata.continue, undefined);
  });

  it('an exact read at a past revision answers at exactly that revision (spec 4.5)', async () => {
    const before = await call('GET', '/api/v1/namespaces/lw/configmaps');
    const rv = before.json.metadata.resourceVersion;
    await call('POST', '/api/v1/namespaces/lw/configmaps', { body: cm('after-exact') });
    const exact = await call('GET', `/api/v1/namespaces/lw/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200, exact.text);
    assert.equal(exact.json.metadata.resourceVersion, rv);
    assert.equal(exact.json.items.length, before.json.items.length);
  });

  it('an expired continue token is 410 telling the client to start again (spec 4.6, 7)', async () => {
    const s = await startServer({ port: 0, storage: { type: "memory" }, controllers: [] });
    const c = client(s);
    try {
      for (let i = 0; i < 4; i++) await c('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`x${i}`) });
      const p1 = await c('GET', '/api/v1/namespaces/default/configmaps?limit=2');
      for (let i = 0; i < 3; i++) await c('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`y${i}`) });
      await s.backend.compact(await s.backend.currentRevision());
      const p2 = await c('GET', `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
      assert.equal(p2.status, 410, p2.text);
      assert.match(p2.json.message, /start a new list/);
    } finally {
      await s.close();
    }
  });

  it('watch from a revision replays exactly what came after it, with no duplicate (spec 4.5)', async () => {
    const a = await call('POST', '/api/v1/namespaces/lw/configmaps', { body: cm('r1') });
    await call('POST', '/api/v1/namespaces/lw/configmaps', { body: cm('r2') });
    await call('DELETE', '/api/v1/namespaces/lw/configmaps/r1');
    const got = await watchEvents(server, `/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=${a.json.metadata.resourceVersion}`, 2);
    assert.deepEqual(got.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED r2', 'DELETED r1']);
    assert.ok(Number(got[1].object.metadata.resourceVersion) > Number(a.json.metadata.resourceVersion));
  });

  it('label-selected watches see objects enter and leave the selection as ADDED and DELETED', async () => {
    const base = await call('GET', '/api/v1/namespaces/lw/configmaps');
    const w = watchEvents(server, `/api/v1/namespaces/lw/configmaps?watch=1&labelSelector=tier%3Dfront&resourceVersion=${base.json.metadata.resourceVersion}`, 2);
    await new Promise((r) => setTimeout(r, 50));
    const c = await call('POST', '/api/v1/namespaces/lw/configmaps', { body: cm('mover', { a: '1' }, { tier: 'back' }) });
    await call('PATCH', '/api/v1/namespaces/lw/configmaps/mover', { raw: JSON.stringify({ metadata: { labels: { tier: 'front' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    await call('PATCH', '/api/v1/namespaces/lw/configmaps/mover', { raw: JSON.stringify({ metadata: { labels: { tier: 'back' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.ok(c.json.metadata);
    assert.deepEqual((await w).map((e) => e.type), ['ADDED', 'DELETED']);
  });

  it('bookmarks carry only kind, apiVersion and resourceVersion (spec 2.5, 6.2), and one comes before the server closes the watch', async () => {
    const events = await watchEvents(server, '/api/v1/namespaces/lw/configmaps?watch=1&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1&labelSelector=none%3Dnone', 2, 4000);
    const bm = events.find((e) => e.type === 'BOOKMARK');
    assert.ok(bm);
    assert.deepEqual(Object.keys(bm.object).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.deepEqual(Object.keys(bm.object.metadata), ['resourceVersion']);
    assert.equal(bm.object.kind, 'ConfigMap');
  });

  it('sendInitialEvents: ADDED for the current state, then a BOOKMARK annotated initial-events-end (spec 4.7)', async () => {
    const names = (await call('GET', '/api/v1/namespaces/lw/configmaps')).json.items.length;
    const events = await watchEvents(server, '/api/v1/namespaces/lw/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', names + 1);
    assert.ok(events.slice(0, names).every((e) => e.type === 'ADDED'));
    const last = events[names];
    assert.equal(last.type, 'BOOKMARK');
    assert.equal(last.object.metadata.annotations['orch.io/initial-events-end'], 'true');
  });

  it('sendInitialEvents without the WatchList gate is 400, so clients fall back to list + watch', async () => {
    const s = await startServer({ port: 0, storage: { type: "memory" }, controllers: [] });
    try {
      const r = await client(s)('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.message, /WatchList/);
    } finally {
      await s.close();
    }
  });

  it('watch in YAML is 406: YAML is not a streaming format', async () => {
    const r = await call('GET', '/api/v1/namespaces/lw/configmaps?watch=1', { headers: { accept: 'application/yaml' } });
    assert.equal(r.status, 406);
  });

  it('a watcher that stops reading never slows writes or other watchers; its watch is ended (spec 4.7)', async () => {
    const s = await startServer({ port: 0, storage: { type: "memory" }, watchMaxQueue: 20, controllers: [] });
    const c = client(s);
    try {
      const start = (await c('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
      // A reader that never consumes its stream: the socket fills, then its server-side queue overflows.
      let stalledEnded = false;
      const stalled = httpsRequest(new URL(`/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start}`, s.url), { headers: { authorization: `Bearer ${s.adminToken}` }, ca: s.caCertPem }, (res) => {
        res.pause();
        res.on('end', () => (stalledEnded = true));
        res.on('close', () => (stalledEnded = true));
        setTimeout(() => res.resume(), 3000);
      });
      stalled.end();
      const total = 150;
      const healthy = watchEvents(s, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${start}`, total, 20_000);
      await new Promise((r) => setTimeout(r, 100));
      const big = 'z'.repeat(200 * 1024);
      for (let i = 0; i < total; i++) {
        const r = await c('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`big${i}`, { big }) });
        assert.equal(r.status, 201);
      }
      assert.equal((await healthy).length, total, 'the healthy watcher got every event');
      const deadline = Date.now() + 10_000;
      while (!stalledEnded && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(stalledEnded, 'the stalled watch was ended');
    } finally {
      await s.close();
    }
  });
});
