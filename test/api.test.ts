import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents, type RequestOptions } from './helpers/client.js';

let server: RunningServer;
let call: ReturnType<typeof client>;

before(async () => {
  server = await startServer({ port: 0, storage: { type: 'memory' } });
  call = client(server);
});
after(() => server.close());

const cm = (name: string, data: Record<string, string> = { a: '1' }, extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

describe('resource API over HTTPS (spec 4.1)', () => {
  it('creates, gets, lists, updates and deletes a ConfigMap (spec 4.1, 2.1)', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('crud') });
    assert.equal(created.status, 201, created.text);
    const meta = created.json.metadata;
    assert.match(meta.uid, /^[0-9a-f-]{36}$/);
    assert.match(meta.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(meta.resourceVersion, /^\d+$/);
    assert.equal(meta.namespace, 'default');
    const got = await call('GET', '/api/v1/namespaces/default/configmaps/crud');
    assert.deepEqual(got.json, created.json);
    const list = await call('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(list.json.kind, 'ConfigMapList');
    assert.ok(list.json.items.some((i: any) => i.metadata.name === 'crud'));
    const put = await call('PUT', '/api/v1/namespaces/default/configmaps/crud', { body: { ...got.json, data: { a: '2' } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.data.a, '2');
    assert.notEqual(put.json.metadata.resourceVersion, meta.resourceVersion);
    assert.equal(put.json.metadata.uid, meta.uid);
    const del = await call('DELETE', '/api/v1/namespaces/default/configmaps/crud');
    assert.equal(del.status, 200, del.text);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/crud')).status, 404);
  });

  it('spec 4.4: a create answers with the stored object in the negotiated media type (JSON as stored, YAML), and a dry run stores nothing', async () => {
    const json = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('answered', { k: 'v' }) });
    assert.equal(json.status, 201, json.text);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const got = await call('GET', '/api/v1/namespaces/default/configmaps/answered');
    assert.equal(json.text, got.text, 'the create answer is byte for byte what a GET serves');
    assert.equal(json.json.metadata.resourceVersion, got.json.metadata.resourceVersion);
    assert.deepEqual(json.json.metadata.managedFields?.[0]?.fieldsV1?.['f:data']?.['f:k'], {});

    const yaml = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('answered-yaml'), headers: { accept: 'application/yaml' } });
    assert.equal(yaml.status, 201, yaml.text);
    assert.match(String(yaml.headers['content-type']), /^application\/yaml/);
    const doc = parse(yaml.text) as { metadata: { name: string; resourceVersion: string }; kind: string };
    assert.equal(doc.kind, 'ConfigMap');
    assert.equal(doc.metadata.name, 'answered-yaml');
    assert.equal(doc.metadata.resourceVersion, (await call('GET', '/api/v1/namespaces/default/configmaps/answered-yaml')).json.metadata.resourceVersion);

    const dry = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('answered-dry') });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.json.metadata.name, 'answered-dry');
    assert.equal(dry.json.metadata.resourceVersion, undefined);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/answered-dry')).status, 404);
  });

  it('answers 409 AlreadyExists for a taken name and 409 Conflict for a stale resourceVersion (spec 7)', async () => {
    const first = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('taken') });
    const again = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('taken') });
    assert.equal(again.status, 409);
    assert.equal(again.json.reason, 'AlreadyExists');
    assert.equal(again.json.kind, 'Status');
    assert.equal(again.json.details.name, 'taken');
    await call('PUT', '/api/v1/namespaces/default/configmaps/taken', { body: { ...first.json, data: { b: '1' } } });
    const stale = await call('PUT', '/api/v1/namespaces/default/configmaps/taken', { body: { ...first.json, data: { c: '1' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.reason, 'Conflict');
  });

  it('generateName draws a random suffix (spec 2.1)', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('', {}, { generateName: 'gen-' }) });
    assert.equal(r.status, 201, r.text);
    assert.match(r.json.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  it('bumps generation only on spec changes (spec 2.1)', async () => {
    const ns = await call('POST', '/api/v1/namespaces/default/pods', {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gen' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
    });
    assert.equal(ns.status, 201, ns.text);
    assert.equal(ns.json.metadata.generation, 1);
    const labelled = await call('PATCH', '/api/v1/namespaces/default/pods/gen', {
      raw: JSON.stringify({ metadata: { labels: { a: 'b' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(labelled.json.metadata.generation, 1);
    const image = await call('PATCH', '/api/v1/namespaces/default/pods/gen', {
      raw: JSON.stringify([{ op: 'replace', path: '/spec/containers/0/image', value: 'nginx:2' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(image.status, 200, image.text);
    assert.equal(image.json.metadata.generation, 2);
  });

  it('merge patch and JSON patch, including a failing test op (spec 4.3)', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('patched', { a: '1', b: '2' }) });
    const merged = await call('PATCH', '/api/v1/namespaces/default/configmaps/patched', {
      raw: JSON.stringify({ data: { a: null, c: '3' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.deepEqual(merged.json.data, { b: '2', c: '3' });
    const failed = await call('PATCH', '/api/v1/namespaces/default/configmaps/patched', {
      raw: JSON.stringify([{ op: 'test', path: '/data/b', value: 'nope' }, { op: 'remove', path: '/data/b' }]),
      headers: { 'content-type': 'application/json-patch+json' },
    });
    assert.equal(failed.status, 422, failed.text);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/patched')).json.data.b, '2', 'nothing half-applied');
    const unknownType = await call('PATCH', '/api/v1/namespaces/default/configmaps/patched', {
      raw: '{}',
      headers: { 'content-type': 'application/xml-patch+xml' },
    });
    assert.equal(unknownType.status, 415);
  });

  it('finalizers keep a deleted object until the last one is removed (spec 3.1)', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('fin', {}, { finalizers: ['example.com/hold'] }) });
    const del = await call('DELETE', '/api/v1/namespaces/default/configmaps/fin');
    assert.equal(del.status, 202, del.text);
    const terminating = await call('GET', '/api/v1/namespaces/default/configmaps/fin');
    assert.ok(terminating.json.metadata.deletionTimestamp);
    const released = await call('PATCH', '/api/v1/namespaces/default/configmaps/fin', {
      raw: JSON.stringify({ metadata: { finalizers: null } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(released.status, 200, released.text);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/fin')).status, 404);
  });

  it('delete preconditions: a wrong uid is 409 (spec 3.1)', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('pre') });
    const r = await call('DELETE', '/api/v1/namespaces/default/configmaps/pre', {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } },
    });
    assert.equal(r.status, 409);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/pre')).status, 200);
  });

  it('deleting a namespace removes everything in it, then the namespace (spec 3.1)', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } } })).status, 201);
    await call('POST', '/api/v1/namespaces/doomed/configmaps', { body: cm('one') });
    await call('POST', '/api/v1/namespaces/doomed/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } } });
    const del = await call('DELETE', '/api/v1/namespaces/doomed');
    assert.ok(del.status === 200 || del.status === 202, del.text);
    const ns = await call('GET', '/api/v1/namespaces/doomed');
    if (ns.status === 200) {
      assert.equal(ns.json.status.phase, 'Terminating');
      const blocked = await call('POST', '/api/v1/namespaces/doomed/configmaps', { body: cm('late') });
      assert.equal(blocked.status, 403, blocked.text);
    }
    const deadline = Date.now() + 10_000;
    while ((await call('GET', '/api/v1/namespaces/doomed')).status !== 404) {
      assert.ok(Date.now() < deadline, 'namespace still present');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal((await call('GET', '/api/v1/namespaces/doomed/configmaps')).json.items.length, 0);
  });

  it('a create right after its namespace is created succeeds; right after the delete it is 403 (spec 3.1)', async () => {
    for (let i = 0; i < 5; i++) {
      const ns = `quick-${i}`;
      assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
      const held = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...cm('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
      assert.equal(held.status, 201, held.text);
      const del = await call('DELETE', `/api/v1/namespaces/${ns}`);
      assert.ok(del.status === 200 || del.status === 202, del.text);
      // The finalizer keeps the namespace Terminating, so this create must be refused.
      const late = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('late') });
      assert.equal(late.status, 403, late.text);
      assert.match(late.json.message, /terminat/i);
      await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    }
  });

  it('cannot create in a missing namespace (spec 3.1)', async () => {
    const r = await call('POST', '/api/v1/namespaces/nowhere/configmaps', { body: cm('x') });
    assert.equal(r.status, 404);
  });

  it('watch streams ADDED, MODIFIED and DELETED as JSON lines (spec 4.7, 2.5)', async () => {
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } } });
    const list = await call('GET', '/api/v1/namespaces/watched/configmaps');
    const events = watchEvents(server, `/api/v1/namespaces/watched/configmaps?watch=1&resourceVersion=${list.json.metadata.resourceVersion}`, 3);
    await new Promise((r) => setTimeout(r, 100));
    const c = await call('POST', '/api/v1/namespaces/watched/configmaps', { body: cm('w') });
    await call('PUT', '/api/v1/namespaces/watched/configmaps/w', { body: { ...c.json, data: { a: 'x' } } });
    await call('DELETE', '/api/v1/namespaces/watched/configmaps/w');
    const got = await events;
    assert.deepEqual(got.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.equal(got[1].object.data.a, 'x');
  });

  it('a watch without resourceVersion starts with synthetic ADDED events (spec 4.5)', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('pre-existing') });
    const got = await watchEvents(server, '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dpre-existing', 1);
    assert.equal(got[0].type, 'ADDED');
    assert.equal(got[0].object.metadata.name, 'pre-existing');
  });

  it('paginates with limit and continue at one resourceVersion (spec 4.6)', async () => {
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paged' } } });
    for (let i = 0; i < 5; i++) await call('POST', '/api/v1/namespaces/paged/configmaps', { body: cm(`p${i}`, {}, { labels: { page: 'y' } }) });
    // Only the test's own objects: the root-CA publisher adds a ConfigMap to every namespace (issue 19).
    const p1 = await call('GET', '/api/v1/namespaces/paged/configmaps?labelSelector=page%3Dy&limit=2');
    assert.equal(p1.json.items.length, 2);
    assert.ok(p1.json.metadata.continue);
    await call('POST', '/api/v1/namespaces/paged/configmaps', { body: cm('p9-late', {}, { labels: { page: 'y' } }) });
    const p2 = await call('GET', `/api/v1/namespaces/paged/configmaps?labelSelector=page%3Dy&limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
    const p3 = await call('GET', `/api/v1/namespaces/paged/configmaps?labelSelector=page%3Dy&limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
    assert.equal(p2.json.metadata.resourceVersion, p1.json.metadata.resourceVersion);
    assert.deepEqual([...p1.json.items, ...p2.json.items, ...p3.json.items].map((i: any) => i.metadata.name), ['p0', 'p1', 'p2', 'p3', 'p4']);
    assert.ok(!p3.json.metadata.continue);
  });

  it('filters by label selector and rejects bad selectors with 400 (spec 4.2)', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('lab1', {}, { labels: { app: 'x' } }) });
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('lab2', {}, { labels: { app: 'y' } }) });
    const r = await call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=app%3Dx');
    assert.deepEqual(r.json.items.map((i: any) => i.metadata.name), ['lab1']);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=app%3D%3D%3Dx')).status, 400);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=spec.nope%3D1')).status, 400);
  });
});

describe('bad input gets a Status, never a crash (spec 7)', () => {
  const post = (raw: string, ct = 'application/json', path = '/api/v1/namespaces/default/configmaps') =>
    call('POST', path, { raw, headers: { 'content-type': ct } });

  it('malformed JSON and YAML are 400', async () => {
    const j = await post('{"apiVersion": "v1", "kind":');
    assert.equal(j.status, 400);
    assert.equal(j.json.kind, 'Status');
    assert.equal(j.json.code, 400);
    const y = await post('metadata: [unclosed', 'application/yaml');
    assert.equal(y.status, 400);
  });

  it('a YAML body creates like JSON (spec 4.4)', async () => {
    const r = await post('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n', 'application/yaml');
    assert.equal(r.status, 201, r.text);
  });

  it('wrong kind for the URL, and namespace mismatch, are 400', async () => {
    const kind = await post(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }));
    assert.equal(kind.status, 400);
    assert.match(kind.json.message, /kind/);
    const ns = await post(JSON.stringify({ ...cm('m'), metadata: { name: 'm', namespace: 'other' } }));
    assert.equal(ns.status, 400);
    assert.match(ns.json.message, /namespace/);
  });

  it('invalid names and labels are 422 naming every bad field (spec 2.1)', async () => {
    const r = await post(JSON.stringify(cm('Bad_Name', {}, { labels: { 'bad key!': 'v', ok: 'bad value!' } })));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    const fields = r.json.details.causes.map((c: any) => c.field);
    assert.ok(fields.includes('metadata.name'), JSON.stringify(fields));
    assert.ok(fields.filter((f: string) => f.startsWith('metadata.labels')).length >= 2, JSON.stringify(fields));
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/Bad_Name')).status, 404);
  });

  it('an oversized body is 413 and nothing is stored', async () => {
    const big = JSON.stringify(cm('huge', { x: 'y'.repeat(4 * 1024 * 1024) }));
    const r = await post(big);
    assert.equal(r.status, 413);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/huge')).status, 404);
  });

  it('unknown resources are 404, wrong methods 405, unsupported media 415 and 406', async () => {
    const unknown = await call('GET', '/api/v1/namespaces/default/widgets');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.kind, 'Status');
    assert.equal((await call('GET', '/apis/nope.example/v1/things')).status, 404);
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps/named', { body: cm('named') })).status, 405);
    assert.equal((await post('x', 'text/plain')).status, 415);
    const na = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { accept: 'text/html' } });
    assert.equal(na.status, 406);
  });

  it('YAML is served when asked for, with fallback through the Accept list (spec 4.4)', async () => {
    const y = await call('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/vnd.example.unknown, application/yaml' } });
    assert.equal(y.status, 200);
    assert.match(String(y.headers['content-type']), /yaml/);
    assert.match(y.text, /kind: Namespace/);
  });

  it('a bad bearer token is 401 with a Status', async () => {
    const r = await call('GET', '/api/v1/namespaces', { token: 'not-a-token' });
    assert.equal(r.status, 401);
    assert.equal(r.json.kind, 'Status');
  });
});

describe('what clients need (spec 4.9, discovery)', () => {
  it('serves discovery documents', async () => {
    const api = await call('GET', '/api');
    assert.deepEqual(api.json.versions, ['v1']);
    const v1 = await call('GET', '/api/v1');
    const pods = v1.json.resources.find((r: any) => r.name === 'pods');
    assert.equal(pods.kind, 'Pod');
    assert.equal(pods.namespaced, true);
    assert.ok(pods.shortNames.includes('po'));
    assert.ok(v1.json.resources.some((r: any) => r.name === 'pods/status'));
    const apis = await call('GET', '/apis');
    assert.ok(apis.json.groups.some((g: any) => g.name === 'rbac.authorization.orch.io'));
    assert.equal((await call('GET', '/version')).json.major, '1');
  });

  it('health endpoints with verbose, exclude and single checks (spec 4.9)', async () => {
    const v = await call('GET', '/readyz?verbose');
    assert.equal(v.status, 200);
    assert.match(v.text, /\[\+\]ping ok/);
    assert.match(v.text, /readyz check passed/);
    const ex = await call('GET', '/readyz?verbose&exclude=etcd');
    assert.match(ex.text, /\[\+\]etcd excluded: ok/);
    assert.doesNotMatch((await call('GET', '/livez?verbose')).text, /etcd/, 'the store is a readiness check only');
    assert.equal((await call('GET', '/livez/ping')).text, 'ok');
    assert.equal((await call('GET', '/readyz/nonexistent')).status, 404);
  });

  it('serves OpenAPI v2 and v3 with group-version-kind extensions', async () => {
    const v2 = await call('GET', '/openapi/v2');
    assert.equal(v2.json.swagger, '2.0');
    const v3 = await call('GET', '/openapi/v3');
    const core = v3.json.paths['api/v1'];
    const doc = await call('GET', core.serverRelativeURL);
    assert.equal(doc.status, 200);
    assert.ok(Object.values(doc.json.components.schemas).some((s: any) => s['x-kubernetes-group-version-kind']?.[0]?.kind === 'Pod'));
  });
});

describe('max in flight (spec 7: 429)', () => {
  it('past the concurrency limit a request gets 429 with Retry-After, and the server recovers', async () => {
    // The limits apply with priority and fairness off, to users outside system:masters.
    const tokens = join(mkdtempSync(join(tmpdir(), 'orch-inflight-')), 'tokens.csv');
    writeFileSync(tokens, 'tok-writer,writer,uid-writer\n');
    const s = await startServer({ port: 0, storage: { type: 'memory' }, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false, tokenAuthFile: tokens, authorizationModes: ['AlwaysAllow'] });
    const call = client(s);
    const c = (method: string, path: string, opts: RequestOptions = {}) => call(method, path, { token: 'tok-writer', ...opts });
    try {
      // Hold the only mutating slot: a POST whose body has not finished arriving.
      const held = httpsRequest(new URL('/api/v1/namespaces/default/configmaps', s.url), {
        method: 'POST',
        ca: s.caCertPem,
        headers: { authorization: 'Bearer tok-writer', 'content-type': 'application/json', 'content-length': '1000' },
      });
      held.on('error', () => undefined);
      held.write('{');
      await new Promise((r) => setTimeout(r, 200));
      const limited = await c('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      assert.equal(limited.status, 429, limited.text);
      assert.equal(limited.json.reason, 'TooManyRequests');
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal((await c('GET', '/api/v1/namespaces')).status, 200, 'reads have their own limit');
      held.destroy();
      await new Promise((r) => setTimeout(r, 200));
      const after = await c('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
      assert.equal(after.status, 201, after.text);
    } finally {
      await s.close();
    }
  });
});
