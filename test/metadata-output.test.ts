import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { META_GROUP, PROTOBUF_MEDIA_TYPE, REFERENCE_META_GROUP_ALIAS } from '../src/api/naming.js';
import { decodeProtobuf, decodeWatchEventProtobuf } from '../src/encoding/protobuf/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { metadataWatchView } from '../src/server/handlers/metadata-output.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const ONE = `application/json;as=PartialObjectMetadata;g=${META_GROUP};v=v1`;
const LIST = `application/json;as=PartialObjectMetadataList;g=${META_GROUP};v=v1`;
const BASE = '/api/v1/namespaces/meta/configmaps';

function raw(server: RunningServer, path: string, accept: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server.url), { headers: { authorization: `Bearer ${server.adminToken}`, accept }, ca: server.caCertPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Splits a protobuf watch body into its length-prefixed frames. */
function frames(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const n = body.readUInt32BE(at);
    out.push(body.subarray(at, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

describe('metadata-only responses (as=PartialObjectMetadata, reference behaviour)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-metadata-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true, controllers: false });
    call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'meta' } } })).status, 201);
    for (let i = 0; i < 5; i++) {
      const r = await call('POST', BASE, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `m${i}`, labels: { set: 'meta' }, finalizers: i === 0 ? ['example.com/hold'] : [] }, data: { big: 'x'.repeat(100) } } });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await call('PATCH', `${BASE}/m0`, { raw: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } });
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: get answers the object reduced to its metadata, in the group and version asked for', async () => {
    const full = (await call('GET', `${BASE}/m0`)).json;
    const r = await call('GET', `${BASE}/m0`, { headers: { accept: ONE } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.json, { kind: 'PartialObjectMetadata', apiVersion: `${META_GROUP}/v1`, metadata: full.metadata });
    const beta = await call('GET', `${BASE}/m0`, { headers: { accept: `application/json;as=PartialObjectMetadata;g=${REFERENCE_META_GROUP_ALIAS};v=v1beta1` } });
    assert.equal(beta.status, 200, beta.text);
    assert.equal(beta.json.apiVersion, `${REFERENCE_META_GROUP_ALIAS}/v1beta1`);
    assert.deepEqual(beta.json.metadata.finalizers, ['example.com/hold']);
    assert.equal(beta.json.data, undefined);
  });

  it('reference behaviour: list answers PartialObjectMetadataList, page by page with the list metadata', async () => {
    const names: string[] = [];
    let cont = '';
    let pages = 0;
    let firstMeta: Record<string, unknown> | undefined;
    do {
      const r = await call('GET', `${BASE}?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, { headers: { accept: LIST } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.kind, 'PartialObjectMetadataList');
      assert.equal(r.json.apiVersion, `${META_GROUP}/v1`);
      firstMeta ??= r.json.metadata;
      for (const item of r.json.items) {
        assert.deepEqual(Object.keys(item).sort(), ['apiVersion', 'kind', 'metadata']);
        assert.equal(item.kind, 'PartialObjectMetadata');
        names.push(item.metadata.name);
      }
      cont = r.json.metadata.continue ?? '';
      pages++;
    } while (cont);
    assert.deepEqual(names, ['m0', 'm1', 'm2', 'm3', 'm4']);
    assert.equal(pages, 3);
    assert.equal(firstMeta?.remainingItemCount, 3);
    assert.ok(firstMeta?.resourceVersion);
  });

  it('reference behaviour: watch events carry PartialObjectMetadata objects (bookmarks too), from a resourceVersion', async () => {
    const rv = (await call('GET', BASE)).json.metadata.resourceVersion;
    const watching = raw(server, `${BASE}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`, ONE);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await call('PATCH', `${BASE}/m1`, { raw: '{"data":{"k":"v"}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    assert.equal((await call('DELETE', `${BASE}/m2`)).status, 200);
    const w = await watching;
    assert.equal(w.status, 200);
    const events = w.body.toString().trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'DELETED', 'BOOKMARK']);
    for (const e of events) {
      assert.equal(e.object.kind, 'PartialObjectMetadata');
      assert.equal(e.object.apiVersion, `${META_GROUP}/v1`);
      assert.equal(e.object.data, undefined);
    }
    assert.equal(events[0].object.metadata.name, 'm1');
    assert.equal(events[1].object.metadata.name, 'm2');
    assert.ok(events[2].object.metadata.resourceVersion);
  });

  it('reference behaviour: the protobuf media type answers get, list and watch in the meta messages', async () => {
    const PB_ONE = `${PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadata;g=${META_GROUP};v=v1`;
    const got = await raw(server, `${BASE}/m0`, PB_ONE);
    assert.equal(got.status, 200, got.body.toString());
    assert.equal(got.type, PROTOBUF_MEDIA_TYPE);
    const obj = decodeProtobuf(got.body);
    assert.equal(obj.kind, 'PartialObjectMetadata');
    assert.equal(obj.metadata?.name, 'm0');
    assert.deepEqual(obj.metadata?.finalizers, ['example.com/hold']);
    const list = decodeProtobuf((await raw(server, `${BASE}?labelSelector=set%3Dmeta`, `${PROTOBUF_MEDIA_TYPE};as=PartialObjectMetadataList;g=${META_GROUP};v=v1beta1`)).body);
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual((list.items as { metadata: { name: string } }[]).map((i) => i.metadata.name), ['m0', 'm1', 'm3', 'm4']);
    const rv = (await call('GET', BASE)).json.metadata.resourceVersion;
    const watching = raw(server, `${BASE}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`, PB_ONE);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await call('PATCH', `${BASE}/m3`, { raw: '{"data":{"k":"w"}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const w = await watching;
    const events = frames(w.body).map(decodeWatchEventProtobuf);
    assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata?.name]), [['MODIFIED', 'PartialObjectMetadata', 'm3']]);
  });

  it('reference behaviour: unknown as/g/v combinations and a list form for one object are 406; a fallback is honoured', async () => {
    const bad = [
      [`${BASE}/m0`, `application/json;as=PartialObjectMetadata;g=${META_GROUP};v=v2`],
      [`${BASE}/m0`, 'application/json;as=PartialObjectMetadata;g=example.com;v=v1'],
      [`${BASE}/m0`, `application/json;as=PartialObject;g=${META_GROUP};v=v1`],
      [`${BASE}/m0`, LIST],
      [BASE, ONE],
      [`${BASE}?watch=1&timeoutSeconds=1`, LIST],
      [`${BASE}/m0`, `application/yaml;as=PartialObjectMetadata;g=${META_GROUP};v=v2`],
    ];
    for (const [path, accept] of bad) {
      const r = await raw(server, path!, accept!);
      assert.equal(r.status, 406, `${path} ${accept}: ${r.body}`);
      assert.equal(JSON.parse(r.body.toString()).reason, 'NotAcceptable');
    }
    const fallback = await call('GET', `${BASE}/m0`, { headers: { accept: `application/json;as=PartialObjectMetadata;g=${META_GROUP};v=v2, application/json` } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.json.kind, 'ConfigMap');
  });

  it('reference behaviour: each event is rendered once per form and shared by every metadata watcher', async () => {
    const view = metadataWatchView({ mediaType: 'application/json', as: { kind: 'PartialObjectMetadata', group: META_GROUP, version: 'v1' } }, 'application/json');
    const render = view.render;
    let renders = 0;
    view.render = (kind, json) => (renders++, render(kind, json));
    try {
      const rv = (await call('GET', BASE)).json.metadata.resourceVersion;
      const watchers = [1, 2, 3].map(() => raw(server, `${BASE}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`, ONE));
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await call('PATCH', `${BASE}/m4`, { raw: '{"data":{"k":"z"}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
      const bodies = (await Promise.all(watchers)).map((w) => w.body.toString());
      assert.equal(new Set(bodies).size, 1);
      assert.equal(JSON.parse(bodies[0]!.trim()).object.metadata.name, 'm4');
      assert.equal(renders, 1);
    } finally {
      view.render = render;
    }
  });

  it('reference behaviour: real kubectl get -o name and delete by label still work (kubectl 1.32 asks for plain JSON there)', async () => {
    const k = kubectl(server.kubeconfigPath!);
    for (const n of ['k1', 'k2']) assert.equal((await call('POST', BASE, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, labels: { kube: 'del' } } } })).status, 201);
    assert.match(await k(['get', 'configmaps', '-n', 'meta', '-l', 'kube=del', '-o', 'name']), /configmap\/k1\nconfigmap\/k2/);
    const out = await k(['delete', 'configmaps', '-n', 'meta', '-l', 'kube=del']);
    assert.match(out, /configmap "k1" deleted/);
    assert.match(out, /configmap "k2" deleted/);
    assert.equal((await call('GET', `${BASE}?labelSelector=kube%3Ddel`)).json.items.length, 0);
  });
});
