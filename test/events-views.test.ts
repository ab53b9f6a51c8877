import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

describe('one stored Event, two API views (spec 6.6)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('an Event created through events.orch.io/v1 reads back through core v1 with the old field names', async () => {
    const created = await call('POST', '/apis/events.orch.io/v1/namespaces/default/events', {
      body: {
        apiVersion: 'events.orch.io/v1',
        kind: 'Event',
        metadata: { name: 'ev1' },
        eventTime: '2026-11-22T10:00:00.000000Z',
        action: 'Pulling',
        reason: 'Pulling',
        note: 'pulling image',
        type: 'Normal',
        reportingController: 'example.com/kubelet',
        reportingInstance: 'node-1',
        regarding: { kind: 'Pod', name: 'web', namespace: 'default' },
      },
    });
    assert.equal(created.status, 201, created.text);
    const core = await call('GET', '/api/v1/namespaces/default/events/ev1');
    assert.equal(core.json.apiVersion, 'v1');
    assert.equal(core.json.involvedObject.name, 'web');
    assert.equal(core.json.message, 'pulling image');
    assert.equal(core.json.reportingComponent, 'example.com/kubelet');
    assert.equal(core.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 'one stored object');
  });

  it('a core Event reads back through events.orch.io/v1 with the new names', async () => {
    const c = await call('POST', '/api/v1/namespaces/default/events', {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'ev2' },
        involvedObject: { kind: 'Pod', name: 'db', namespace: 'default' },
        reason: 'Started',
        message: 'started container',
        type: 'Normal',
        source: { component: 'kubelet', host: 'node-2' },
        count: 3,
      },
    });
    assert.equal(c.status, 201, c.text);
    const v1 = await call('GET', '/apis/events.orch.io/v1/namespaces/default/events/ev2');
    assert.equal(v1.json.apiVersion, 'events.orch.io/v1');
    assert.equal(v1.json.regarding.name, 'db');
    assert.equal(v1.json.note, 'started container');
    assert.equal(v1.json.deprecatedCount, 3);
    assert.equal(v1.json.deprecatedSource.component, 'kubelet');
    const list = await call('GET', '/apis/events.orch.io/v1/namespaces/default/events');
    assert.equal(list.json.kind, 'EventList');
    assert.ok(list.json.items.every((e: any) => e.apiVersion === 'events.orch.io/v1'));
  });

  it('creating through events.orch.io/v1 requires the new fields and a Normal/Warning type (422)', async () => {
    const r = await call('POST', '/apis/events.orch.io/v1/namespaces/default/events', {
      body: { apiVersion: 'events.orch.io/v1', kind: 'Event', metadata: { name: 'bad' }, type: 'Odd' },
    });
    assert.equal(r.status, 422, r.text);
    const fields = r.json.details.causes.map((c: any) => c.field);
    for (const f of ['eventTime', 'action', 'reason', 'reportingController', 'reportingInstance', 'type']) {
      assert.ok(fields.includes(f), `${f} missing from ${JSON.stringify(fields)}`);
    }
  });
});

describe('startServer() in-process (embedding)', () => {
  it('runs several independent instances in one process, each with its own store', async () => {
    const servers = await Promise.all([1, 2, 3].map(() => startServer({ port: 0, storage: { type: 'memory' } })));
    try {
      assert.equal(new Set(servers.map((s) => s.url)).size, 3);
      const [a, b] = servers.map(client);
      const made = await a!('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-in-a' } } });
      assert.equal(made.status, 201);
      assert.equal((await b!('GET', '/api/v1/namespaces/default/configmaps/only-in-a')).status, 404);
      // Each server trusts only its own admin token.
      const cross = client({ url: servers[1]!.url, caCertPem: servers[1]!.caCertPem, adminToken: servers[0]!.adminToken });
      const crossed = await cross('GET', '/api/v1/namespaces');
      assert.equal(crossed.status, 401);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});
