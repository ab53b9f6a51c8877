import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { crdBody, waitFor } from './helpers/crd.js';

const CRDS = `/apis/apiextensions.orch.io/v1/customresourcedefinitions`;
const condition = (crd: { status?: { conditions?: { type: string; status: string; reason?: string }[] } }, t: string) => crd.status?.conditions?.find((c) => c.type === t);

describe('CRD lifecycle: two servers on one SQLite file, deletion, names, versions (issue 18)', () => {
  let dir: string;
  let a: RunningServer;
  let b: RunningServer;
  let callA: ReturnType<typeof client>;
  let callB: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-life-'));
    const storage = { type: 'sqlite' as const, path: join(dir, 'orch.db') };
    a = await startServer({ port: 0, dataDir: join(dir, 'a'), storage });
    // The second server shares the store; it runs no controllers, as a second worker would not.
    b = await startServer({ port: 0, dataDir: join(dir, 'b'), storage, controllers: false });
    callA = client(a);
    callB = client(b);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('issue 18: a CRD created through one server is served by the other within a second', async () => {
    const g = 'two.example.com';
    const started = Date.now();
    assert.equal((await callA('POST', CRDS, { body: crdBody(g) })).status, 201);
    await waitFor('served by B', async () => (await callB('GET', `/apis/${g}/v1/namespaces/default/crontabs`)).status === 200, 3000);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    const created = await callB('POST', `/apis/${g}/v1/namespaces/default/crontabs`, { body: { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: 'x' }, spec: { cronSpec: 'y' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal((await callA('GET', `/apis/${g}/v1/namespaces/default/crontabs/x`)).json.spec.cronSpec, 'y');
  });

  it('reference behaviour: deleting a CRD deletes its instances, then the CRD; its paths are 404 on both servers; recreating starts empty', async () => {
    const g = 'del.example.com';
    const path = `/apis/${g}/v1/namespaces/default/crontabs`;
    await callA('POST', CRDS, { body: crdBody(g) });
    await waitFor('served', async () => (await callA('GET', path)).status === 200);
    for (const n of ['one', 'two']) assert.equal((await callA('POST', path, { body: { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: n }, spec: {} } })).status, 201);
    const del = await callA('DELETE', `${CRDS}/crontabs.${g}`);
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await waitFor('CRD gone', async () => (await callA('GET', `${CRDS}/crontabs.${g}`)).status === 404);
    await waitFor('404 on A and B', async () => (await callA('GET', path)).status === 404 && (await callB('GET', path)).status === 404);
    const discovery = await callA('GET', `/apis/${g}/v1`);
    assert.equal(discovery.status, 404);
    assert.equal((await callA('POST', CRDS, { body: crdBody(g) })).status, 201);
    await waitFor('served again', async () => (await callA('GET', path)).status === 200);
    assert.deepEqual((await callA('GET', path)).json.items, []);
  });

  it('reference behaviour: a CRD whose plural another CRD of the group accepted is NamesAccepted False (PluralConflict) and not served', async () => {
    const g = 'names.example.com';
    await callA('POST', CRDS, { body: crdBody(g, { plural: 'things', kind: 'Thing', shortNames: [] }) });
    await waitFor('first established', async () => condition((await callA('GET', `${CRDS}/things.${g}`)).json, 'Established')?.status === 'True');
    // Same group, a different CRD name (`others`), but asking for the plural `things` through its singular.
    const clash = crdBody(g, { plural: 'others', kind: 'Other', shortNames: ['things'] });
    assert.equal((await callA('POST', CRDS, { body: clash })).status, 201);
    await waitFor('conflict reported', async () => condition((await callA('GET', `${CRDS}/others.${g}`)).json, 'NamesAccepted')?.status === 'False');
    const crd = (await callA('GET', `${CRDS}/others.${g}`)).json;
    assert.equal(condition(crd, 'NamesAccepted')?.reason, 'ShortNamesConflict');
    assert.equal(condition(crd, 'Established')?.status, 'False');
    assert.equal((await callA('GET', `/apis/${g}/v1/namespaces/default/others`)).status, 404);
  });

  it('reference behaviour: two versions with conversion None share the objects (apiVersion rewritten); a deprecated version warns', async () => {
    const g = 'multi.example.com';
    const body = crdBody(g);
    const v1 = body.spec.versions[0] as Record<string, unknown>;
    const v1beta1 = { ...structuredClone(v1), name: 'v1beta1', storage: false, deprecated: true, deprecationWarning: 'use v1 please' };
    body.spec.versions.push(v1beta1 as unknown as (typeof body.spec.versions)[0]);
    await callA('POST', CRDS, { body });
    await waitFor('served', async () => (await callA('GET', `/apis/${g}/v1beta1/namespaces/default/crontabs`)).status === 200);
    const old = await callA('POST', `/apis/${g}/v1beta1/namespaces/default/crontabs`, { body: { apiVersion: `${g}/v1beta1`, kind: 'CronTab', metadata: { name: 'm' }, spec: { cronSpec: 'c' } } });
    assert.equal(old.status, 201, old.text);
    assert.equal(old.headers.warning, '299 - "use v1 please"');
    const now = await callA('GET', `/apis/${g}/v1/namespaces/default/crontabs/m`);
    assert.equal(now.json.apiVersion, `${g}/v1`);
    assert.equal(now.json.spec.cronSpec, 'c');
    const groups = (await callA('GET', `/apis/${g}`)).json;
    assert.equal(groups.preferredVersion.version, 'v1');
  });

  it('reference behaviour: a cluster-scoped custom resource has no namespace; namespace deletion removes namespaced custom resources', async () => {
    const g = 'scope.example.com';
    await callA('POST', CRDS, { body: crdBody(g, { scope: 'Cluster' }) });
    await callA('POST', CRDS, { body: crdBody(g, { plural: 'nsthings', kind: 'NsThing', shortNames: [] }) });
    await waitFor('served', async () => (await callA('GET', `/apis/${g}/v1/crontabs`)).status === 200 && (await callA('GET', `/apis/${g}/v1/namespaces/default/nsthings`)).status === 200);
    const c = await callA('POST', `/apis/${g}/v1/crontabs`, { body: { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: 'c', namespace: 'x' }, spec: {} } });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.json.metadata.namespace, undefined);
    assert.equal((await callA('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } } })).status, 201);
    const inNs = `/apis/${g}/v1/namespaces/gone/nsthings`;
    assert.equal((await callA('POST', inNs, { body: { apiVersion: `${g}/v1`, kind: 'NsThing', metadata: { name: 'n' }, spec: {} } })).status, 201);
    await callA('DELETE', '/api/v1/namespaces/gone');
    await waitFor('namespace gone', async () => (await callA('GET', '/api/v1/namespaces/gone')).status === 404, 8000);
    assert.deepEqual((await callA('GET', `/apis/${g}/v1/nsthings`)).json.items, []);
  });

  it('reference behaviour: a terminating CRD refuses creates (405), waits for instances holding finalizers, then goes', async () => {
    const g = 'term.example.com';
    const path = `/apis/${g}/v1/namespaces/default/crontabs`;
    await callA('POST', CRDS, { body: crdBody(g) });
    await waitFor('served', async () => (await callA('GET', path)).status === 200);
    const held = await callA('POST', path, { body: { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: {} } });
    assert.equal(held.status, 201, held.text);
    await callA('DELETE', `${CRDS}/crontabs.${g}`);
    await waitFor('terminating', async () => condition((await callA('GET', `${CRDS}/crontabs.${g}`)).json, 'Terminating')?.reason === 'InstanceDeletionCheck');
    const refused = await callA('POST', path, { body: { apiVersion: `${g}/v1`, kind: 'CronTab', metadata: { name: 'late' }, spec: {} } });
    assert.equal(refused.status, 405, refused.text);
    assert.match(refused.json.message, /terminating/);
    assert.ok((await callA('GET', `${path}/held`)).json.metadata.deletionTimestamp);
    const released = await callA('PATCH', `${path}/held`, { raw: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(released.status, 200, released.text);
    await waitFor('CRD gone', async () => (await callA('GET', `${CRDS}/crontabs.${g}`)).status === 404, 5000);
    assert.equal((await callA('GET', path)).status, 404);
  });
});
