/**
 * Requests built to exhaust the server (issue 23; spec 7, 8): every expansion a body can cause is bounded
 * before it allocates, deep or cyclic input is a clean 4xx, errors never echo a huge value, and a refused
 * request stores nothing. Memory is measured around each expansion on this in-process server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PROTOBUF_MEDIA_TYPE } from '../src/api/naming.js';
import { encodeProtobuf } from '../src/encoding/index.js';
import { MAX_NESTING_DEPTH, MAX_REQUEST_BYTES } from '../src/encoding/limits.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { MB, measureMemory } from './helpers/memory.js';

const CM = '/api/v1/namespaces/default/configmaps';
const CR = '/apis/apps/v1/namespaces/default/controllerrevisions';
const PT = '/api/v1/namespaces/default/podtemplates';
const JSON_BODY = { 'content-type': 'application/json' };
const YAML_BODY = { 'content-type': 'application/yaml' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

/** `levels` nested objects as JSON text: `nested(2)` is `{"a":{"a":1}}`. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const revision = (name: string, data: string) =>
  `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"${name}"},"revision":1,"data":${data}}`;

describe('hostile input cannot exhaust the server (issue 23; spec 7, 8)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  /** A ConfigMap to attack, and its resourceVersion (to prove a refused request changed nothing). */
  async function configMap(name: string, data: Record<string, string> = { a: 'x'.repeat(64) }): Promise<string> {
    const r = await call('POST', CM, { body: { metadata: { name }, data } });
    assert.equal(r.status, 201, r.text);
    return r.json.metadata.resourceVersion as string;
  }

  async function assertUnchanged(path: string, resourceVersion: string): Promise<void> {
    const now = await call('GET', path);
    assert.equal(now.status, 200, now.text);
    assert.equal(now.json.metadata.resourceVersion, resourceVersion);
  }

  function assertStatus(r: Response, code: number, message: RegExp): void {
    assert.equal(r.status, code, r.text.slice(0, 500));
    assert.equal(r.json?.kind, 'Status');
    assert.equal(r.json.code, code);
    assert.match(r.json.message, message);
  }

  describe('JSON patch (reference behaviour: accumulated copy size and operation count are limited)', () => {
    it('30 copy operations doubling a value: 422 from a 1.4 KB body, heap bounded, nothing changed, server still answers', async () => {
      const rv = await configMap('doubling');
      const ops = Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i}` }));
      const raw = JSON.stringify(ops);
      assert.ok(raw.length < 1500);
      const m = await measureMemory(() => call('PATCH', `${CM}/doubling`, { raw, headers: JSON_PATCH }));
      assertStatus(m.result, 422, /accumulated size increase of copy is over 3145728 bytes, exceeding the limit 3145728/);
      assert.ok(m.peakRise < 64 * MB, `peak resident memory rose by ${m.peakRise} bytes`);
      assert.ok(m.retained < 8 * MB, `heap retained ${m.retained} bytes`);
      await assertUnchanged(`${CM}/doubling`, rv);
      assert.equal((await call('GET', '/readyz')).status, 200);
    });

    it('20 copy operations: the 422 is a short Status, not one that repeats the doubled value', async () => {
      const rv = await configMap('doubling-20');
      const ops = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i}` }));
      const r = await call('PATCH', `${CM}/doubling-20`, { raw: JSON.stringify(ops), headers: JSON_PATCH });
      assertStatus(r, 422, /jsonpatch copy operation does not apply/);
      assert.ok(r.text.length < 2048, `the answer is ${r.text.length} bytes`);
      await assertUnchanged(`${CM}/doubling-20`, rv);
    });

    it('10,000 operations apply; 10,001 are 413 RequestEntityTooLarge with the reference message', async () => {
      const rv = await configMap('many-ops', { a: 'x' });
      const test = { op: 'test', path: '/data/a', value: 'x' };
      const ok = await call('PATCH', `${CM}/many-ops`, { raw: JSON.stringify(Array(10_000).fill(test)), headers: JSON_PATCH });
      assert.equal(ok.status, 200, ok.text.slice(0, 300));
      const r = await call('PATCH', `${CM}/many-ops`, { raw: JSON.stringify(Array(10_001).fill(test)), headers: JSON_PATCH });
      assertStatus(r, 413, /^Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001$/);
      assert.equal(r.json.reason, 'RequestEntityTooLarge');
      await assertUnchanged(`${CM}/many-ops`, rv);
    });

    it('a JSON patch whose result nests deeper than the limit is 422 and changes nothing', async () => {
      const rv = await configMap('deep-result');
      // Each value is within the limit on its own; the second lands inside the first.
      const ops = [
        { op: 'add', path: '/metadata/x', value: JSON.parse(nested(MAX_NESTING_DEPTH - 2)) },
        { op: 'add', path: `/metadata/x${'/a'.repeat(MAX_NESTING_DEPTH - 3)}`, value: { b: { c: 1 } } },
      ];
      const r = await call('PATCH', `${CM}/deep-result`, { raw: JSON.stringify(ops), headers: JSON_PATCH });
      assertStatus(r, 422, new RegExp(`nests deeper than the limit of ${MAX_NESTING_DEPTH} levels`));
      await assertUnchanged(`${CM}/deep-result`, rv);
    });
  });

  describe('nesting depth (spec 8; the reference fails cleanly past its limit, never with 500)', () => {
    it('10,000 levels on PUT, merge, strategic merge, JSON patch and apply of a ConfigMap are 400 and change nothing', async () => {
      const rv = await configMap('deep-cm');
      const deep = nested(10_000);
      const attempts: [string, string, Record<string, string>][] = [
        ['PUT', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-cm"},"x":${deep}}`, JSON_BODY],
        ['PATCH', `{"x":${deep}}`, MERGE_PATCH],
        ['PATCH', `{"x":${deep}}`, SMP],
        ['PATCH', `[{"op":"add","path":"/x","value":${deep}}]`, JSON_PATCH],
        ['PATCH', `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-cm"},"x":${deep}}`, APPLY],
      ];
      for (const [method, raw, headers] of attempts) {
        const r = await call(method, `${CM}/deep-cm?fieldManager=deep`, { raw, headers });
        assertStatus(r, 400, new RegExp(`deeper than the limit of ${MAX_NESTING_DEPTH} levels`));
      }
      await assertUnchanged(`${CM}/deep-cm`, rv);
    });

    it('free-form data nested 5,000 levels (JSON create, apply) and 3,000 levels (protobuf create) is 400 and stores nothing', async () => {
      const create = await call('POST', CR, { raw: revision('deep-json', nested(5000)), headers: JSON_BODY });
      assertStatus(create, 400, /as JSON: it nests objects and arrays deeper than the limit/);
      const apply = await call('PATCH', `${CR}/deep-apply?fieldManager=deep`, { raw: revision('deep-apply', nested(5000)), headers: APPLY });
      assertStatus(apply, 400, /deeper than the limit/);
      const pb = encodeProtobuf({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'deep-pb' }, revision: 1, data: JSON.parse(nested(3000)) });
      const proto = await call('POST', CR, { raw: pb, headers: { 'content-type': PROTOBUF_MEDIA_TYPE } });
      assertStatus(proto, 400, /as protobuf: it nests objects and arrays deeper than the limit/);
      for (const name of ['deep-json', 'deep-apply', 'deep-pb']) assert.equal((await call('GET', `${CR}/${name}`)).status, 404);
    });

    it('a YAML body nested past the limit is 400 and stores nothing', async () => {
      let yaml = 'apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: deep-yaml\nrevision: 1\ndata:\n';
      for (let i = 1; i <= MAX_NESTING_DEPTH; i++) yaml += `${' '.repeat(i)}a:\n`;
      const r = await call('POST', CR, { raw: yaml, headers: YAML_BODY });
      assertStatus(r, 400, /as YAML: it nests objects and arrays deeper than the limit/);
      assert.equal((await call('GET', `${CR}/deep-yaml`)).status, 404);
    });

    it('an object nested exactly to the limit is created, applied, updated by every patch type and served as JSON, YAML and protobuf', async () => {
      // The top object is one level: data adds the rest.
      const atLimit = nested(MAX_NESTING_DEPTH - 1);
      const created = await call('POST', CR, { raw: revision('at-limit', atLimit), headers: JSON_BODY });
      assert.equal(created.status, 201, created.text.slice(0, 300));
      for (const accept of ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE]) {
        const got = await call('GET', `${CR}/at-limit`, { headers: { accept } });
        assert.equal(got.status, 200, `${accept}: ${got.text.slice(0, 300)}`);
      }
      const applied = await call('PATCH', `${CR}/at-limit-apply?fieldManager=deep`, { raw: revision('at-limit-apply', atLimit), headers: APPLY });
      assert.equal(applied.status, 201, applied.text.slice(0, 300));
      // Every write path walks the deep data (clone, equality, field sets), changing only the revision.
      const writes: [string, string, Record<string, string>][] = [
        ['PUT', revision('at-limit', atLimit).replace('"revision":1', '"revision":2'), JSON_BODY],
        ['PATCH', '{"revision":3}', MERGE_PATCH],
        ['PATCH', '{"revision":4}', SMP],
        ['PATCH', '[{"op":"replace","path":"/revision","value":5}]', JSON_PATCH],
      ];
      for (const [method, raw, headers] of writes) {
        const r = await call(method, `${CR}/at-limit`, { raw, headers });
        assert.equal(r.status, 200, `${headers['content-type']}: ${r.text.slice(0, 300)}`);
      }
      const over = await call('POST', CR, { raw: revision('over-limit', nested(MAX_NESTING_DEPTH)), headers: JSON_BODY });
      assertStatus(over, 400, /deeper than the limit/);
    });
  });

  describe('YAML aliases (spec 8, reference behaviour: aliases are limited and expanded)', () => {
    const cyclic = 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: cyclic\n  labels: *m\n';

    it('an alias that makes a cycle is 400 on create and as an apply patch, and nothing is stored', async () => {
      assertStatus(await call('POST', CM, { raw: cyclic, headers: YAML_BODY }), 400, /an alias refers to a node that contains it/);
      assertStatus(await call('PATCH', `${CM}/cyclic?fieldManager=y`, { raw: cyclic, headers: APPLY }), 400, /an alias refers to a node that contains it/);
      assert.equal((await call('GET', `${CM}/cyclic`)).status, 404);
    });

    it('aliases expanding a 100 KB body past the body limit are 413, store nothing and retain no heap', async () => {
      // A PodTemplate: unlike a ConfigMap, no validation rule would catch the expanded size.
      const aliases = Array.from({ length: 40 }, () => '*big').join(', ');
      const raw =
        'apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: laughs\ntemplate:\n  spec:\n    containers:\n' +
        `    - name: a\n      image: busybox\n      args: [&big "${'x'.repeat(100 * 1024)}", ${aliases}]\n`;
      const m = await measureMemory(() => call('POST', PT, { raw, headers: YAML_BODY }));
      assertStatus(m.result, 413, new RegExp(`with its aliases expanded it is over the limit of ${MAX_REQUEST_BYTES} bytes`));
      assert.ok(m.retained < 4 * MB, `heap retained ${m.retained} bytes`);
      assert.ok(m.peakRise < 64 * MB, `peak resident memory rose by ${m.peakRise} bytes`);
      assert.equal((await call('GET', `${PT}/laughs`)).status, 404);
    });

    it('a YAML body of 300,000 tiny nodes is 413 before the parser takes hundreds of megabytes', async () => {
      const raw = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flood}\nx: [${'1,'.repeat(300_000)}1]\n`;
      const m = await measureMemory(() => call('POST', CM, { raw, headers: YAML_BODY }));
      assertStatus(m.result, 413, /the YAML body is too large: it has more than 50000 nodes/);
      assert.ok(m.peakRise < 64 * MB, `peak resident memory rose by ${m.peakRise} bytes`);
      assert.equal((await call('GET', `${CM}/flood`)).status, 404);
    });
  });

  describe('results of strategic merge and apply are held to the body limit (spec 8, reference behaviour)', () => {
    const template = (name: string, container: string, size: number) => ({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name },
      template: { spec: { containers: [{ name: container, image: 'busybox', args: ['y'.repeat(size)] }] } },
    });

    it('a patch or apply that grows an object past 3 MiB is 413, with bounded memory, and changes nothing', async () => {
      const made = await call('POST', PT, { body: template('growing', 'a', 1.6 * MB) });
      assert.equal(made.status, 201, made.text.slice(0, 300));
      const rv = made.json.metadata.resourceVersion as string;
      const more = { template: { spec: { containers: [{ name: 'b', image: 'busybox', args: ['z'.repeat(1.6 * MB)] }] } } };
      const smp = await measureMemory(() => call('PATCH', `${PT}/growing`, { raw: JSON.stringify(more), headers: SMP }));
      assertStatus(smp.result, 413, /too large to store: \d+ bytes, the limit is 3145728 bytes/);
      assert.ok(smp.retained < 8 * MB, `heap retained ${smp.retained} bytes`);
      assert.ok(smp.peakRise < 96 * MB, `peak resident memory rose by ${smp.peakRise} bytes`);
      const applied = await call('PATCH', `${PT}/growing?fieldManager=other`, { raw: JSON.stringify(template('growing', 'b', 1.6 * MB)), headers: APPLY });
      assertStatus(applied, 413, /too large to store/);
      await assertUnchanged(`${PT}/growing`, rv);
    });
  });

  describe('errors never echo unbounded input (spec 7)', () => {
    it('a 1 MB invalid value is quoted in at most a few hundred characters', async () => {
      const rv = await configMap('echo');
      const r = await call('PUT', `${CM}/echo`, { body: { metadata: { name: 'echo' }, data: { a: { b: 'y'.repeat(MB) } } } });
      assertStatus(r, 422, /Invalid value: \{"b":"y+\.\.\.\(\d+ more characters\): must be of type string/);
      assert.ok(r.text.length < 2048, `the answer is ${r.text.length} bytes`);
      await assertUnchanged(`${CM}/echo`, rv);
    });

    it('a 1 MB kind that does not match is named in a short message', async () => {
      const r = await call('POST', CM, { body: { apiVersion: 'v1', kind: 'K'.repeat(MB), metadata: { name: 'kind-echo' } } });
      assertStatus(r, 400, /the kind in the data \(K+\.\.\.\(\d+ more characters\)\) does not match/);
      assert.ok(r.text.length < 2048, `the answer is ${r.text.length} bytes`);
    });
  });
});

describe('found by the fuzz suite (issue 23)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour: a write method on the legacy /watch/ prefix is a 405 Status, not an open watch', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      const r = await call(method, '/api/v1/watch/namespaces/default/configmaps/x?timeoutSeconds=30', { raw: '{}', headers: { ...MERGE_PATCH } });
      assert.equal(r.status, 405, `${method}: ${r.text.slice(0, 300)}`);
      assert.equal(r.json?.kind, 'Status');
      assert.equal(r.json.code, 405);
    }
    const get = await call('GET', '/api/v1/watch/namespaces/default/configmaps?timeoutSeconds=1');
    assert.equal(get.status, 200, get.text);
  });
});
