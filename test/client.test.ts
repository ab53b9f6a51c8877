import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { Client, Http2Transport, type KubeObject } from '../src/client/index.js';
import { rejection } from './helpers/status-error.js';

const CM = { group: '', version: 'v1', plural: 'configmaps' };
const DEPLOY = { group: 'apps', version: 'v1', plural: 'deployments' };
const cm = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});
const deployment = (name: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'img' }] } },
  },
});

/**
 * One contract for both transports (HTTP/2 over TLS, and direct into the filter chain of a server in this
 * process): every REST behaviour must be the same through either.
 */
const TRANSPORTS = ['HTTP/2', 'direct'] as const;
type TransportName = (typeof TRANSPORTS)[number];

/** A client of `server` through the named transport, with the given credentials. */
function connect(server: RunningServer, transport: TransportName, credentials: ConstructorParameters<typeof Client>[0]['credentials']): Client {
  return new Client({ server: server.url, caPem: server.caCertPem, credentials, ...(transport === 'direct' ? { direct: server.direct } : {}) });
}

for (const transport of TRANSPORTS) describe(`client library (${transport} transport) against a real server (issue 19)`, () => {
  let server: RunningServer;
  let client: Client;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    client = connect(server, transport, { get: () => ({ token: server.adminToken }) });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('reference behaviour: create, get, update, delete of a config map', async () => {
    const cms = client.resource(CM, 'default');
    const created = await cms.create(cm('crud', { a: '1' }));
    assert.equal(created.metadata.namespace, 'default');
    const got = await cms.get('crud');
    assert.deepEqual(got.data, { a: '1' });
    const updated = await cms.update({ ...got, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);
    await cms.delete('crud');
    assert.equal((await rejection(cms.get('crud'))).code, 404);
  });

  it('reference behaviour: json, merge, strategic and apply patches with fieldManager and force', async () => {
    const cms = client.resource(CM, 'default');
    await cms.create(cm('patched', { a: '1' }));
    let obj = await cms.patch('patched', 'json', [{ op: 'add', path: '/data/b', value: '2' }]);
    assert.deepEqual(obj.data, { a: '1', b: '2' });
    obj = await cms.patch('patched', 'merge', { data: { a: null, c: '3' } });
    assert.deepEqual(obj.data, { b: '2', c: '3' });
    obj = await cms.patch('patched', 'strategic', { metadata: { labels: { tier: 'x' } } });
    assert.deepEqual(obj.metadata.labels, { tier: 'x' });
    obj = await cms.apply(cm('patched', { b: 'mine' }), { fieldManager: 'alice', force: true });
    assert.equal((obj.data as Record<string, string>).b, 'mine');
    assert.ok(obj.metadata.managedFields, 'apply records managed fields');
    // Another manager changing alice's field conflicts unless it forces.
    const conflict = await rejection(cms.apply(cm('patched', { b: 'theirs' }), { fieldManager: 'bob' }));
    assert.equal(conflict.code, 409);
    obj = await cms.apply(cm('patched', { b: 'theirs' }), { fieldManager: 'bob', force: true });
    assert.equal((obj.data as Record<string, string>).b, 'theirs');
    assert.throws(() => cms.patch('patched', 'apply', {}), /fieldManager/);
  });

  it('reference behaviour: a non-2xx answer is a StatusError rebuilt from the Status body', async () => {
    const cms = client.resource(CM, 'default');
    const missing = await rejection(cms.get('nope'));
    assert.equal(missing.code, 404);
    assert.equal(missing.reason, 'NotFound');
    assert.equal(missing.details?.name, 'nope');
    assert.match(missing.message, /configmaps "nope" not found/);
    await cms.create(cm('dup'));
    const dup = await rejection(cms.create(cm('dup')));
    assert.equal(dup.reason, 'AlreadyExists');
    const stale = await cms.get('dup');
    await cms.update({ ...stale, data: { x: '1' } });
    const conflict = await rejection(cms.update({ ...stale, data: { x: '2' } }));
    assert.equal(conflict.code, 409);
    assert.equal(conflict.reason, 'Conflict');
    const invalid = await rejection(cms.create(cm('Bad_Name')));
    assert.equal(invalid.code, 422);
    assert.equal(invalid.reason, 'Invalid');
    assert.ok(invalid.details?.causes?.some((c) => c.field === 'metadata.name'));
  });

  it('reference behaviour: limit/continue paging walks every page of one snapshot', async () => {
    const cms = client.resource(CM, 'default');
    for (let i = 0; i < 25; i++) await cms.create(cm(`page-${i}`, {}, { set: 'paging' }));
    let pages = 0;
    for await (const page of cms.pages({ labelSelector: 'set=paging', limit: 10 })) {
      pages++;
      assert.ok(page.items.length <= 10);
    }
    assert.equal(pages, 3);
    const all = await cms.listAll({ labelSelector: 'set=paging', limit: 10 });
    assert.equal(all.items.length, 25);
    assert.ok(Number(all.resourceVersion) > 0);
    assert.equal((await cms.list({ fieldSelector: 'metadata.name=page-3' })).items.length, 1);
  });

  it('reference behaviour: dryRun writes nothing; delete preconditions, deleteCollection by label', async () => {
    const cms = client.resource(CM, 'default');
    const dry = await cms.create(cm('dry'), { dryRun: true });
    assert.equal(dry.metadata.name, 'dry');
    assert.equal((await rejection(cms.get('dry'))).code, 404);
    const obj = await cms.create(cm('guarded'));
    const wrongUid = await rejection(cms.delete('guarded', { preconditions: { uid: 'not-the-uid' } }));
    assert.equal(wrongUid.code, 409);
    await cms.delete('guarded', { preconditions: { uid: obj.metadata.uid }, propagationPolicy: 'Background', gracePeriodSeconds: 0 });
    for (const n of ['sweep-a', 'sweep-b']) await cms.create(cm(n, {}, { sweep: 'yes' }));
    await cms.create(cm('sweep-keep'));
    await cms.deleteCollection({ labelSelector: 'sweep=yes' });
    assert.deepEqual((await cms.list({ fieldSelector: 'metadata.name=sweep-keep' })).items.length, 1);
    assert.equal((await cms.list({ labelSelector: 'sweep=yes' })).items.length, 0);
  });

  it('reference behaviour: status and scale subresources, fieldValidation=Strict', async () => {
    const deps = client.resource(DEPLOY, 'default');
    const d = await deps.create(deployment('web'));
    const withStatus = await deps.updateStatus({ ...d, status: { observedGeneration: 1, replicas: 1 } });
    assert.equal((withStatus.status as { replicas: number }).replicas, 1);
    const scale = await deps.getScale('web');
    assert.equal(scale.kind, 'Scale');
    await deps.patch('web', 'merge', { spec: { replicas: 3 } }, { subresource: 'scale' });
    assert.equal(((await deps.get('web')).spec as { replicas: number }).replicas, 3);
    const strict = await rejection(deps.create({ ...deployment('strict'), spec: { ...(deployment('strict').spec as object), bogus: 1 } }, { fieldValidation: 'Strict' }));
    assert.equal(strict.code, 400);
    assert.match(strict.message, /bogus/);
  });

  it('reference behaviour: discovery maps kubectl spellings and object kinds to resources', async () => {
    for (const [spelling, plural, group] of [
      ['cm', 'configmaps', ''],
      ['configmap', 'configmaps', ''],
      ['ConfigMap', 'configmaps', ''],
      ['deploy', 'deployments', 'apps'],
      ['deployments.apps', 'deployments', 'apps'],
      ['deploy.apps', 'deployments', 'apps'],
      ['deployments.v1.apps', 'deployments', 'apps'],
    ] as const) {
      const r = await client.discovery.find(spelling);
      assert.deepEqual([r.plural, r.group], [plural, group], spelling);
    }
    const lease = await client.discovery.forKind('coordination.orch.io/v1', 'Lease');
    assert.deepEqual([lease.plural, lease.namespaced], ['leases', true]);
    const ns = await client.discovery.find('ns');
    assert.equal(ns.namespaced, false);
    assert.ok(ns.subresources.includes('finalize'));
    assert.equal((await rejection(client.discovery.find('nosuchthings'))).code, 404);
  });

  it('reference behaviour: applyObject finds the resource from apiVersion and kind, default namespace', async () => {
    const applied = await client.applyObject(cm('from-file', { k: 'v' }), { fieldManager: 'orchctl' });
    assert.equal(applied.metadata.namespace, 'default');
    const again = await client.applyObject<KubeObject>({ ...cm('from-file', { k: 'w' }), metadata: { name: 'from-file', namespace: 'default' } }, { fieldManager: 'orchctl' });
    assert.deepEqual(again.data, { k: 'w' });
    const ns = await client.applyObject<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'applied-ns' } }, { fieldManager: 'orchctl' });
    assert.equal(ns.metadata.namespace, undefined);
    assert.equal((await client.getObject(ns)).metadata.name, 'applied-ns');
  });

  it('reference behaviour: table requests return server-side columns', async () => {
    const table = await client.resource(CM, 'default').table({ limit: 2 });
    assert.equal(table.kind, 'Table');
    assert.ok(table.columnDefinitions.some((c) => c.name === 'Name'));
    assert.ok(table.rows.length > 0 && table.rows.length <= 2);
  });

  it('reference behaviour: a 401 invalidates the credentials and retries once', async () => {
    let token = 'stale-token';
    let invalidations = 0;
    const c = connect(server, transport, { get: () => ({ token }), invalidate: () => { invalidations++; token = server.adminToken; } });
    assert.equal((await c.resource(CM, 'default').get('dup')).metadata.name, 'dup');
    assert.equal(invalidations, 1);
    const never = connect(server, transport, { get: () => ({ token: 'bad' }), invalidate: () => invalidations++ });
    assert.equal((await rejection(never.resource(CM, 'default').get('dup'))).code, 401);
    assert.equal(invalidations, 2, 'retried only once');
    c.close();
    never.close();
  });
});

describe('client library: what only the HTTP/2 transport has (issue 19)', () => {
  let server: RunningServer;

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, controllers: [] });
    await connect(server, 'HTTP/2', { get: () => ({ token: server.adminToken }) }).resource(CM, 'default').create(cm('dup'));
  });
  after(() => server.close());

  it('reference behaviour: one HTTP/2 session carries every request', async () => {
    const c = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
    const cms = c.resource(CM, 'default');
    await Promise.all(Array.from({ length: 50 }, () => cms.list({ limit: 1 })));
    for (let i = 0; i < 20; i++) await cms.get('dup');
    assert.ok(c.transport instanceof Http2Transport);
    assert.equal(c.transport.sessionsOpened, 1);
    c.close();
  });

  it('reference behaviour: TLS is verified against caPem; http:// servers are refused', async () => {
    const wrongCa = new Client({ server: server.url, credentials: { get: () => ({ token: server.adminToken }) } });
    await assert.rejects(wrongCa.resource(CM, 'default').get('dup'), /certificate/i);
    wrongCa.close();
    const insecure = new Client({ server: server.url, insecureSkipTlsVerify: true, credentials: { get: () => ({ token: server.adminToken }) } });
    assert.equal((await insecure.resource(CM, 'default').get('dup')).metadata.name, 'dup');
    insecure.close();
    assert.throws(() => new Client({ server: 'http://127.0.0.1:1', credentials: { get: () => ({}) } }), /only https/);
  });
});
