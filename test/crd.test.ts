import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents } from './helpers/client.js';
import { crdBody, waitFor } from './helpers/crd.js';

const G = 'stable.example.com';
const CRDS = `/apis/apiextensions.orch.io/v1/customresourcedefinitions`;

describe('custom resources over HTTP (issue 18; spec 1.5, 2.6, 4.3, 4.4, 9.6)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const ns = (p = '') => `/apis/${G}/v1/namespaces/default/crontabs${p}`;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' } });
    call = client(server);
    const r = await call('POST', CRDS, { body: crdBody(G) });
    assert.equal(r.status, 201, r.text);
    await waitFor('CronTab served', async () => (await call('GET', ns())).status === 200);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: the CRD becomes NamesAccepted and Established, with its names accepted and the cleanup finalizer', async () => {
    await waitFor('status written', async () => (await call('GET', `${CRDS}/crontabs.${G}`)).json.status?.conditions?.length >= 2);
    const crd = (await call('GET', `${CRDS}/crontabs.${G}`)).json;
    const cond = (t: string) => crd.status.conditions.find((c: { type: string }) => c.type === t);
    assert.equal(cond('NamesAccepted').status, 'True');
    assert.equal(cond('Established').status, 'True');
    assert.equal(crd.status.acceptedNames.plural, 'crontabs');
    assert.deepEqual(crd.status.acceptedNames.shortNames, ['ct']);
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.ok(crd.metadata.finalizers.includes('customresourcecleanup.apiextensions.orch.io'));
  });

  it('spec 1.5: create, get, update, list and delete a namespaced custom resource; defaults are applied', async () => {
    const created = await call('POST', ns(), { body: { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'a' }, spec: { cronSpec: '* * * * */5', image: 'img' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.spec.replicas, 1);
    assert.equal(created.json.metadata.generation, 1);
    const got = await call('GET', ns('/a'));
    assert.equal(got.status, 200);
    assert.equal(got.json.spec.image, 'img');
    const put = await call('PUT', ns('/a'), { body: { ...got.json, spec: { ...got.json.spec, image: 'img2' } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.metadata.generation, 2);
    const list = await call('GET', ns());
    assert.equal(list.json.kind, 'CronTabList');
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['a']);
    const del = await call('DELETE', ns('/a'));
    assert.equal(del.status, 200, del.text);
    assert.equal((await call('GET', ns('/a'))).status, 404);
  });

  it('spec 9.6: an object violating the schema is 422 listing every offending field', async () => {
    const r = await call('POST', ns(), { body: { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'bad' }, spec: { cronSpec: 5, replicas: -1 } } });
    assert.equal(r.status, 422, r.text);
    const fields = r.json.details.causes.map((c: { field: string }) => c.field).sort();
    assert.ok(fields.includes('spec.cronSpec'), r.text);
    assert.ok(fields.includes('spec.replicas'), r.text);
  });

  it('spec 4.3: strategic merge patch of a custom resource is 415; merge patch works', async () => {
    await call('POST', ns(), { body: { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'p' }, spec: { cronSpec: 'x', image: 'i' } } });
    const smp = await call('PATCH', ns('/p'), { raw: '{"spec":{"image":"j"}}', headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(smp.status, 415, smp.text);
    assert.match(smp.json.message, /application\/merge-patch\+json/);
    const mp = await call('PATCH', ns('/p'), { raw: '{"spec":{"image":"j"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(mp.status, 200, mp.text);
    assert.equal(mp.json.spec.image, 'j');
  });

  it('spec 4.4: protobuf alone is 406, with a JSON fallback it is JSON; a protobuf body is 415', async () => {
    const only = await call('GET', ns('/p'), { headers: { accept: 'application/vnd.orch.protobuf' } });
    assert.equal(only.status, 406, only.text);
    const fallback = await call('GET', ns('/p'), { headers: { accept: 'application/vnd.orch.protobuf, application/json' } });
    assert.equal(fallback.status, 200);
    assert.match(String(fallback.headers['content-type']), /application\/json/);
    const body = await call('POST', ns(), { raw: Buffer.from([0x6b, 0x38, 0x73, 0]), headers: { 'content-type': 'application/vnd.orch.protobuf' } });
    assert.equal(body.status, 415, body.text);
  });

  it('spec 1.5: discovery lists the custom resource with its short names, categories and subresources', async () => {
    const d = await call('GET', `/apis/${G}/v1`);
    assert.equal(d.status, 200);
    const names = d.json.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ['crontabs', 'crontabs/scale', 'crontabs/status']);
    const main = d.json.resources[0];
    assert.deepEqual(main.shortNames, ['ct']);
    assert.deepEqual(main.categories, ['all']);
    assert.equal(d.json.resources[1].kind, 'Scale');
    const groups = (await call('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
    assert.ok(groups.includes(G));
  });

  it('spec 4.7: a watch sees a custom resource created after it opened', async () => {
    const seen = watchEvents(server, `${ns()}?watch=true&fieldSelector=metadata.name%3Dw`, 1, 5000, () => {
      void call('POST', ns(), { body: { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'w' }, spec: { cronSpec: 'x' } } });
    });
    const [e] = await seen;
    assert.equal(e.type, 'ADDED');
    assert.equal(e.object.metadata.name, 'w');
  });

  const make = (name: string, spec: object, extra: object = {}) =>
    call('POST', ns(), { body: { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name, ...extra }, spec } });

  it('spec 1.4: the main resource ignores status; the status subresource changes only status, without a new generation', async () => {
    const c = await make('s1', { cronSpec: 'x' });
    assert.equal(c.status, 201, c.text);
    const withStatus = await call('PUT', ns('/s1'), { body: { ...c.json, status: { replicas: 3 } } });
    assert.equal(withStatus.json.status, undefined);
    const st = await call('PUT', ns('/s1/status'), { body: { ...withStatus.json, spec: { cronSpec: 'changed' }, status: { replicas: 3 } } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.status.replicas, 3);
    assert.equal(st.json.spec.cronSpec, 'x');
    assert.equal(st.json.metadata.generation, 1);
  });

  it('reference behaviour: the scale subresource reads and writes the CRD-declared replica paths', async () => {
    await make('sc', { cronSpec: 'x', replicas: 2 });
    await call('PATCH', ns('/sc/status'), { raw: '{"status":{"replicas":2,"labelSelector":"app=x"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    const scale = await call('GET', ns('/sc/scale'));
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.json.kind, 'Scale');
    assert.deepEqual([scale.json.spec.replicas, scale.json.status.replicas, scale.json.status.selector], [2, 2, 'app=x']);
    const put = await call('PATCH', ns('/sc/scale'), { raw: '{"spec":{"replicas":5}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await call('GET', ns('/sc'))).json.spec.replicas, 5);
  });

  it('spec 2.6: the Table form has the printer columns (date as an age, priority kept)', async () => {
    const r = await call('GET', ns('/sc'), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.orch.io' } });
    assert.equal(r.status, 200, r.text);
    const cols = r.json.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`);
    assert.deepEqual(cols, ['Name:0', 'Spec:0', 'Replicas:0', 'Image:1', 'Age:0']);
    const [name, spec, replicas, image, age] = r.json.rows[0].cells;
    assert.deepEqual([name, spec, replicas, image], ['sc', 'x', 5, null]);
    assert.match(age, /^\d+s$/);
  });

  it('spec 4.2: label selectors and the selectableFields field selector filter lists; unknown fields are 400', async () => {
    await make('f1', { cronSpec: 'x', image: 'nginx' }, { labels: { tier: 'web' } });
    await make('f2', { cronSpec: 'x', image: 'redis' });
    const byField = await call('GET', `${ns()}?fieldSelector=spec.image%3Dnginx`);
    assert.equal(byField.status, 200, byField.text);
    assert.deepEqual(byField.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['f1']);
    const byLabel = await call('GET', `${ns()}?labelSelector=tier%3Dweb`);
    assert.deepEqual(byLabel.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['f1']);
    assert.equal((await call('GET', `${ns()}?fieldSelector=spec.cronSpec%3Dx`)).status, 400);
  });

  it('spec 4.5: lists are chunked with limit and continue', async () => {
    const first = await call('GET', `${ns()}?limit=2`);
    assert.equal(first.json.items.length, 2);
    assert.ok(first.json.metadata.continue);
    const rest = await call('GET', `${ns()}?limit=100&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    const all = (await call('GET', ns())).json.items.length;
    assert.equal(2 + rest.json.items.length, all);
  });

  it('spec 9.6: a failing x-kubernetes-validations rule is 422 with its message', async () => {
    const r = await make('cel', { cronSpec: 'x', image: 'forbidden' });
    assert.equal(r.status, 422, r.text);
    assert.match(r.text, /image may not be forbidden/);
  });

  it('spec 4.2: fieldValidation Strict rejects unknown fields, Warn warns and prunes, Ignore prunes silently', async () => {
    const body = (name: string) => ({ apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name }, spec: { cronSpec: 'x', bogus: 1 } });
    const strict = await call('POST', `${ns()}?fieldValidation=Strict`, { body: body('fv1') });
    assert.equal(strict.status, 400, strict.text);
    assert.match(strict.json.message, /bogus/);
    const warn = await call('POST', `${ns()}?fieldValidation=Warn`, { body: body('fv2') });
    assert.equal(warn.status, 201, warn.text);
    assert.match(String(warn.headers.warning), /bogus/);
    assert.equal(warn.json.spec.bogus, undefined);
    const ignore = await call('POST', `${ns()}?fieldValidation=Ignore`, { body: body('fv3') });
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal(ignore.json.spec.bogus, undefined);
  });

  it('spec 4.3: server-side apply creates and updates a custom resource with managed fields; dry run stores nothing', async () => {
    const apply = (image: string, q = '') =>
      call('PATCH', `${ns('/ssa')}?fieldManager=tester${q}`, { raw: JSON.stringify({ apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'ssa' }, spec: { cronSpec: 'x', image } }), headers: { 'content-type': 'application/apply-patch+yaml' } });
    const dry = await apply('a', '&dryRun=All');
    assert.equal(dry.status, 201, dry.text);
    assert.equal((await call('GET', ns('/ssa'))).status, 404);
    assert.equal((await apply('a')).status, 201);
    const again = await apply('b');
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.spec.image, 'b');
    assert.equal(again.json.metadata.managedFields[0].manager, 'tester');
  });
});
