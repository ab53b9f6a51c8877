import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type protobuf from 'protobufjs';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { crdBody, waitFor } from './helpers/crd.js';
import { kubectl } from './helpers/kubectl.js';
import { anyJson, EMPTY_DEFAULT, expectedAfterProtobuf, loadV3Document, openAPIOf } from './helpers/openapi-v3-reader.js';

const V3_PROTOBUF = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';
const V3_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
const GROUP = 'pb.example.com';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe('/openapi/v3/<group-version> in gnostic protobuf', () => {
  let server: RunningServer;
  let dir: string;
  let Document: protobuf.Type;
  let get: (path: string, headers?: Record<string, string>) => Promise<Raw>;
  const urlOf = async (key: string): Promise<string | undefined> => JSON.parse((await get('/openapi/v3')).body.toString()).paths[key]?.serverRelativeURL;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-openapi-v3-pb-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    Document = await loadV3Document();
    const call = client(server);
    get = async (path, headers = {}) => {
      const r = await call('GET', path, { headers });
      return { status: r.status, headers: r.headers, body: r.body };
    };
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: api/v1 in protobuf decodes to the JSON document (paths, operations, parameters, responses, schemas, x-kubernetes-* extensions), with the JSON form\'s ETag', async () => {
    const json = await get('/openapi/v3/api/v1', { accept: 'application/json' });
    const pb = await get('/openapi/v3/api/v1', { accept: V3_PROTOBUF });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], V3_PROTOBUF);
    const etag = `"${createHash('sha512').update(json.body).digest('hex').toUpperCase()}"`;
    assert.equal(json.headers.etag, etag);
    assert.equal(pb.headers.etag, etag, 'one tag for both forms, as the reference');
    assert.equal(pb.headers.vary, 'Accept');
    assert.equal(pb.headers['cache-control'], 'no-cache, private');

    const doc = JSON.parse(json.body.toString());
    const back = openAPIOf(pb.body, Document);
    assert.deepEqual(back, expectedAfterProtobuf(doc));
    // Spot checks of what the comparison covers, so a reader that lost everything could not pass.
    const podGet = back.paths['/api/v1/namespaces/{namespace}/pods/{name}'].get;
    assert.equal(podGet['x-kubernetes-action'], 'get');
    assert.deepEqual(podGet['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Pod' });
    assert.match(podGet.responses['200'].content['application/json'].schema.$ref, /^#\/components\/schemas\/.*\.core\.v1\.Pod$/);
    const pod = Object.entries(back.components.schemas).find(([n]) => /\.core\.v1\.Pod$/.test(n))![1] as any;
    assert.match(pod.properties.metadata.$ref, /ObjectMeta$/);
    assert.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
  });

  it('reference behaviour: Accept negotiation of the v3 documents (the older protobuf spelling is answered with the current one; 406 for what neither form serves)', async () => {
    const table: [accept: string, status: number, type?: string][] = [
      ['*/*', 200, 'application/json'],
      ['application/json', 200, 'application/json'],
      [V3_PROTOBUF, 200, V3_PROTOBUF],
      [V3_PROTOBUF_DEPRECATED, 200, V3_PROTOBUF],
      [`application/json;q=0.5, ${V3_PROTOBUF}`, 200, V3_PROTOBUF],
      [`*/*, ${V3_PROTOBUF_DEPRECATED}`, 200, V3_PROTOBUF],
      ['text/html', 406],
      ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 406],
    ];
    for (const [accept, status, type] of table) {
      const r = await get('/openapi/v3/api/v1', { accept });
      assert.equal(r.status, status, accept);
      if (type) assert.equal(r.headers['content-type'], type, accept);
      else assert.equal(JSON.parse(r.body.toString()).reason, 'NotAcceptable', accept);
    }
  });

  it('reference behaviour: the protobuf form answers 304 to a matching If-None-Match, follows the index hash (immutable when current, 301 when stale)', async () => {
    const url = (await urlOf('api/v1'))!;
    const first = await get(url, { accept: V3_PROTOBUF });
    assert.equal(first.status, 200);
    assert.equal(first.headers['cache-control'], 'public, immutable');
    assert.equal(first.headers.etag, `"${new URL(url, server.url).searchParams.get('hash')}"`);
    const again = await get(url, { accept: V3_PROTOBUF, 'if-none-match': String(first.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const stale = await get('/openapi/v3/api/v1?hash=0123', { accept: V3_PROTOBUF });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
  });

  it('reference behaviour: a CRD\'s group-version is served in protobuf once it is created, with its schema, x-kubernetes-* extensions and defaults', async () => {
    assert.equal(await urlOf(`apis/${GROUP}/v1`), undefined);
    const crd = crdBody(GROUP);
    const spec = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec as any;
    spec.properties.labels = { type: 'object', additionalProperties: { type: 'string' }, default: { team: 'a' } };
    spec.properties.mode = { type: 'string', enum: ['on', 'off'], default: 'on' };
    spec.properties.port = { 'x-kubernetes-int-or-string': true };
    const created = await client(server)('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', { body: crd });
    assert.equal(created.status, 201, created.text);
    await waitFor('the CRD in the v3 index', async () => (await urlOf(`apis/${GROUP}/v1`)) !== undefined, 10_000);

    const url = (await urlOf(`apis/${GROUP}/v1`))!;
    const json = await get(url, { accept: 'application/json' });
    const pb = await get(url, { accept: V3_PROTOBUF });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.etag, json.headers.etag);
    const doc = JSON.parse(json.body.toString());
    const back = openAPIOf(pb.body, Document);
    assert.deepEqual(back, expectedAfterProtobuf(doc));
    const [name, cronTab] = Object.entries(back.components.schemas).find(([n]) => n.endsWith('.CronTab'))! as [string, any];
    assert.match(name, /^com\.example\.pb\.v1\.CronTab$/);
    const s = cronTab.properties.spec;
    assert.equal(s.properties.replicas.default, 1);
    assert.equal(s.properties.mode.default, 'on');
    assert.deepEqual(s.properties.mode.enum, ['on', 'off'], 'enum values that YAML 1.1 reads as booleans stay strings');
    assert.equal(s.properties.labels.default, EMPTY_DEFAULT);
    assert.deepEqual(s.properties.port, { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });
    // The raw extension entry is the gnostic named-any form: name and YAML text.
    const m = Document.toObject(Document.decode(pb.body)) as any;
    const raw = m.components.schemas.additional_properties.find((p: any) => p.name === name).value.schema.specification_extension;
    assert.deepEqual(raw.map((e: any) => [e.name, anyJson(e.value)]), [['x-kubernetes-group-version-kind', [{ group: GROUP, version: 'v1', kind: 'CronTab' }]]]);
  });

  it('reference behaviour: kubectl explain (which reads the v3 JSON documents) still works, for a built-in type and the CRD', async () => {
    const k = kubectl(server.kubeconfigPath!);
    assert.match(await k(['explain', 'pods.spec.containers']), /FIELDS:[\s\S]*image\s+<string>/);
    await waitFor('kubectl explain crontabs', async () => k(['explain', 'crontabs.spec']).then((o) => /cronSpec/.test(o), () => false), 10_000);
    assert.match(await k(['explain', 'crontabs.spec.mode']), /ENUM:[\s\S]*on[\s\S]*off/);
  });
});
