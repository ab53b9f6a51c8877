import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { compileCustomSchema } from './index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const withSpec = (spec: Record<string, unknown>) => ({ type: 'object', properties: { spec } });
function compile(spec: Record<string, unknown>) {
  const r = compileCustomSchema(withSpec(spec), P);
  assert.deepEqual(r.errors, []);
  return r.schema!;
}
const cr = (spec: unknown): ApiObject => ({ apiVersion: 'x.io/v1', kind: 'X', metadata: { name: 'a' }, spec }) as ApiObject;
const show = (es: { type: string; field: string; message: string }[]) => es.map((e) => `${e.type} ${e.field}: ${e.message}`);

const rules = (r: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties: { min: { type: 'integer' }, max: { type: 'integer' }, name: { type: 'string', maxLength: 20 } },
  'x-kubernetes-validations': r,
  ...extra,
});

test('reference behaviour (CEL rules): a failing rule is FieldValueInvalid with the schema type as value and "failed rule"', () => {
  const s = compile(rules([{ rule: 'self.min <= self.max' }]));
  assert.deepEqual(s.validate(cr({ min: 1, max: 2 })), []);
  assert.deepEqual(show(s.validate(cr({ min: 3, max: 2 }))), ['FieldValueInvalid spec: Invalid value: "object": failed rule: self.min <= self.max']);
});

test('reference behaviour (CEL rules): message, messageExpression, reason and fieldPath shape the error', () => {
  const s = compile(
    rules([
      { rule: 'self.min <= self.max', message: 'min must not exceed max', reason: 'FieldValueForbidden', fieldPath: '.max' },
      { rule: 'self.name.startsWith("x")', messageExpression: '"name " + self.name + " must start with x"', reason: 'FieldValueRequired' },
      { rule: 'self.min != 7', reason: 'FieldValueDuplicate' },
      { rule: 'self.min != 8', message: 'fallback', messageExpression: '""' },
    ]),
  );
  assert.deepEqual(show(s.validate(cr({ min: 3, max: 2, name: 'y' }))), [
    'FieldValueForbidden spec.max: Forbidden: min must not exceed max',
    'FieldValueRequired spec: Required value: name y must start with x',
  ]);
  assert.deepEqual(show(s.validate(cr({ min: 7, max: 9, name: 'x' }))), ['FieldValueDuplicate spec: Duplicate value: "object"']);
  assert.deepEqual(show(s.validate(cr({ min: 8, max: 9, name: 'x' }))), ['FieldValueInvalid spec: Invalid value: "object": fallback']);
});

test('reference behaviour (CEL rules): transition rules run only on update with an old value; optionalOldSelf always', () => {
  const s = compile({
    type: 'object',
    properties: {
      size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'may not shrink' }] },
      mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'oldSelf.hasValue() ? oldSelf.value() == self : self == "new"', optionalOldSelf: true, message: 'immutable; starts as new' }] },
    },
  });
  assert.deepEqual(show(s.validate(cr({ size: 1, mode: 'new' }))), []);
  assert.deepEqual(show(s.validate(cr({ size: 1, mode: 'old' }))), ['FieldValueInvalid spec.mode: Invalid value: "string": immutable; starts as new']);
  assert.deepEqual(show(s.validate(cr({ size: 1, mode: 'new' }), cr({ size: 2, mode: 'new' }))), ['FieldValueInvalid spec.size: Invalid value: "integer": may not shrink']);
  assert.deepEqual(show(s.validate(cr({ size: 1, mode: 'new' }), cr({ mode: 'new' }))), []);
});

test('reference behaviour (CEL rules): transition rules follow map-list items by key', () => {
  const s = compile({
    type: 'object',
    properties: {
      items: {
        type: 'array',
        maxItems: 10,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 10 }, v: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }] } } },
      },
    },
  });
  const old = cr({ items: [{ name: 'a', v: 1 }, { name: 'b', v: 2 }] });
  assert.deepEqual(show(s.validate(cr({ items: [{ name: 'b', v: 2 }, { name: 'a', v: 1 }, { name: 'c', v: 9 }] }), old)), []);
  assert.deepEqual(show(s.validate(cr({ items: [{ name: 'b', v: 3 }] }), old)), ['FieldValueInvalid spec.items[0].v: Invalid value: "integer": immutable']);
});

test('reference behaviour (CEL types): date-time is a timestamp, duration a duration, number a double, int-or-string dyn', () => {
  const s = compile({
    type: 'object',
    properties: {
      at: { type: 'string', format: 'date-time' },
      every: { type: 'string', format: 'duration' },
      ratio: { type: 'number' },
      port: { 'x-kubernetes-int-or-string': true },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 10 }, maxProperties: 5 },
    },
    'x-kubernetes-validations': [
      { rule: 'self.at < timestamp("2030-01-01T00:00:00Z")', message: 'too late' },
      { rule: 'self.every >= duration("1m")', message: 'too often' },
      { rule: 'self.ratio < 1.0', message: 'ratio' },
      { rule: 'type(self.port) == int ? self.port > 0 : self.port.endsWith("%")', message: 'port' },
      { rule: '!("bad" in self.labels)', message: 'labels' },
    ],
  });
  assert.deepEqual(show(s.validate(cr({ at: '2024-01-01T00:00:00Z', every: '5m', ratio: 0, port: 80, labels: { a: 'b' } }))), []);
  assert.deepEqual(show(s.validate(cr({ at: '2034-01-01T00:00:00Z', every: '5s', ratio: 2, port: '80', labels: { bad: 'x' } }))).map((e) => e.split(': ').pop()), [
    'too late',
    'too often',
    'ratio',
    'port',
    'labels',
  ]);
});

const compileErrors = (spec: Record<string, unknown>) => show(compileCustomSchema(withSpec(spec), P).errors);

const bad: [string, Record<string, unknown>, RegExp][] = [
  ['a syntax error', rules([{ rule: 'self.min <' }]), /^FieldValueInvalid spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.min <": compilation failed/],
  ['an undeclared field', rules([{ rule: 'self.nope > 1' }]), /x-kubernetes-validations\[0\]\.rule: .*compilation failed/],
  ['a rule that is not boolean', rules([{ rule: 'self.min + 1' }]), /x-kubernetes-validations\[0\]\.rule: .*must evaluate to bool/],
  ['an empty rule', rules([{ rule: '' }]), /FieldValueRequired .*x-kubernetes-validations\[0\]\.rule/],
  ['a message with a line break', rules([{ rule: 'true', message: 'a\nb' }]), /x-kubernetes-validations\[0\]\.message/],
  ['an unknown reason', rules([{ rule: 'true', reason: 'FieldValueSomething' }]), /FieldValueNotSupported .*x-kubernetes-validations\[0\]\.reason/],
  ['a fieldPath outside the schema', rules([{ rule: 'true', fieldPath: '.missing' }]), /x-kubernetes-validations\[0\]\.fieldPath/],
  ['a bad messageExpression', rules([{ rule: 'true', messageExpression: 'self.min' }]), /x-kubernetes-validations\[0\]\.messageExpression: .*must evaluate to string/],
  ['optionalOldSelf without oldSelf', rules([{ rule: 'true', optionalOldSelf: true }]), /x-kubernetes-validations\[0\]\.optionalOldSelf/],
  ['oldSelf inside an atomic list', { type: 'object', properties: { l: { type: 'array', maxItems: 3, items: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } }, /properties\[l\]\.items\.x-kubernetes-validations\[0\]\.rule: .*oldSelf/],
  ['an unbounded nested loop (estimated cost)', { type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } } }, /FieldValueForbidden .*properties\[l\]\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x/],
];

for (const [title, spec, expected] of bad) {
  test(`reference behaviour (CEL compile): ${title} is a CRD field error`, () => {
    const found = compileErrors(spec);
    assert.ok(found.some((e) => expected.test(e)), `expected ${expected} in:\n${found.join('\n')}`);
  });
}

test('reference behaviour (CEL cost): bounded lists keep the same rule under the limit', () => {
  assert.deepEqual(compileErrors({ type: 'object', properties: { l: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } } }), []);
});

test('reference behaviour (CEL cost): running out of the runtime budget is a validation error and stops the rules', () => {
  const s = compile({
    type: 'object',
    properties: { l: { type: 'array', maxItems: 100, items: { type: 'integer' } } },
    'x-kubernetes-validations': [{ rule: 'self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))' }, { rule: 'false' }],
  });
  const found = show(s.validate(cr({ l: Array.from({ length: 100 }, (_, i) => i) })));
  assert.equal(found.length, 1, found.join('\n'));
  assert.match(found[0]!, /^FieldValueInvalid spec: Invalid value: "object": validation ran out of its cost budget/);
});
