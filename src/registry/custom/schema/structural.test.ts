import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileCustomSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const root = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const errorsOf = (props: Record<string, unknown>) => compileCustomSchema(props, P).errors.map((e) => `${e.type} ${e.field}: ${e.message}`);

const cases: { title: string; props: Record<string, unknown>; expect: RegExp[] }[] = [
  { title: 'a field without type', props: root({ spec: { properties: { a: { type: 'string' } } } }), expect: [/^FieldValueRequired spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.type: Required value: must not be empty for specified object fields$/] },
  { title: 'array items without type', props: root({ l: { type: 'array', items: {} } }), expect: [/FieldValueRequired .*properties\[l\]\.items\.type: Required value: must not be empty for specified array items/] },
  { title: 'the root without type', props: { properties: { a: { type: 'string' } } }, expect: [/FieldValueRequired .*openAPIV3Schema\.type: Required value: must not be empty at the root/] },
  { title: 'a root that is not an object', props: { type: 'string' }, expect: [/FieldValueInvalid .*openAPIV3Schema\.type: Invalid value: "string": must be object at the root/] },
  { title: 'an unknown type', props: root({ a: { type: 'float' } }), expect: [/FieldValueNotSupported .*properties\[a\]\.type: Unsupported value: "float"/] },
  { title: 'an array without items', props: root({ l: { type: 'array' } }), expect: [/FieldValueRequired .*properties\[l\]\.items/] },
  { title: 'additionalProperties with properties', props: root({ m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } }), expect: [/FieldValueForbidden .*properties\[m\]\.additionalProperties/] },
  { title: 'additionalProperties false', props: root({ m: { type: 'object', additionalProperties: false } }), expect: [/FieldValueForbidden .*properties\[m\]\.additionalProperties: Forbidden: additionalProperties may not be false/] },
  { title: 'metadata restricting more than name and generateName', props: root({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } }), expect: [/FieldValueForbidden .*properties\[metadata\]: Forbidden: may only restrict name and generateName/] },
  { title: 'a default on metadata', props: root({ metadata: { type: 'object', default: { name: 'x' } } }), expect: [/FieldValueForbidden .*properties\[metadata\]\.default/] },
  { title: 'kind that is not a string', props: root({ kind: { type: 'integer' } }), expect: [/FieldValueInvalid .*properties\[kind\]\.type: Invalid value: "integer": must be string/] },
  { title: 'an embedded resource that is not an object', props: root({ e: { type: 'string', 'x-kubernetes-embedded-resource': true } }), expect: [/FieldValueInvalid .*properties\[e\]\.type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true/] },
  { title: 'an embedded resource without properties or preserve-unknown-fields', props: root({ e: { type: 'object', 'x-kubernetes-embedded-resource': true } }), expect: [/FieldValueRequired .*properties\[e\]\.properties/] },
  { title: 'int-or-string with a type', props: root({ p: { type: 'string', 'x-kubernetes-int-or-string': true } }), expect: [/properties\[p\]\.type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true/] },
  { title: 'a type inside a junctor', props: root({ a: { type: 'string', anyOf: [{ type: 'string' }] } }), expect: [/FieldValueForbidden .*properties\[a\]\.anyOf\[0\]\.type: Forbidden: must be empty to be structural/] },
  { title: 'a default inside a junctor', props: root({ a: { type: 'string', allOf: [{ default: 'x' }] } }), expect: [/FieldValueForbidden .*properties\[a\]\.allOf\[0\]\.default/] },
  { title: 'a description inside a junctor', props: root({ a: { type: 'string', not: { description: 'x' } } }), expect: [/FieldValueForbidden .*properties\[a\]\.not\.description/] },
  { title: 'nullable inside a junctor', props: root({ a: { type: 'string', oneOf: [{ nullable: true }] } }), expect: [/FieldValueForbidden .*properties\[a\]\.oneOf\[0\]\.nullable/] },
  { title: 'a junctor naming a property the structure lacks', props: root({ s: { type: 'object', properties: { a: { type: 'string' } }, anyOf: [{ properties: { b: { minLength: 1 } } }] } }), expect: [/FieldValueRequired .*properties\[s\]\.properties\[b\]: Required value: because it is defined in .*properties\[s\]\.anyOf\[0\]\.properties\[b\]/] },
  { title: 'uniqueItems true', props: root({ l: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), expect: [/FieldValueForbidden .*properties\[l\]\.uniqueItems/] },
  { title: '$ref', props: root({ a: { $ref: '#/definitions/x' } }), expect: [/FieldValueForbidden .*properties\[a\]\.\$ref/] },
  { title: 'definitions', props: root({}, { definitions: {} }), expect: [/FieldValueForbidden .*openAPIV3Schema\.definitions/] },
  { title: 'dependencies', props: root({}, { dependencies: {} }), expect: [/FieldValueForbidden .*openAPIV3Schema\.dependencies/] },
  { title: 'additionalItems', props: root({ l: { type: 'array', items: { type: 'string' }, additionalItems: false } }), expect: [/FieldValueForbidden .*properties\[l\]\.additionalItems/] },
  { title: 'patternProperties', props: root({}, { patternProperties: {} }), expect: [/FieldValueForbidden .*openAPIV3Schema\.patternProperties/] },
  { title: 'items as a list', props: root({ l: { type: 'array', items: [{ type: 'string' }] } }), expect: [/FieldValueForbidden .*properties\[l\]\.items/] },
  { title: 'preserve-unknown-fields false', props: root({}, { 'x-kubernetes-preserve-unknown-fields': false }), expect: [/x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined/] },
  { title: 'a bad pattern', props: root({ a: { type: 'string', pattern: '(' } }), expect: [/FieldValueInvalid .*properties\[a\]\.pattern/] },
  { title: 'list-type on a non-array', props: root({ a: { type: 'string', 'x-kubernetes-list-type': 'set' } }), expect: [/properties\[a\]\.type: Invalid value: "string": must be array if x-kubernetes-list-type is specified/] },
  { title: 'an unknown list-type', props: root({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }), expect: [/FieldValueNotSupported .*x-kubernetes-list-type/] },
  { title: 'a set of non-atomic objects', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } } }), expect: [/FieldValueForbidden .*properties\[l\]\.items\.x-kubernetes-map-type/] },
  { title: 'a map list without keys', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { a: { type: 'string' } } } } }), expect: [/FieldValueRequired .*properties\[l\]\.x-kubernetes-list-map-keys/] },
  { title: 'a map list of scalars', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'string' } } }), expect: [/properties\[l\]\.items\.type: Invalid value: "string": must be object for an array of type map/] },
  { title: 'a map key that is not a property', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['b'], items: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } } }), expect: [/properties\[l\]\.x-kubernetes-list-map-keys/] },
  { title: 'a map key neither required nor defaulted', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', properties: { a: { type: 'string' } } } } }), expect: [/FieldValueRequired .*properties\[l\]\.items\.properties\[a\]\.default/] },
  { title: 'a map key that is not scalar', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', required: ['a'], properties: { a: { type: 'object' } } } } }), expect: [/properties\[l\]\.items\.properties\[a\]\.type: .*must be a scalar type/] },
  { title: 'list-map-keys without list-type map', props: root({ l: { type: 'array', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'string' } } }), expect: [/FieldValueForbidden .*properties\[l\]\.x-kubernetes-list-map-keys/] },
  { title: 'map-type on a non-object', props: root({ a: { type: 'string', 'x-kubernetes-map-type': 'atomic' } }), expect: [/properties\[a\]\.type: .*must be object if x-kubernetes-map-type is specified/] },
  { title: 'a default of the wrong type', props: root({ spec: { type: 'object', properties: { replicas: { type: 'integer', default: 'one' } } } }), expect: [/^FieldValueTypeInvalid spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.properties\[replicas\]\.default: Invalid value: "string": .*default in body must be of type integer: "string"$/] },
  { title: 'a default violating a bound', props: root({ n: { type: 'integer', minimum: 3, default: 1 } }), expect: [/properties\[n\]\.default: Invalid value: 1: .* should be greater than or equal to 3/] },
  { title: 'a default violating a CEL rule', props: root({ n: { type: 'integer', default: 1, 'x-kubernetes-validations': [{ rule: 'self > 5' }] } }), expect: [/properties\[n\]\.default: Invalid value: "integer": failed rule: self > 5/] },
];

for (const c of cases) {
  test(`reference behaviour (structural schema): ${c.title} is refused, naming the path`, () => {
    const errors = errorsOf(c.props);
    for (const re of c.expect) assert.ok(errors.some((e) => re.test(e)), `expected ${re} in:\n${errors.join('\n')}`);
    assert.equal(compileCustomSchema(c.props, P).schema, undefined);
  });
}

const accepted: { title: string; props: Record<string, unknown> }[] = [
  { title: 'int-or-string without a type', props: root({ port: { 'x-kubernetes-int-or-string': true } }) },
  { title: 'int-or-string with its anyOf form', props: root({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }) },
  { title: 'preserve-unknown-fields without a type', props: root({ raw: { 'x-kubernetes-preserve-unknown-fields': true } }) },
  { title: 'metadata restricting name', props: root({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } }) },
  { title: 'an embedded resource preserving unknown fields', props: root({ e: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }) },
  { title: 'junctors restricting declared fields', props: root({ s: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] } }) },
  { title: 'a map list with a defaulted key', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a'], items: { type: 'object', properties: { a: { type: 'string', default: 'x' } } } } }) },
  { title: 'a set of atomic objects', props: root({ l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string' } } } } }) },
];

for (const c of accepted) {
  test(`reference behaviour (structural schema): ${c.title} is accepted`, () => {
    const r = compileCustomSchema(c.props, P);
    assert.deepEqual(r.errors, []);
    assert.ok(r.schema);
  });
}

test('reference behaviour: every structural problem is reported, not only the first', () => {
  const errors = errorsOf(root({ a: {}, b: { type: 'array' }, c: { type: 'string', uniqueItems: true } }));
  assert.ok(errors.length >= 3, errors.join('\n'));
});
