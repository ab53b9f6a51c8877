import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { compileCustomSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
function compile(spec: Record<string, unknown>) {
  const r = compileCustomSchema({ type: 'object', properties: { spec: { type: 'object', properties: spec } } }, P);
  assert.deepEqual(r.errors, []);
  return r.schema!;
}
const obj = (spec: Record<string, unknown>): ApiObject => ({ apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a' }, spec }) as ApiObject;
const errs = (schema: ReturnType<typeof compile>, spec: Record<string, unknown>) => schema.validate(obj(spec)).map((e) => `${e.type} ${e.field}: ${e.message}`);

/** keyword, schema of spec.f, a good value, a bad value, the error expected for the bad one. */
const table: [string, Record<string, unknown>, unknown, unknown, RegExp][] = [
  ['type integer', { type: 'integer' }, 3, 'string', /^FieldValueTypeInvalid spec\.f: Invalid value: "string": spec\.f in body must be of type integer: "string"$/],
  ['integer rejects a fraction', { type: 'integer' }, 3, 1.5, /spec\.f in body must be of type integer: "number"/],
  ['type number accepts integers', { type: 'number' }, 3, 'x', /must be of type number: "string"/],
  ['type boolean', { type: 'boolean' }, true, 'true', /must be of type boolean: "string"/],
  ['type object', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { a: 1 }, [1], /must be of type object: "array"/],
  ['type array', { type: 'array', items: { type: 'string' } }, ['a'], 'a', /must be of type array: "string"/],
  ['nullable false refuses null', { type: 'string' }, 'a', null, /must be of type string: "null"/],
  ['format int32', { type: 'integer', format: 'int32' }, 2147483647, 2147483648, /must be of type int32/],
  ['format date-time', { type: 'string', format: 'date-time' }, '2024-01-02T03:04:05Z', '2024-13-02T03:04:05Z', /FieldValueTypeInvalid spec\.f: .*must be of type date-time: "2024-13-02T03:04:05Z"/],
  ['format date', { type: 'string', format: 'date' }, '2024-02-29', '2023-02-29', /must be of type date/],
  ['format duration', { type: 'string', format: 'duration' }, '1h30m', 'soon', /must be of type duration/],
  ['format uuid', { type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-a456-426614174000', 'nope', /must be of type uuid/],
  ['format email', { type: 'string', format: 'email' }, 'a@b.io', 'a.b.io', /must be of type email/],
  ['format hostname', { type: 'string', format: 'hostname' }, 'a.example.com', 'a_b', /must be of type hostname/],
  ['format ipv4', { type: 'string', format: 'ipv4' }, '10.0.0.1', '10.0.0.256', /must be of type ipv4/],
  ['format ipv6', { type: 'string', format: 'ipv6' }, '::1', '1:::2', /must be of type ipv6/],
  ['format cidr', { type: 'string', format: 'cidr' }, '10.0.0.0/8', '10.0.0.0/33', /must be of type cidr/],
  ['format mac', { type: 'string', format: 'mac' }, '01:23:45:67:89:ab', '01:23:45', /must be of type mac/],
  ['format byte', { type: 'string', format: 'byte' }, 'aGVsbG8=', 'not base64!', /must be of type byte/],
  ['format uri', { type: 'string', format: 'uri' }, 'https://x.io/a', 'http://[bad', /must be of type uri/],
  ['unknown formats are not checked', { type: 'string', format: 'my-format' }, 'anything', 1, /must be of type string/],
  ['enum', { type: 'string', enum: ['a', 'b'] }, 'a', 'c', /^FieldValueNotSupported spec\.f: Unsupported value: "c": supported values: "a", "b"$/],
  ['pattern (ECMA, unicode)', { type: 'string', pattern: '^\\p{Lu}+$' }, 'ÄB', 'ab', /^FieldValueInvalid spec\.f: Invalid value: "ab": spec\.f in body should match '\^\\p\{Lu\}\+\$'$/],
  ['minimum', { type: 'integer', minimum: 2 }, 2, 1, /spec\.f in body should be greater than or equal to 2/],
  ['exclusiveMinimum', { type: 'integer', minimum: 2, exclusiveMinimum: true }, 3, 2, /should be greater than 2$/],
  ['maximum', { type: 'number', maximum: 2.5 }, 2.5, 3, /should be less than or equal to 2.5/],
  ['exclusiveMaximum', { type: 'number', maximum: 2, exclusiveMaximum: true }, 1, 2, /should be less than 2$/],
  ['multipleOf', { type: 'number', multipleOf: 0.5 }, 1.5, 1.2, /should be a multiple of 0.5/],
  ['maxLength counts characters', { type: 'string', maxLength: 2 }, '😀😀', 'abc', /^FieldValueTooLong spec\.f: Too long: may not be longer than 2$/],
  ['minLength', { type: 'string', minLength: 2 }, 'ab', 'a', /should be at least 2 chars long/],
  ['maxItems', { type: 'array', maxItems: 1, items: { type: 'string' } }, ['a'], ['a', 'b'], /^FieldValueTooMany spec\.f: Too many: 2: must have at most 1 items$/],
  ['minItems', { type: 'array', minItems: 1, items: { type: 'string' } }, ['a'], [], /should have at least 1 items/],
  ['maxProperties', { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } }, { a: 'x' }, { a: 'x', b: 'y' }, /FieldValueTooMany spec\.f: Too many: 2: must have at most 1 items/],
  ['minProperties', { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } }, { a: 'x' }, {}, /should have at least 1 properties/],
  ['required', { type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, { a: 'x' }, {}, /^FieldValueRequired spec\.f\.a: Required value$/],
  ['map values', { type: 'object', additionalProperties: { type: 'integer' } }, { a: 1 }, { a: 'x' }, /spec\.f\.a in body must be of type integer/],
  ['int-or-string', { 'x-kubernetes-int-or-string': true }, '50%', true, /must be of type integer-or-string/],
  ['anyOf', { type: 'string', anyOf: [{ enum: ['a'] }, { pattern: '^b' }] }, 'bx', 'c', /must validate at least one schema \(anyOf\)/],
  ['oneOf', { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 5 }] }, 7, 3, /must validate one and only one schema \(oneOf\)/],
  ['allOf', { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 5 }] }, 3, 7, /should be less than or equal to 5/],
  ['not', { type: 'string', not: { enum: ['x'] } }, 'y', 'x', /must not validate the schema \(not\)/],
  ['list-type set', { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, ['a', 'b'], ['a', 'b', 'a'], /^FieldValueDuplicate spec\.f\[2\]: Duplicate value: "a"$/],
  ['list-type map', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'integer' } } } }, [{ name: 'a' }, { name: 'b' }], [{ name: 'a', v: 1 }, { name: 'a', v: 2 }], /^FieldValueDuplicate spec\.f\[1\]: Duplicate value: \{"name":"a"\}$/],
  ['embedded resource', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }, { apiVersion: 'v1', kind: 'Pod' }, { kind: 'Pod' }, /^FieldValueRequired spec\.f\.apiVersion: Required value: must not be empty$/],
];

for (const [keyword, schema, good, bad, expected] of table) {
  test(`reference behaviour (validation): ${keyword}: a good value passes, a bad one is reported`, () => {
    const s = compile({ f: schema });
    assert.deepEqual(errs(s, { f: good }), []);
    const found = errs(s, { f: bad });
    assert.ok(found.some((e) => expected.test(e)), `expected ${expected} in:\n${found.join('\n')}`);
  });
}

test('reference behaviour (validation): nullable allows null', () => {
  const s = compile({ f: { type: 'string', nullable: true } });
  assert.deepEqual(errs(s, { f: null }), []);
});

test('reference behaviour (validation): every error is reported, not just the first', () => {
  const s = compile({ a: { type: 'integer' }, b: { type: 'string', maxLength: 1 }, c: { type: 'string', enum: ['x'] } });
  const found = errs(s, { a: 'x', b: 'long', c: 'y' });
  assert.equal(found.length, 3, found.join('\n'));
  assert.deepEqual(found.map((e) => e.split(' ')[1]), ['spec.a:', 'spec.b:', 'spec.c:']);
});

test('reference behaviour (validation): metadata.name restrictions apply', () => {
  const r = compileCustomSchema({ type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } } }, P);
  const found = r.schema!.validate({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'toolong' } } as ApiObject);
  assert.deepEqual(found.map((e) => e.field), ['metadata.name']);
});

test('reference behaviour (defaults): absent fields are filled, recursively, into items and map values, as copies', () => {
  const s = compile({
    replicas: { type: 'integer', default: 1 },
    nested: { type: 'object', default: {}, properties: { mode: { type: 'string', default: 'auto' } } },
    ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' }, port: { type: 'integer' } } } },
    byName: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
    tags: { type: 'array', items: { type: 'string' }, default: ['a'] },
    keep: { type: 'string', default: 'x' },
    nullable: { type: 'string', nullable: true, default: 'd' },
  });
  const a = obj({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }], byName: { x: {} }, keep: null, nullable: null });
  s.applyDefaults(a);
  assert.deepEqual(a.spec, {
    replicas: 1,
    nested: { mode: 'auto' },
    ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }],
    byName: { x: { on: true } },
    tags: ['a'],
    keep: 'x',
    nullable: null,
  });
  const b = obj({});
  s.applyDefaults(b);
  (b.spec as { tags: string[] }).tags.push('changed');
  const c = obj({});
  s.applyDefaults(c);
  assert.deepEqual((c.spec as { tags: string[] }).tags, ['a']);
});

test('reference behaviour (defaults): a default with unknown fields is pruned before it is applied', () => {
  const s = compile({ o: { type: 'object', default: { a: 'x', junk: 1 }, properties: { a: { type: 'string' } } } });
  const a = obj({});
  s.applyDefaults(a);
  assert.deepEqual(a.spec, { o: { a: 'x' } });
});
