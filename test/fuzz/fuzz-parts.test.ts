/**
 * The fuzzer's pure parts (issue 23, "a fuzz suite"): a seed reproduces every input, generated bodies
 * follow the reference schemas, and the oracle accepts and rejects answers by its table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROTOBUF_MEDIA_TYPE } from '../../src/api/naming.js';
import { encodeProtobuf } from '../../src/encoding/index.js';
import { definitionSchema } from '../../src/registry/reference-schema.js';
import { objectOf } from './bodies.js';
import { SENTINEL_PREFIX, servedKeys, targets } from './catalogue.js';
import { makeInput } from './inputs.js';
import { judge, type Answer } from './oracle.js';
import { Rng } from './prng.js';
import { deepNest, generate, MUTATIONS, mutate } from './values.js';

const all = targets();
const ctx = { targets: all, token: 'tok' };

describe('fuzz generator (issue 23: a seeded fuzz suite)', () => {
  it('the same seed and index give the same input; another seed gives others', () => {
    for (let i = 0; i < 200; i++) assert.deepEqual(makeInput(7, i, ctx), makeInput(7, i, ctx));
    const a = Array.from({ length: 50 }, (_, i) => makeInput(7, i, ctx).path);
    const b = Array.from({ length: 50 }, (_, i) => makeInput(8, i, ctx).path);
    assert.notDeepEqual(a, b);
  });

  it('the PRNG is uniform enough and in range', () => {
    const rng = new Rng(42);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[rng.int(0, 3)]! += 1;
    for (const c of counts) assert.ok(c > 850 && c < 1150, `bucket ${c}`);
  });

  it('inputs cover every method, body encoding and patch type, and never name a sentinel', () => {
    const methods = new Set<string>();
    const types = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const input = makeInput(11, i, ctx);
      methods.add(input.method);
      if (input.headers['content-type']) types.add(input.headers['content-type']);
      assert.ok(!input.path.includes(SENTINEL_PREFIX), input.path);
      assert.ok(!input.headers.authorization?.includes('admin'), 'inputs carry only the fuzzer token');
    }
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']) assert.ok(methods.has(m), m);
    for (const t of ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE, 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']) {
      assert.ok(types.has(t), t);
    }
  });

  it('objects generated from a reference schema have its required members, and encode as protobuf', () => {
    const deploy = all.find((t) => t.group === 'apps' && t.plural === 'deployments')!;
    const rng = new Rng(3);
    for (let i = 0; i < 20; i++) {
      const obj = objectOf(rng, deploy, 'fz-1', 'fuzz');
      assert.equal(obj.kind, 'Deployment');
      assert.equal((obj.metadata as { namespace: string }).namespace, 'fuzz');
      assert.ok(encodeProtobuf(obj as never).length > 4);
    }
    const spec = generate(new Rng(5), definitionSchema('api.apps.v1.DeploymentSpec')) as Record<string, unknown>;
    assert.ok('selector' in spec && 'template' in spec, JSON.stringify(spec).slice(0, 200));
  });

  it('every mutation returns a value (the input is left as it was)', () => {
    const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fz-0' }, data: { a: 'b' } };
    const copy = structuredClone(base);
    for (const m of MUTATIONS) for (let i = 0; i < 10; i++) assert.notEqual(mutate(new Rng(i), base, m), undefined);
    assert.deepEqual(base, copy);
    assert.equal(JSON.stringify(deepNest(2, false)), '{"a":{"a":1}}');
  });

  it('served keys come from discovery documents, subresources left out', () => {
    const keys = servedKeys([
      { groupVersion: 'v1', resources: [{ name: 'pods' }, { name: 'pods/status' }] },
      { groupVersion: 'apps/v1', resources: [{ name: 'deployments' }] },
    ]);
    assert.deepEqual([...keys].sort(), ['/v1/pods', 'apps/v1/deployments']);
    assert.deepEqual(targets(keys).map((t) => t.plural).sort(), ['deployments', 'pods']);
  });
});

const json = (obj: unknown): Pick<Answer, 'headers' | 'body'> => ({ headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(obj)) });
const status = (code: number, message = 'm') => ({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

describe('fuzz oracle (issue 23: what fails a fuzz run)', () => {
  const cases: [string, string, Answer, RegExp | undefined][] = [
    ['a 200', 'GET', { status: 200, ...json({}) }, undefined],
    ['a 404 Status', 'GET', { status: 404, ...json(status(404)) }, undefined],
    ['a 404 without a body', 'GET', { status: 404, headers: {}, body: Buffer.alloc(0) }, /without a Status body/],
    ['a 400 in plain text', 'POST', { status: 400, headers: { 'content-type': 'text/plain' }, body: Buffer.from('bad') }, /without a Status body/],
    ['a Status of another code', 'POST', { status: 422, ...json(status(400)) }, /differs/],
    ['a 500', 'POST', { status: 500, ...json(status(500, 'Maximum call stack size exceeded')) }, /undocumented 500/],
    ['a 504 for a too-new resourceVersion (spec 7)', 'GET', { status: 504, ...json(status(504, 'Too large resource version: 99, current: 5')) }, undefined],
    ['a 503 when unavailable', 'GET', { status: 503, ...json(status(503, 'the server is shutting down')) }, undefined],
    ['a 500 for a full service range (reference behaviour)', 'POST', { status: 500, ...json(status(500, 'failed to allocate a serviceIP: range is full')) }, undefined],
    ['a YAML Status', 'GET', { status: 403, headers: { 'content-type': 'application/yaml' }, body: Buffer.from('kind: Status\ncode: 403\n') }, undefined],
    ['a protobuf Status', 'GET', { status: 404, headers: { 'content-type': PROTOBUF_MEDIA_TYPE }, body: encodeProtobuf(status(404) as never) }, undefined],
    ['broken protobuf', 'GET', { status: 404, headers: { 'content-type': PROTOBUF_MEDIA_TYPE }, body: Buffer.from('k8s\0zz') }, /does not decode/],
    ['a HEAD error has no body', 'HEAD', { status: 404, headers: {}, body: Buffer.alloc(0) }, undefined],
    ['a reset connection', 'GET', { status: 0, headers: {}, body: Buffer.alloc(0), error: 'ECONNRESET' }, /transport error/],
    ['a hang', 'GET', { status: 200, headers: {}, body: Buffer.alloc(0), hung: true }, /hang/],
    ['a request node would not send', 'GET', { status: 0, headers: {}, body: Buffer.alloc(0), unsendable: 'bad path' }, undefined],
  ];
  for (const [title, method, answer, expected] of cases) {
    it(`${title}: ${expected ? 'fails' : 'passes'}`, () => {
      const got = judge(method, answer);
      if (expected) assert.match(got ?? '(passed)', expected);
      else assert.equal(got, undefined);
    });
  }
});
