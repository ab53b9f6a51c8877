import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROUP_SUFFIX, PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { isStatusError } from '../errors/index.js';
import { decodeBody, encode, MAX_YAML_NODES, yamlNodesExceed } from './codec.js';
import { MAX_NESTING_DEPTH, MAX_REQUEST_BYTES } from './limits.js';
import { encodeProtobuf, PROTOBUF_MAGIC } from './protobuf/index.js';
import { ProtoWriter } from './protobuf/wire.js';

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** The Status a decode throws: code and message. */
function failure(contentType: string, body: string | Buffer): { code: number; message: string } {
  try {
    decodeBody(contentType, Buffer.isBuffer(body) ? body : Buffer.from(body));
  } catch (e) {
    assert.ok(isStatusError(e), `not a Status: ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('the body was accepted');
}

describe('decodeBody nesting limit (spec 8; the reference fails cleanly past its own limit)', () => {
  const cases: [string, string, string][] = [
    ['JSON', JSON_TYPE, nested(MAX_NESTING_DEPTH + 1)],
    ['JSON text sent as YAML', YAML_TYPE, nested(MAX_NESTING_DEPTH + 1)],
    ['JSON 10,000 levels deep', JSON_TYPE, nested(10_000)],
    ['YAML flow 5,000 levels deep (the library overflows its own stack)', YAML_TYPE, `x: ${nested(5000).replaceAll('"', '')}`],
  ];
  for (const [title, type, body] of cases) {
    it(`${title} is a 400 naming the problem`, () => {
      const f = failure(type, body);
      assert.equal(f.code, 400);
      assert.match(f.message, /could not be decoded as (JSON|YAML)/);
      assert.ok(f.message.length < 1024);
    });
  }

  it('JSON exactly at the limit decodes', () => {
    assert.deepEqual(decodeBody(JSON_TYPE, Buffer.from(nested(MAX_NESTING_DEPTH))), JSON.parse(nested(MAX_NESTING_DEPTH)));
  });

  it('block YAML one level past the limit is a 400 that names the limit', () => {
    let yaml = 'x:\n';
    // The top mapping and x's value make two levels; each `a:` one more.
    for (let i = 1; i < MAX_NESTING_DEPTH - 1; i++) yaml += `${' '.repeat(i)}a:\n`;
    const last = MAX_NESTING_DEPTH - 1;
    assert.ok(decodeBody(YAML_TYPE, Buffer.from(`${yaml}${' '.repeat(last)}b: 1\n`)));
    const f = failure(YAML_TYPE, `${yaml}${' '.repeat(last)}a:\n${' '.repeat(last + 1)}b: 1\n`);
    assert.equal(f.code, 400);
    assert.match(f.message, new RegExp(`as YAML: it nests objects and arrays deeper than the limit of ${MAX_NESTING_DEPTH} levels`));
  });

  it('a protobuf body whose raw JSON nests past the limit is a 400', () => {
    const body = encodeProtobuf({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'x' }, revision: 1, data: JSON.parse(nested(MAX_NESTING_DEPTH + 5)) });
    const f = failure(PROTOBUF_MEDIA_TYPE, body);
    assert.equal(f.code, 400);
    assert.match(f.message, /as protobuf: it nests objects and arrays deeper than the limit/);
  });

  it('protobuf messages nested 1,000 and 100,000 levels (a schema inside `not`) are a 400, never a stack overflow', () => {
    for (const levels of [1000, 100_000]) {
      const f = failure(PROTOBUF_MEDIA_TYPE, crdWithNestedSchema(levels));
      assert.equal(f.code, 400, f.message);
      assert.match(f.message, /protobuf/);
    }
  });

  it('a JSON syntax error is reported without echoing the body at length', () => {
    const f = failure(JSON_TYPE, `{"a":"${'x'.repeat(100_000)}"`);
    assert.equal(f.code, 400);
    assert.ok(f.message.length < 1024, `${f.message.length} characters`);
  });
});

/** A CustomResourceDefinition whose schema nests `levels` JSONSchemaProps through field `not` (28). */
function crdWithNestedSchema(levels: number): Buffer {
  const varint = (n: number) => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
    out.push(n);
    return out;
  };
  const NOT_TAG = [0xe2, 0x01]; // field 28, length-delimited
  // Sizes from the innermost (empty) message outwards, then the bytes from the outermost inwards.
  const sizes = [0];
  for (let i = 1; i < levels; i++) sizes.push(NOT_TAG.length + varint(sizes[i - 1] as number).length + (sizes[i - 1] as number));
  const bytes: number[] = [];
  for (let i = levels - 1; i >= 1; i--) bytes.push(...NOT_TAG, ...varint(sizes[i - 1] as number));
  const schema = Buffer.from(bytes);
  const validation = new ProtoWriter().tag(1, 2).bytes(schema).finish();
  const version = new ProtoWriter().tag(1, 2).string('v1').tag(4, 2).bytes(validation).finish();
  const spec = new ProtoWriter().tag(7, 2).bytes(version).finish();
  const raw = new ProtoWriter().tag(2, 2).bytes(spec).finish();
  const typeMeta = new ProtoWriter().tag(1, 2).string(`apiextensions.${GROUP_SUFFIX}/v1`).tag(2, 2).string('CustomResourceDefinition').finish();
  return Buffer.from(new ProtoWriter().raw(PROTOBUF_MAGIC).tag(1, 2).bytes(typeMeta).tag(2, 2).bytes(raw).finish());
}

describe('decodeBody YAML aliases (spec 8, reference behaviour: aliases are bounded and expanded)', () => {
  it('an alias inside the node it names (a cycle) is a 400', () => {
    const f = failure(YAML_TYPE, 'metadata: &m\n  name: x\n  labels: *m\n');
    assert.equal(f.code, 400);
    assert.match(f.message, /an alias refers to a node that contains it \(a cycle\)/);
  });

  it('aliased nodes are separate copies in the result, as if written out', () => {
    const v = decodeBody(YAML_TYPE, Buffer.from('a: &x {k: [1, 2]}\nb: *x\n')) as Record<string, { k: number[] }>;
    assert.deepEqual(v, { a: { k: [1, 2] }, b: { k: [1, 2] } });
    assert.notEqual(v.a, v.b);
    assert.notEqual(v.a?.k, v.b?.k);
  });

  it('aliases that expand past the body limit are a 413', () => {
    const big = 'x'.repeat(100 * 1024);
    const f = failure(YAML_TYPE, `a: &b "${big}"\nl: [${Array(40).fill('*b').join(', ')}]\n`);
    assert.equal(f.code, 413);
    assert.match(f.message, new RegExp(`over the limit of ${MAX_REQUEST_BYTES} bytes`));
  });

  it("the library's alias count still applies (billion laughs)", () => {
    let yaml = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 9; i++) yaml += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    const f = failure(YAML_TYPE, yaml);
    assert.equal(f.code, 400);
    assert.match(f.message, /Excessive alias count/);
  });
});

describe('YAML node budget (spec 8: the parser holds about a kilobyte per node)', () => {
  const cases: [string, string, number, boolean][] = [
    ['a short text never exceeds', '[1,1,1]', 10, false],
    ['flow items are counted', `[${'1,'.repeat(20)}1]`, 10, true],
    ['block entries are counted', '- a\n'.repeat(20), 10, true],
    ['mapping keys and values are counted', Array.from({ length: 20 }, (_, i) => `k${i}: v`).join('\n'), 10, true],
    ['one long scalar is one node', `a: "${'x'.repeat(1000)}"`, 10, false],
    ['a block scalar is one node', `a: |\n${'  line\n'.repeat(100)}`, 10, false],
  ];
  for (const [title, text, max, want] of cases) {
    it(`${title} (limit ${max}) -> ${want}`, () => assert.equal(yamlNodesExceed(text, max), want));
  }

  it(`a body of more than ${MAX_YAML_NODES} nodes is a 413 that suggests JSON`, () => {
    const f = failure(YAML_TYPE, `x: [${'1,'.repeat(MAX_YAML_NODES)}1]\n`);
    assert.equal(f.code, 413);
    assert.match(f.message, /more than 50000 nodes; send large objects as JSON/);
  });

  it('the same data as JSON is not limited by node count', () => {
    const body = `{"x":[${'1,'.repeat(MAX_YAML_NODES)}1]}`;
    assert.equal((decodeBody(YAML_TYPE, Buffer.from(body)) as { x: number[] }).x.length, MAX_YAML_NODES + 1);
  });
});

describe('encode as YAML (spec 4.4)', () => {
  it('a value too deep for the YAML library is written as JSON, which is YAML too', () => {
    const text = encode(JSON.parse(nested(2000)), YAML_TYPE).toString('utf8');
    assert.equal(text, `${nested(2000)}\n`);
  });
});
