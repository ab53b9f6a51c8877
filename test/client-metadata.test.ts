import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { META_GROUP } from '../src/api/naming.js';
import { Client, partialObjectMetadata, stripManagedFields, type KubeObject } from '../src/client/index.js';
import { startServer, type RunningServer } from '../src/index.js';

const CM = { group: '', version: 'v1', plural: 'configmaps' };

for (const transport of ['HTTP/2', 'direct'] as const) describe(`metadata-only client and informers, ${transport} transport (reference behaviour: metadata client, metadata informers)`, () => {
  let server: RunningServer;
  let client: Client;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, controllers: false });
    client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) }, ...(transport === 'direct' ? { direct: server.direct } : {}) });
    await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mc' } });
    for (let i = 0; i < 7; i++) await client.resource(CM, 'mc').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, finalizers: [] }, data: { k: 'v'.repeat(50) } });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('reference behaviour: partialObjectMetadata keeps metadata only and leaves metadata forms as they are', () => {
    const cases: [KubeObject, KubeObject][] = [
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', uid: 'u' }, data: { x: 'y' } }, { apiVersion: `${META_GROUP}/v1`, kind: 'PartialObjectMetadata', metadata: { name: 'a', uid: 'u' } }],
      [{ apiVersion: 'other/v1beta1', kind: 'PartialObjectMetadata', metadata: { name: 'b' } }, { apiVersion: 'other/v1beta1', kind: 'PartialObjectMetadata', metadata: { name: 'b' } }],
    ];
    for (const [input, want] of cases) assert.deepEqual(partialObjectMetadata(input), want);
  });

  it('reference behaviour: get and paged lists of a metadata client return PartialObjectMetadata from the server', async () => {
    const meta = client.resource(CM, 'mc').metadata();
    const one = await meta.get('c0');
    assert.equal(one.kind, 'PartialObjectMetadata');
    assert.equal(one.apiVersion, `${META_GROUP}/v1`);
    assert.equal(one.data, undefined);
    assert.ok(one.metadata.uid);
    const { items, resourceVersion } = await meta.listAll({ limit: 3 });
    assert.deepEqual(items.map((i) => i.metadata.name), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    assert.ok(items.every((i) => i.kind === 'PartialObjectMetadata' && i.data === undefined));
    assert.ok(resourceVersion);
    assert.equal(meta.inNamespace('mc').metadataOnly, true);
  });

  it('reference behaviour: a metadata informer caches PartialObjectMetadata and sees add, update and delete', async () => {
    const factory = client.informerFactory();
    const inf = factory.informerFor({ gvr: CM, namespace: 'mc', metadataOnly: true });
    assert.notEqual(inf, factory.informerFor({ gvr: CM, namespace: 'mc' }), 'the metadata informer is not the full one');
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (o, initial) => !initial && seen.push(`add ${o.kind} ${o.metadata.name}`),
      onUpdate: (_old, o) => seen.push(`update ${o.kind} ${o.metadata.name} ${o.metadata.labels?.x ?? ''}`),
      onDelete: (o) => seen.push(`delete ${o.kind} ${o.metadata.name}`),
    });
    const stop = new AbortController();
    inf.start(stop.signal);
    await inf.waitForSync();
    assert.equal(inf.store.list().length, 7);
    assert.ok(inf.store.list().every((o) => o.kind === 'PartialObjectMetadata' && o.data === undefined));
    const cms = client.resource(CM, 'mc');
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n1' }, data: { a: 'b' } });
    await cms.patch('n1', 'merge', { metadata: { labels: { x: 'y' } } });
    await cms.delete('n1');
    for (let i = 0; i < 200 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['add PartialObjectMetadata n1', 'update PartialObjectMetadata n1 y', 'delete PartialObjectMetadata n1']);
    stop.abort();
    await factory.stop();
  });

  it('reference behaviour: an informer transform (stripManagedFields) applies to listed and watched objects before cache and handlers', async () => {
    const factory = client.informerFactory({ transform: stripManagedFields });
    const inf = factory.informerFor({ gvr: CM, namespace: 'mc', metadataOnly: true });
    const handed: KubeObject[] = [];
    inf.addEventHandler({ onAdd: (o) => handed.push(o), onUpdate: (_old, o) => handed.push(o) });
    const stop = new AbortController();
    inf.start(stop.signal);
    await inf.waitForSync();
    const cms = client.resource(CM, 'mc');
    const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strip' }, data: { a: 'b' } });
    assert.ok(Array.isArray(created.metadata.managedFields), 'the server still records managed fields');
    for (let i = 0; i < 200 && !inf.store.list().some((o) => o.metadata.name === 'strip'); i++) await new Promise((r) => setTimeout(r, 10));
    const cached = inf.store.list();
    assert.equal(cached.length, 8);
    assert.ok(cached.every((o) => o.metadata.managedFields === undefined && o.metadata.uid));
    assert.ok(handed.length >= 8 && handed.every((o) => o.metadata.managedFields === undefined));
    stop.abort();
    await factory.stop();
    await cms.delete('strip');
  });
});
