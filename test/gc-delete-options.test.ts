/**
 * The server side of deletion propagation (spec 3.1, reference behaviour) at the HTTP level: the policy
 * of a DELETE becomes finalizers that the garbage collector acts on. No controllers run here, so what
 * the server itself does stays visible.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';

const NS = 'gc-opts';
let server: RunningServer;
let call: ReturnType<typeof client>;

const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
async function makeCm(name: string, finalizers?: string[]): Promise<void> {
  const r = await call('POST', cmPath(), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(finalizers ? { finalizers } : {}) } } });
  assert.equal(r.status, 201, r.text);
}
const del = (path: string, body?: Record<string, unknown>) => call('DELETE', path, body ? { body: { apiVersion: 'v1', kind: 'DeleteOptions', ...body } } : {});
const finalizersOf = (r: Response): string[] => r.json.metadata.finalizers ?? [];

before(async () => {
  server = await startServer({ port: 0, storage: { type: 'memory' }, controllers: false });
  call = client(server);
  const r = await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  assert.equal(r.status, 201, r.text);
});
after(() => server.close());

describe('spec 3.1: propagationPolicy on DELETE', () => {
  it('spec 3.1: Foreground sets deletionTimestamp and adds foregroundDeletion; the object stays (202)', async () => {
    await makeCm('fg');
    const r = await del(cmPath('fg'), { propagationPolicy: 'Foreground' });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.kind, 'ConfigMap');
    assert.ok(r.json.metadata.deletionTimestamp);
    assert.deepEqual(finalizersOf(r), ['foregroundDeletion']);
    const got = await call('GET', cmPath('fg'));
    assert.equal(got.status, 200);
    assert.deepEqual(finalizersOf(got), ['foregroundDeletion']);
  });

  it('spec 3.1: Orphan adds the orphan finalizer (query parameter form, 202)', async () => {
    await makeCm('or');
    const r = await call('DELETE', `${cmPath('or')}?propagationPolicy=Orphan`);
    assert.equal(r.status, 202, r.text);
    assert.ok(r.json.metadata.deletionTimestamp);
    assert.deepEqual(finalizersOf(r), ['orphan']);
  });

  it('spec 3.1: Background (and no policy) removes the object at once', async () => {
    await makeCm('bg');
    await makeCm('none');
    assert.equal((await del(cmPath('bg'), { propagationPolicy: 'Background' })).json.kind, 'Status');
    assert.equal((await del(cmPath('none'))).json.kind, 'Status');
    assert.equal((await call('GET', cmPath('bg'))).status, 404);
    assert.equal((await call('GET', cmPath('none'))).status, 404);
  });

  it('reference behaviour: orphanDependents true means Orphan, false means Background; with a policy it is 400', async () => {
    await makeCm('od-true');
    await makeCm('od-false');
    const t = await del(cmPath('od-true'), { orphanDependents: true });
    assert.deepEqual(finalizersOf(t), ['orphan']);
    const f = await call('DELETE', `${cmPath('od-false')}?orphanDependents=false`);
    assert.equal(f.json.kind, 'Status');
    assert.equal((await call('GET', cmPath('od-false'))).status, 404);
    await makeCm('od-both');
    const both = await del(cmPath('od-both'), { orphanDependents: true, propagationPolicy: 'Foreground' });
    assert.equal(both.status, 400);
    assert.match(both.json.message, /orphanDependents and deletionPropagation cannot be both set/);
    const bad = await call('DELETE', `${cmPath('od-both')}?orphanDependents=maybe`);
    assert.equal(bad.status, 400);
    assert.equal((await call('GET', cmPath('od-both'))).status, 200, 'a rejected delete leaves the object');
  });

  it('spec 3.1: existing finalizers stay, and the policy finalizer is added beside them', async () => {
    await makeCm('keep', ['example.com/hold']);
    const r = await del(cmPath('keep'), { propagationPolicy: 'Foreground' });
    assert.deepEqual(finalizersOf(r), ['example.com/hold', 'foregroundDeletion']);
  });

  it('reference behaviour: a second delete with another policy switches the finalizer, keeping the deletion time', async () => {
    await makeCm('switch');
    const first = await del(cmPath('switch'), { propagationPolicy: 'Foreground' });
    const second = await del(cmPath('switch'), { propagationPolicy: 'Orphan' });
    assert.deepEqual(finalizersOf(second), ['orphan']);
    assert.equal(second.json.metadata.deletionTimestamp, first.json.metadata.deletionTimestamp);
    // Background now drops the last propagation finalizer: nothing holds the object any more.
    const third = await del(cmPath('switch'), { propagationPolicy: 'Background' });
    assert.equal(third.json.kind, 'Status');
    assert.equal((await call('GET', cmPath('switch'))).status, 404);
  });

  it('spec 3.1: removing the last (garbage collector) finalizer of a terminating object deletes it', async () => {
    await makeCm('last');
    await del(cmPath('last'), { propagationPolicy: 'Orphan' });
    const r = await call('PATCH', cmPath('last'), {
      raw: JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal((await call('GET', cmPath('last'))).status, 404);
  });

  it('reference behaviour: ReplicationControllers in core v1 orphan by default; events take no propagation finalizer', async () => {
    const rc = await call('POST', `/api/v1/namespaces/${NS}/replicationcontrollers`, {
      body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { replicas: 0, selector: { app: 'x' }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } },
    });
    assert.equal(rc.status, 201, rc.text);
    const d = await del(`/api/v1/namespaces/${NS}/replicationcontrollers/rc`);
    assert.deepEqual(finalizersOf(d), ['orphan']);
    const ev = await call('POST', `/api/v1/namespaces/${NS}/events`, {
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev' }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: NS }, reason: 'R', message: 'm', type: 'Normal' },
    });
    assert.equal(ev.status, 201, ev.text);
    const de = await del(`/api/v1/namespaces/${NS}/events/ev`, { propagationPolicy: 'Foreground' });
    assert.equal(de.json.kind, 'Status');
    assert.equal((await call('GET', `/api/v1/namespaces/${NS}/events/ev`)).status, 404);
  });

  it('spec 3.1: deletecollection with Foreground marks every item', async () => {
    await makeCm('col-a');
    await makeCm('col-b');
    const r = await call('DELETE', `${cmPath()}?propagationPolicy=Foreground&fieldSelector=metadata.name%3Dcol-a`);
    assert.equal(r.status, 200, r.text);
    const a = await call('GET', cmPath('col-a'));
    assert.deepEqual(finalizersOf(a), ['foregroundDeletion']);
    assert.equal((await call('GET', cmPath('col-b'))).json.metadata.deletionTimestamp, undefined);
  });
});
