import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../src/index.js';
import { checkInjection, matches } from '../src/testing/faults.js';
import { parseRequestInfo } from '../src/server/request-info.js';
import { client } from './helpers/client.js';
import { openWatch } from './helpers/testkit-watch.js';

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name } });

describe('test kit: fault injection seen over plain HTTP (reference Status shapes)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ recordBodies: true, controllers: [] });
  });
  after(() => server.close());

  it('409, 500 and 504 answer matching requests with a Status for `times` requests, then requests pass', async () => {
    const call = client(server);
    for (const code of [409, 500, 504]) {
      const h = server.inject({ verb: 'create', resource: 'configmaps', namespace: 'default', status: code, times: 2 });
      const a = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`c${code}`) });
      const b = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`c${code}`) });
      const c = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm(`c${code}`) });
      assert.deepEqual([a.status, b.status, c.status], [code, code, 201]);
      assert.equal(a.json.kind, 'Status');
      assert.equal(a.json.code, code);
      assert.equal(a.json.reason, { 409: 'Conflict', 500: 'InternalError', 504: 'Timeout' }[code]);
      assert.match(a.json.message, new RegExp(`injected fault: ${code} for create configmaps`));
      assert.equal(h.hits, 2);
    }
  });

  it('429 carries Retry-After and the given message; other verbs, resources and names are untouched; cancel stops it', async () => {
    const call = client(server);
    const h = server.inject({ verb: 'get', resource: 'configmaps', name: 'c409', status: 429, retryAfterSeconds: 3, message: 'slow down' });
    const r = await call('GET', '/api/v1/namespaces/default/configmaps/c409');
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '3');
    assert.equal(r.json.message, 'slow down');
    assert.equal(r.json.details.retryAfterSeconds, 3);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/c500')).status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    h.cancel();
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/c409')).status, 200);
  });

  it('closeWatch ends the matching open watches cleanly and leaves the others open', async () => {
    const a = openWatch(server, '/api/v1/namespaces/default/configmaps?watch=1');
    const b = openWatch(server, '/api/v1/namespaces/default/secrets?watch=1');
    await Promise.all([a.opened, b.opened]);
    const h = server.inject({ verb: 'watch', resource: 'configmaps', closeWatch: true });
    assert.equal(h.hits, 1);
    let bEnded = false;
    void b.ended.then(() => (bEnded = true));
    assert.deepEqual(await a.ended, { clean: true, status: 200 });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(bEnded, false);
    server.inject({ resource: 'secrets', closeWatch: true });
    assert.deepEqual(await b.ended, { clean: true, status: 200 });
  });

  it('expireNextWatch: the next watch from an old resourceVersion gets an ERROR event with 410 Expired, once', async () => {
    const rv = (await client(server)('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
    server.inject({ resource: 'configmaps', expireNextWatch: true });
    const fresh = openWatch(server, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1');
    assert.deepEqual(await fresh.ended, { clean: true, status: 200 });
    assert.ok(fresh.events.every((e) => e.type !== 'ERROR'));
    const old = openWatch(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`);
    assert.deepEqual(await old.ended, { clean: true, status: 200 });
    assert.equal(old.events.length, 1);
    assert.equal(old.events[0]?.type, 'ERROR');
    assert.equal(old.events[0]?.object.code, 410);
    assert.equal(old.events[0]?.object.reason, 'Expired');
    const again = openWatch(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
    assert.deepEqual(await again.ended, { clean: true, status: 200 });
    assert.ok(again.events.every((e) => e.type !== 'ERROR'));
  });

  it('requests() records method, path, user, verb, resource, namespace, name, status and (recordBodies) the body', async () => {
    server.clearRequests();
    const call = client(server);
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('recorded') });
    await call('GET', '/api/v1/namespaces/default/configmaps/recorded?resourceVersion=0');
    await call('GET', '/api/v1/namespaces/default/configmaps/missing');
    const got = server.requests();
    assert.equal(got.length, 3);
    assert.deepEqual(
      got.map((r) => [r.method, r.path, r.user, r.verb, r.resource, r.namespace, r.name, r.status]),
      [
        ['POST', '/api/v1/namespaces/default/configmaps', 'orch-admin', 'create', 'configmaps', 'default', '', 201],
        ['GET', '/api/v1/namespaces/default/configmaps/recorded', 'orch-admin', 'get', 'configmaps', 'default', 'recorded', 200],
        ['GET', '/api/v1/namespaces/default/configmaps/missing', 'orch-admin', 'get', 'configmaps', 'default', 'missing', 404],
      ],
    );
    assert.equal(got[1]?.query, 'resourceVersion=0');
    assert.deepEqual(JSON.parse(got[0]!.body!), cm('recorded'));
    assert.equal(got[1]?.body, undefined);
    server.clearRequests();
    assert.equal(server.requests().length, 0);
  });
});

describe('test kit: injections seen by client-node informer (reference client behaviour)', () => {
  it('relists after an injected 410, re-watches after closeWatch, and recovers after a 429 on list', async () => {
    const server = await startServer({ controllers: [] });
    const kc = (await server.kubeConfig()) as unknown as k8s.KubeConfig;
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => api.listNamespacedConfigMap({ namespace: 'default' }));
    const errors: unknown[] = [];
    let stopped = false;
    informer.on('error', (e) => {
      errors.push(e);
      if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 100);
    });
    const names = () => new Set(informer.list('default').map((o) => o.metadata?.name));
    const lists = () => server.requests().filter((r) => r.verb === 'list' && r.resource === 'configmaps').length;
    const watches = () => server.requests().filter((r) => r.verb === 'watch' && r.resource === 'configmaps').length;
    try {
      await informer.start();
      await server.apply(cm('one'));
      await until('informer sees one', () => names().has('one'));

      // 410: the next re-watch from the informer's resourceVersion expires; it must list again.
      const listsBefore = lists();
      server.inject({ resource: 'configmaps', expireNextWatch: true });
      server.inject({ resource: 'configmaps', verb: 'watch', closeWatch: true });
      await server.apply(cm('two'));
      await until('a relist after 410', () => lists() > listsBefore);
      await until('informer sees two', () => names().has('two'));
      assert.equal(errors.length, 0);

      // closeWatch alone: a plain re-watch.
      const watchesBefore = watches();
      // The informer's watch after the relist may still be opening: close it once it is open.
      await until('an open watch closed', () => server.inject({ resource: 'configmaps', verb: 'watch', closeWatch: true }).hits === 1);
      await until('a re-watch', () => watches() > watchesBefore);
      await server.apply(cm('three'));
      await until('informer sees three', () => names().has('three'));

      // 429 on the list: the informer reports it (with the Retry-After Status), is started again, and syncs.
      server.inject({ resource: 'configmaps', verb: 'list', status: 429, times: 1 });
      server.inject({ resource: 'configmaps', expireNextWatch: true });
      server.inject({ resource: 'configmaps', verb: 'watch', closeWatch: true });
      await until('the 429 reaches the informer', () => errors.length > 0);
      await server.apply(cm('four'));
      await until('informer sees four after retrying', () => names().has('four'));
      assert.equal((errors[0] as { code?: number; statusCode?: number }).code ?? (errors[0] as { statusCode?: number }).statusCode, 429);
    } finally {
      stopped = true;
      await informer.stop();
      await server.close();
    }
  });
});

describe('test kit: injection rules (pure)', () => {
  it('matches on every given field and ignores the rest', () => {
    const info = parseRequestInfo('GET', '/apis/apps/v1/namespaces/ns/deployments/d', new URLSearchParams());
    const table: [Parameters<typeof matches>[0], boolean][] = [
      [{}, true],
      [{ verb: 'get', resource: 'deployments', group: 'apps', namespace: 'ns', name: 'd' }, true],
      [{ verb: 'list' }, false],
      [{ group: '' }, false],
      [{ namespace: 'other' }, false],
      [{ name: 'e' }, false],
      [{ subresource: 'status' }, false],
    ];
    for (const [m, want] of table) assert.equal(matches(m, info), want, JSON.stringify(m));
  });
  it('rejects unclear injections with the field named', () => {
    const table: [Parameters<typeof checkInjection>[0], RegExp][] = [
      [{ resource: 'pods' }, /exactly one of status, closeWatch/],
      [{ status: 418 }, /status 418 is not one of/],
      [{ status: 500, closeWatch: true }, /exactly one of/],
      [{ status: 500, times: 0 }, /times must be a positive integer/],
      [{ status: 429, retryAfterSeconds: -1 }, /retryAfterSeconds/],
      [{ verb: 'get', expireNextWatch: true }, /expireNextWatch applies to watches/],
    ];
    for (const [spec, re] of table) assert.throws(() => checkInjection(spec), re);
  });
});

describe('test kit: a k8s-named server (another module graph)', () => {
  it('injected Statuses, recording and reset work there too', { timeout: 120_000 }, async () => {
    const server = await startServer({ naming: 'k8s', controllers: [] });
    try {
      const call = client(server);
      server.inject({ verb: 'create', resource: 'configmaps', status: 409, times: 1 });
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('x') });
      assert.equal(r.status, 409);
      assert.equal(r.json.reason, 'Conflict');
      assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('x') })).status, 201);
      assert.deepEqual(server.requests().filter((q) => q.verb === 'create').map((q) => q.status), [409, 201]);
      await server.reset();
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/x')).status, 404);
      assert.equal((await call('GET', '/api/v1/namespaces/kube-system')).status, 200);
    } finally {
      await server.close();
    }
  });
});
