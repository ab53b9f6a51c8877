import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { storageClasses } from './storage-class.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const sc = (body: Record<string, unknown>): ApiObject => ({ apiVersion: `${STORAGE_GROUP}/v1`, kind: 'StorageClass', metadata: { name: 'fast' }, ...body });
const s = storageClasses.strategy;
const defaulted = (body: Record<string, unknown>) => {
  const o = sc(body);
  s.prepareForCreate?.(o);
  return o;
};

test('reference behaviour, StorageClass defaults: reclaimPolicy Delete, volumeBindingMode Immediate', () => {
  const table: { body: Record<string, unknown>; want: [unknown, unknown] }[] = [
    { body: { provisioner: 'csi.example.com' }, want: ['Delete', 'Immediate'] },
    { body: { provisioner: 'csi.example.com', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }, want: ['Retain', 'WaitForFirstConsumer'] },
  ];
  for (const { body, want } of table) {
    const o = defaulted(body);
    assert.deepEqual([o.reclaimPolicy, o.volumeBindingMode], want);
  }
});

const cases: { name: string; body: Record<string, unknown>; want: string[] }[] = [
  {
    name: 'a full class',
    body: { provisioner: 'example.com/ebs', parameters: { type: 'gp3' }, mountOptions: ['debug'], allowVolumeExpansion: true, allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.example.com/zone', values: ['a', 'b'] }] }] },
    want: [],
  },
  { name: 'no provisioner', body: {}, want: ['FieldValueRequired provisioner'] },
  { name: 'a provisioner that is not a qualified name', body: { provisioner: 'a/b/c' }, want: ['FieldValueInvalid provisioner'] },
  { name: 'an empty parameter key', body: { provisioner: 'p', parameters: { '': 'x' } }, want: ['FieldValueInvalid parameters'] },
  { name: 'more than 512 parameters', body: { provisioner: 'p', parameters: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v'])) }, want: ['FieldValueTooLong parameters'] },
  { name: 'an unknown reclaimPolicy', body: { provisioner: 'p', reclaimPolicy: 'Recycle' }, want: ['FieldValueNotSupported reclaimPolicy'] },
  { name: 'an unknown volumeBindingMode', body: { provisioner: 'p', volumeBindingMode: 'Later' }, want: ['FieldValueNotSupported volumeBindingMode'] },
  {
    name: 'topology terms with a bad key, no values and a duplicate value',
    body: { provisioner: 'p', allowedTopologies: [{ matchLabelExpressions: [{ key: 'bad key', values: ['a'] }, { key: 'k' }, { key: 'k', values: ['x', 'x'] }] }] },
    want: [
      'FieldValueInvalid allowedTopologies[0].matchLabelExpressions[0].key',
      'FieldValueRequired allowedTopologies[0].matchLabelExpressions[1].values',
      'FieldValueDuplicate allowedTopologies[0].matchLabelExpressions[2].values',
    ],
  },
];

for (const c of cases) {
  test(`reference behaviour, StorageClass validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(defaulted(c.body))), c.want);
  });
}

test('reference behaviour, StorageClass: volumeBindingMode is required once defaulting is bypassed', () => {
  assert.deepEqual(summary(s.validate(sc({ provisioner: 'p' }))), ['FieldValueRequired volumeBindingMode']);
});

test('reference behaviour, StorageClass: provisioner, parameters, reclaimPolicy and volumeBindingMode are immutable', () => {
  const old = defaulted({ provisioner: 'p', parameters: { a: '1' } });
  const table: { change: Record<string, unknown>; want: string[] }[] = [
    { change: { allowVolumeExpansion: true, mountOptions: ['ro'] }, want: [] },
    { change: { provisioner: 'q' }, want: ['FieldValueForbidden provisioner'] },
    { change: { parameters: { a: '2' } }, want: ['FieldValueForbidden parameters'] },
    { change: { parameters: undefined }, want: ['FieldValueForbidden parameters'] },
    { change: { reclaimPolicy: 'Retain' }, want: ['FieldValueForbidden reclaimPolicy'] },
    { change: { volumeBindingMode: 'WaitForFirstConsumer' }, want: ['FieldValueInvalid volumeBindingMode'] },
  ];
  for (const { change, want } of table) {
    const next = { ...structuredClone(old), ...change } as ApiObject;
    assert.deepEqual(summary(s.validateUpdate?.(next, old) ?? []), want, JSON.stringify(change));
  }
});

test('reference behaviour, StorageClass: short name sc, table PROVISIONER, RECLAIMPOLICY, VOLUMEBINDINGMODE, ALLOWVOLUMEEXPANSION', () => {
  assert.deepEqual(storageClasses.shortNames, ['sc']);
  assert.deepEqual(storageClasses.tableColumns.map((c) => c.name), ['Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion']);
  const cells = (o: ApiObject) => storageClasses.tableColumns.map((c) => c.value(o));
  assert.deepEqual(cells(sc({ provisioner: 'p' })), ['p', 'Delete', 'Immediate', false]);
  assert.deepEqual(cells(sc({ provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true })), ['p', 'Retain', 'WaitForFirstConsumer', true]);
});
