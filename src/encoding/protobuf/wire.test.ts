import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { ProtoCodec } from './codec.js';
import { DESCRIPTORS } from './descriptors.js';
import { decodeProtobuf, encodeProtobuf } from './index.js';
import { formatTimestamp, parseTimestamp, ProtoReader, ProtoWriter } from './wire.js';

/** Hand-made wire bytes: a tag, then a length-delimited payload. */
const tag = (no: number, wt: number) => Buffer.from([(no << 3) | wt]);
const ld = (no: number, ...parts: (Buffer | string)[]) => {
  const body = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
  assert.ok(body.length < 128 && no < 16, 'helper writes one-byte tags and lengths only');
  return Buffer.concat([tag(no, 2), Buffer.from([body.length]), body]);
};
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), ld(1, ld(1, apiVersion), ld(2, kind)), ld(2, raw), ld(3), ld(4)]);

describe('protobuf wire primitives (spec 4.4)', () => {
  it('spec 4.4: varints are little-endian base-128; negative int64 is ten bytes of two\'s complement', () => {
    const hex = (n: number) => new ProtoWriter().varint(n).finish().toString('hex');
    assert.equal(hex(0), '00');
    assert.equal(hex(1), '01');
    assert.equal(hex(127), '7f');
    assert.equal(hex(128), '8001');
    assert.equal(hex(300), 'ac02');
    assert.equal(hex(2 ** 32), '8080808010');
    assert.equal(hex(Number.MAX_SAFE_INTEGER), 'ffffffffffffff0f');
    assert.equal(hex(-1), 'ffffffffffffffffff01');
    for (const n of [0, 1, 127, 128, 300, 2 ** 31, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER, -1, -300, -(2 ** 40)]) {
      assert.equal(new ProtoReader(new ProtoWriter().varint(n).finish()).varint(), n);
    }
  });

  it('spec 4.4: strings, bytes and doubles read back; truncated input throws a 400', () => {
    const buf = new ProtoWriter().tag(1, 2).string('grüße').tag(2, 1).double(1.5).finish();
    const r = new ProtoReader(buf);
    assert.deepEqual(r.tag(), { no: 1, wireType: 2 });
    assert.equal(r.string(), 'grüße');
    assert.deepEqual(r.tag(), { no: 2, wireType: 1 });
    assert.equal(r.double(), 1.5);
    assert.ok(r.eof());
    assert.throws(() => new ProtoReader(Buffer.from([0x0a, 0x05, 0x61])).bytes(), { code: 400 });
    assert.throws(() => new ProtoReader(Buffer.from([0x80])).varint(), { code: 400 });
  });

  it('spec 4.4: Time is seconds only in JSON, MicroTime keeps six fraction digits', () => {
    assert.deepEqual(parseTimestamp('2024-05-06T07:08:09Z'), { seconds: 1714979289, nanos: 0 });
    assert.deepEqual(parseTimestamp('2024-05-06T09:08:09.5+02:00'), { seconds: 1714979289, nanos: 500_000_000 });
    assert.equal(parseTimestamp('yesterday'), undefined);
    assert.equal(formatTimestamp(1714979289, 123_456_789, false), '2024-05-06T07:08:09Z');
    assert.equal(formatTimestamp(1714979289, 123_456_789, true), '2024-05-06T07:08:09.123456Z');
  });
});

describe('protobuf golden bytes (spec 4.4)', () => {
  it('spec 4.4: ConfigMap {name: "a", data: {k: "v"}} has exactly the reference envelope and field numbers', () => {
    // ConfigMap.metadata = 1 (ObjectMeta.name = 1), ConfigMap.data = 2 as map entries {key 1, value 2}.
    const raw = Buffer.concat([ld(1, ld(1, 'a')), ld(2, ld(1, 'k'), ld(2, 'v'))]);
    const expected = envelope('v1', 'ConfigMap', raw);
    const obj: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
    const got = encodeProtobuf(obj);
    assert.equal(got.toString('hex'), expected.toString('hex'));
    assert.equal(
      got.toString('hex'),
      '6b387300' + '0a0f' + '0a027631' + '1209436f6e6669674d6170' + '120d' + '0a030a0161' + '12060a016b120176' + '1a00' + '2200',
    );
    assert.deepStrictEqual(decodeProtobuf(expected), obj);
  });

  it('spec 4.4: Secret data is raw bytes on the wire and base64 in JSON', () => {
    const obj: ApiObject = { apiVersion: 'v1', kind: 'Secret', data: { k: 'AAEC/w==' }, type: 'Opaque' };
    const raw = Buffer.concat([ld(2, ld(1, 'k'), ld(2, Buffer.from([0x00, 0x01, 0x02, 0xff]))), ld(3, 'Opaque')]);
    assert.ok(encodeProtobuf(obj).equals(envelope('v1', 'Secret', raw)));
    assert.deepStrictEqual(decodeProtobuf(envelope('v1', 'Secret', raw)), obj);
  });

  it('spec 4.4: Time, IntOrString, Quantity, int64 and two-byte tags use the reference encodings', () => {
    const c = new ProtoCodec({
      M: {
        t: { no: 8, type: 'time' },
        ios: { no: 4, type: 'intorstring', repeated: true },
        q: { no: 1, type: 'map', mapValue: { type: 'quantity' } },
        grace: { no: 10, type: 'int64' },
        finalizers: { no: 14, type: 'string', repeated: true },
        late: { no: 17, type: 'string' },
      },
    });
    const hex = (o: Record<string, unknown>) => c.encode('M', o).toString('hex');
    // Time = {seconds 1, nanos 2}, both always written.
    assert.equal(hex({ t: '1970-01-01T00:00:01Z' }), '4204' + '0801' + '1000');
    // IntOrString = {type 1 (0 int, 1 string), intVal 2, strVal 3}.
    assert.equal(hex({ ios: [8080, 'http'] }), '2207' + '0800' + '10903f' + '1a00' + '220a' + '0801' + '1000' + '1a0468747470');
    // Quantity = {string 1}, as a map value.
    assert.equal(hex({ q: { cpu: '500m' } }), '0a0d' + '0a03637075' + '1206' + '0a04' + '3530306d');
    assert.equal(hex({ grace: -1 }), '50' + 'ffffffffffffffffff01');
    assert.equal(hex({ finalizers: ['x', ''] }), '720178' + '7200');
    assert.equal(hex({ late: 'z' }), '8a01' + '017a');
    const all = { t: '2024-05-06T07:08:09Z', ios: [8080, 'http'], q: { cpu: '500m' }, grace: -1, finalizers: ['x', ''], late: 'z' };
    assert.deepStrictEqual(c.decode('M', c.encode('M', all)), all);
  });

  it('spec 4.4: zero values the reference always writes are dropped on decode unless the field keeps them', () => {
    // What a reference client sends: every non-pointer field, even empty, and a zero Time as an empty message.
    const meta = Buffer.concat([ld(1, 'a'), ld(2), ld(3), Buffer.from([0x38, 0x00]), ld(8)]);
    const raw = Buffer.concat([ld(1, meta), tag(4, 0), Buffer.from([0x00])]);
    assert.deepStrictEqual(decodeProtobuf(envelope('v1', 'ConfigMap', raw)), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      immutable: false, // a pointer in the reference: an explicit false is kept
    });
  });

  it('spec 4.4: unknown field numbers are skipped and packed repeated scalars are accepted', () => {
    const c = new ProtoCodec({ M: { groups: { no: 4, type: 'int64', repeated: true }, name: { no: 1, type: 'string' } } });
    const packed = Buffer.concat([ld(4, Buffer.from([0x01, 0xac, 0x02])), ld(9, 'ignored'), tag(15, 0), Buffer.from([0x07]), ld(1, 'n')]);
    assert.deepStrictEqual(c.decode('M', packed), { groups: [1, 300], name: 'n' });
  });

  it('spec 4.4: a map key "__proto__" stays an ordinary own entry', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', data: JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string> };
    const back = decodeProtobuf(encodeProtobuf(obj));
    assert.deepStrictEqual(back, obj);
    assert.equal(Object.getPrototypeOf(back.data), Object.prototype);
  });

  it('spec 4.4: JSON values of the wrong type and fields without a descriptor are not written', () => {
    const obj: ApiObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 as unknown as string, extra: 'x' }, immutable: 'yes', bogus: 1 };
    assert.deepStrictEqual(decodeProtobuf(encodeProtobuf(obj)), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
  });
});

describe('protobuf forms the reference writes by hand (spec 4.4)', () => {
  const codec = new ProtoCodec(DESCRIPTORS);
  const SCHEMA = 'apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
  const hex = (o: Record<string, unknown>) => codec.encode(SCHEMA, o).toString('hex');
  const str = '2a06' + Buffer.from('string').toString('hex'); // JSONSchemaProps.type = 5

  it('reference behaviour: JSONSchemaProps unions carry each JSON form in the member the reference uses', () => {
    // additionalProperties = 30 {allows 1, schema 2}; items = 24 {schema 1, jSONSchemas 2}.
    assert.equal(hex({ additionalProperties: false }), 'f201' + '02' + '0800');
    assert.equal(hex({ additionalProperties: { type: 'string' } }), 'f201' + '0c' + '0801' + '1208' + str);
    assert.equal(hex({ items: { type: 'string' } }), 'c201' + '0a' + '0a08' + str);
    assert.equal(hex({ items: [{ type: 'string' }] }), 'c201' + '0a' + '1208' + str);
  });

  it('reference behaviour: JSONSchemaProps unions and raw JSON values round-trip, zero values included', () => {
    const cases: Record<string, unknown>[] = [
      { type: 'object', additionalProperties: false },
      { additionalProperties: true },
      { additionalProperties: { type: 'string', default: 'a' } },
      { additionalItems: false, items: [{ type: 'string' }, { type: 'integer' }] },
      { items: { type: 'array', items: { type: 'string' } } },
      { dependencies: { a: ['b', 'c'], d: { required: ['e'] } } },
      { type: 'boolean', default: false },
      { type: 'integer', default: 0, example: 0 },
      { type: 'string', default: '', enum: ['', 'a'] },
      { enum: [0, false, { a: [1] }] },
    ];
    for (const c of cases) assert.deepStrictEqual(codec.decode(SCHEMA, codec.encode(SCHEMA, c)), c);
  });

  it('spec 4.4: a union with the wrong wire type is a 400', () => {
    assert.throws(() => codec.decode(SCHEMA, Buffer.from([0xf0, 0x01, 0x00])), { code: 400 });
  });

  it('spec 4.4: embedded structs nest on the wire however deep (NamedRuleWithOperations > RuleWithOperations > Rule)', () => {
    const NAMED = 'api.admissionregistration.v1.NamedRuleWithOperations';
    const obj = { resourceNames: ['a'], operations: ['CREATE'], apiGroups: ['apps'], scope: '*' };
    const rule = '0a04' + Buffer.from('apps').toString('hex') + '2201' + '2a'; // apiGroups 1, scope 4
    const withOps = '0a06' + Buffer.from('CREATE').toString('hex') + '1209' + rule; // operations 1, rule 2
    assert.equal(codec.encode(NAMED, obj).toString('hex'), '0a0161' + '1213' + withOps); // resourceNames 1, ruleWithOperations 2
    assert.deepStrictEqual(codec.decode(NAMED, codec.encode(NAMED, obj)), obj);
  });
});
