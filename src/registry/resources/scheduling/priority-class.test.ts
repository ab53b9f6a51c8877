import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHEDULING_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { StatusError, type FieldError } from '../../../errors/index.js';
import { renderTable } from '../../../encoding/index.js';
import { schedulingBootstrap } from './index.js';
import { priorityClasses, SYSTEM_PRIORITY_CLASSES } from './priority-class.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const pc = (name: string, body: Record<string, unknown>): ApiObject => ({ apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name }, ...body });
const s = priorityClasses.strategy;
const defaulted = (o: ApiObject) => {
  s.prepareForCreate?.(o);
  return o;
};

const cases: { name: string; o: ApiObject; want: string[] }[] = [
  { name: 'a user class at the highest user value', o: pc('high', { value: 1_000_000_000, description: 'x' }), want: [] },
  { name: 'a negative value that never preempts', o: pc('low', { value: -5, preemptionPolicy: 'Never' }), want: [] },
  { name: 'the built-in classes as built', o: pc('system-node-critical', { value: 2_000_001_000 }), want: [] },
  { name: 'no value', o: pc('x', {}), want: ['FieldValueRequired value'] },
  { name: 'a value outside int32', o: pc('x', { value: 2 ** 31 }), want: ['FieldValueInvalid value', 'FieldValueForbidden value'] },
  { name: 'a user class above one billion', o: pc('x', { value: 1_000_000_001 }), want: ['FieldValueForbidden value'] },
  { name: 'an unknown system- name', o: pc('system-mine', { value: 1 }), want: ['FieldValueForbidden metadata.name'] },
  { name: 'a built-in name with another value', o: pc('system-cluster-critical', { value: 1 }), want: ['FieldValueForbidden metadata.name'] },
  { name: 'a built-in name as global default', o: pc('system-cluster-critical', { value: 2_000_000_000, globalDefault: true }), want: ['FieldValueForbidden metadata.name'] },
  { name: 'an unknown preemptionPolicy', o: pc('x', { value: 1, preemptionPolicy: 'Sometimes' }), want: ['FieldValueNotSupported preemptionPolicy'] },
  { name: 'a globalDefault of the wrong type', o: pc('x', { value: 1, globalDefault: 'yes' }), want: ['FieldValueTypeInvalid globalDefault'] },
];

for (const c of cases) {
  test(`reference behaviour, PriorityClass validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(defaulted(c.o))), c.want);
  });
}

test('reference behaviour, PriorityClass: reserved-name message names the problem', () => {
  const [err] = s.validate(defaulted(pc('system-cluster-critical', { value: 7 })));
  assert.equal(err?.message, "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000");
});

test('reference behaviour, PriorityClass: preemptionPolicy defaults to PreemptLowerPriority', () => {
  assert.equal(defaulted(pc('x', { value: 1 })).preemptionPolicy, 'PreemptLowerPriority');
  assert.equal(defaulted(pc('x', { value: 1, preemptionPolicy: 'Never' })).preemptionPolicy, 'Never');
});

test('reference behaviour, PriorityClass: value and preemptionPolicy are immutable', () => {
  const old = defaulted(pc('x', { value: 1 }));
  const table: { change: Record<string, unknown>; want: string[] }[] = [
    { change: { description: 'new', globalDefault: true }, want: [] },
    { change: { value: 2 }, want: ['FieldValueForbidden value'] },
    { change: { preemptionPolicy: 'Never' }, want: ['FieldValueInvalid preemptionPolicy'] },
  ];
  for (const { change, want } of table) {
    assert.deepEqual(summary(s.validateUpdate?.({ ...old, ...change }, old) ?? []), want, JSON.stringify(change));
  }
});

test('reference behaviour, PriorityClass bootstrap: the two system classes, only when the type is served', () => {
  const objs = schedulingBootstrap([priorityClasses]);
  assert.deepEqual(objs.map((o) => [o.metadata?.name, o.value, o.globalDefault ?? false]), SYSTEM_PRIORITY_CLASSES.map((c) => [c.name, c.value, false]));
  for (const o of objs) assert.deepEqual(summary(s.validate(defaulted(structuredClone(o)))), [], String(o.metadata?.name));
  assert.deepEqual(schedulingBootstrap([]), []);
});

test('reference behaviour, PriorityClass table: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY; short name pc', () => {
  assert.deepEqual(priorityClasses.shortNames, ['pc']);
  const o = defaulted(pc('x', { value: 10, metadata: { name: 'x', creationTimestamp: new Date(Date.now() - 30_000).toISOString() } }));
  const table = renderTable(priorityClasses, [o]);
  assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
  assert.deepEqual(table.rows[0]?.cells, ['x', 10, false, '30s', 'PreemptLowerPriority']);
});
