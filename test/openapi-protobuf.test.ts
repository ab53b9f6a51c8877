import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { startServer, type RunningServer } from '../src/index.js';
import { OPENAPI_V2_PROTO_PATH } from '../src/server/openapi-v2-protobuf.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PROTOBUF_SERVED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

const configMap = (name: string, extra = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}${extra}
data:
  mode: fast
`;
const listOf = (...items: string[]) => `apiVersion: v1
kind: List
items:
${items.map((i) => `- ${i.trim().split('\n').join('\n  ')}`).join('\n')}
`;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

describe('kubectl client-side validation against /openapi/v2 in protobuf (issues 14, 17)', () => {
  let server: RunningServer;
  let dir: string;
  let k: ReturnType<typeof kubectl>;
  let get: (path: string, headers?: Record<string, string>) => Promise<Raw>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-openapi-pb-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    k = kubectl(server.kubeconfigPath!);
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

  it('reference behaviour: create -f and apply -f with validation on (the default) succeed, for a List and single objects', async () => {
    writeFileSync(join(dir, 'list.yaml'), listOf(configMap('l1'), configMap('l2')));
    writeFileSync(join(dir, 'one.yaml'), configMap('single'));
    assert.match(await k(['create', '-f', join(dir, 'list.yaml')]), /configmap\/l1 created\nconfigmap\/l2 created/);
    assert.match(await k(['create', '-f', join(dir, 'one.yaml')]), /configmap\/single created/);
    writeFileSync(join(dir, 'applied.yaml'), listOf(configMap('a1'), configMap('a2')));
    assert.match(await k(['apply', '-f', join(dir, 'applied.yaml')]), /configmap\/a1 created\nconfigmap\/a2 created/);
    assert.match(await k(['apply', '-f', join(dir, 'one.yaml')]), /configmap\/single (configured|unchanged)/);
  });

  it('reference behaviour: replace -f - of the List that get -o json prints succeeds with validation on', async () => {
    const all = await k(['get', 'configmaps', '-o', 'json']);
    assert.equal(JSON.parse(all).kind, 'List');
    const out = await k(['replace', '-f', '-'], all);
    for (const name of ['l1', 'l2', 'a1', 'a2', 'single']) assert.match(out, new RegExp(`configmap/${name} replaced`));
  });

  it('reference behaviour: an unknown field in a List item fails kubectl\'s client-side validation, naming the field and its definition', async () => {
    writeFileSync(join(dir, 'bad-list.yaml'), listOf(configMap('bad1', '\n  bogus: 1'), configMap('bad2')));
    await assert.rejects(k(['create', '-f', join(dir, 'bad-list.yaml')]), /error validating data: .*ValidationError\(ConfigMap\.metadata\): unknown field "bogus" in [\w.]+\.apimachinery\.pkg\.apis\.meta\.v1\.ObjectMeta/);
    await assert.rejects(k(['get', 'configmap', 'bad2']), /not found/, 'nothing of the list was created');
  });

  it('reference behaviour: an unknown field in a single object is refused by the server\'s strict field validation, naming the field', async () => {
    writeFileSync(join(dir, 'bad-one.yaml'), configMap('bad3', '\n  bogus: 1'));
    await assert.rejects(k(['create', '-f', join(dir, 'bad-one.yaml')]), /strict decoding error: unknown field "metadata\.bogus"/);
    await assert.rejects(k(['apply', '-f', join(dir, 'bad-one.yaml')]), /unknown field "metadata\.bogus"/);
  });

  it('reference behaviour: /openapi/v2 in protobuf decodes (protobufjs reading the .proto) to the JSON document\'s paths and definitions, with the JSON form\'s ETag', async () => {
    const json = await get('/openapi/v2', { accept: 'application/json' });
    const pb = await get('/openapi/v2', { accept: PROTOBUF_ACCEPT });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], PROTOBUF_SERVED);
    assert.equal(json.headers['content-type'], 'application/json');
    const etag = `"${createHash('sha512').update(json.body).digest('hex').toUpperCase()}"`;
    assert.equal(json.headers.etag, etag);
    assert.equal(pb.headers.etag, etag, 'one tag for both forms, as the reference');
    assert.equal(pb.headers.vary, 'Accept');
    assert.ok(pb.headers['last-modified']);

    const root = await new protobuf.Root().load(fileURLToPath(OPENAPI_V2_PROTO_PATH), { keepCase: true });
    const doc = root.lookupType('openapi.v2.Document').toObject(root.lookupType('openapi.v2.Document').decode(pb.body)) as any;
    const swagger = JSON.parse(json.body.toString());
    assert.equal(doc.swagger, '2.0');
    assert.deepEqual(doc.paths.path.map((p: { name: string }) => p.name), Object.keys(swagger.paths));
    assert.deepEqual(doc.definitions.additional_properties.map((d: { name: string }) => d.name), Object.keys(swagger.definitions));
  });

  it('reference behaviour: /openapi/v2 answers 304 to a matching If-None-Match, 406 to media types it cannot serve, gzip when accepted', async () => {
    const first = await get('/openapi/v2', { accept: PROTOBUF_ACCEPT });
    const again = await get('/openapi/v2', { accept: PROTOBUF_ACCEPT, 'if-none-match': String(first.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const html = await get('/openapi/v2', { accept: 'text/html' });
    assert.equal(html.status, 406);
    assert.equal(JSON.parse(html.body.toString()).reason, 'NotAcceptable');
    const gz = await get('/openapi/v2', { accept: PROTOBUF_ACCEPT, 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), first.body);
  });

  it('reference behaviour: /openapi/v3 documents: the index hash is the ETag; a stale hash redirects (301), the current one is immutable', async () => {
    const index = await get('/openapi/v3');
    assert.equal(index.status, 200);
    const url: string = JSON.parse(index.body.toString()).paths['api/v1'].serverRelativeURL;
    const hash = new URL(url, server.url).searchParams.get('hash');
    const current = await get(url, { accept: 'application/json' });
    assert.equal(current.status, 200);
    assert.equal(current.headers.etag, `"${hash}"`);
    assert.equal(current.headers['cache-control'], 'public, immutable');
    assert.ok(current.headers.expires);
    const stale = await get('/openapi/v3/api/v1?hash=0123', { accept: 'application/json' });
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, url);
    const unhashed = await get('/openapi/v3/api/v1');
    assert.equal(unhashed.headers['cache-control'], 'no-cache, private');
    const v3pb = await get(url, { accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' });
    assert.equal(v3pb.status, 200, 'the v3 protobuf form is served too (see test/openapi-v3-protobuf.test.ts)');
  });
});
