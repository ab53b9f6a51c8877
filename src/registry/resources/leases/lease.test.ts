import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COORDINATION_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { lease } from './index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const make = (spec: Record<string, unknown>): ApiObject => ({
  apiVersion: `${COORDINATION_GROUP}/v1`,
  kind: 'Lease',
  metadata: { name: 'ctl', namespace: 'default' },
  spec,
});
const validate = (spec: Record<string, unknown>) => lease.strategy.validate(make(spec));

const good = {
  holderIdentity: 'ctl-1_abc',
  leaseDurationSeconds: 15,
  acquireTime: '2024-05-01T10:00:00.000000Z',
  renewTime: '2024-05-01T10:00:10.000000Z',
  leaseTransitions: 0,
};

test('architecture rule 8, Lease: a usual leader-election lease and an empty one are valid', () => {
  assert.deepEqual(validate(good), []);
  assert.deepEqual(lease.strategy.validate({ kind: 'Lease', metadata: { name: 'x', namespace: 'n' } }), []);
  assert.deepEqual(validate({ ...good, strategy: 'OldestEmulationVersion', preferredHolder: 'ctl-2' }), []);
  assert.deepEqual(validate({ ...good, strategy: 'example.com/custom' }), []);
});

test('architecture rule 8, Lease: leaseDurationSeconds must be greater than 0', () => {
  for (const d of [0, -5]) {
    const errs = validate({ ...good, leaseDurationSeconds: d });
    assert.deepEqual(summary(errs), ['FieldValueInvalid spec.leaseDurationSeconds']);
    assert.match(errs[0]?.message ?? '', /must be greater than 0/);
  }
  assert.deepEqual(summary(validate({ leaseDurationSeconds: 2 ** 31 })), ['FieldValueInvalid spec.leaseDurationSeconds']);
  assert.deepEqual(summary(validate({ leaseDurationSeconds: 1.5 })), ['FieldValueTypeInvalid spec.leaseDurationSeconds']);
});

test('architecture rule 8, Lease: leaseTransitions must not be negative', () => {
  const errs = validate({ ...good, leaseTransitions: -1 });
  assert.deepEqual(summary(errs), ['FieldValueInvalid spec.leaseTransitions']);
  assert.match(errs[0]?.message ?? '', /must be greater than or equal to 0/);
});

test('architecture rule 8, Lease: strategy is a built-in name or a qualified name; preferredHolder needs it', () => {
  assert.deepEqual(summary(validate({ strategy: 'Newest' })), ['FieldValueNotSupported spec.strategy']);
  assert.deepEqual(summary(validate({ strategy: 'example.com/bad name' })), ['FieldValueInvalid spec.strategy']);
  const errs = validate({ preferredHolder: 'ctl-2' });
  assert.deepEqual(summary(errs), ['FieldValueForbidden spec.preferredHolder']);
  assert.equal(errs[0]?.message, 'Forbidden: may only be specified if `strategy` is defined');
});

test('architecture rule 8, Lease: times must be RFC 3339 and field types must match', () => {
  assert.deepEqual(summary(validate({ renewTime: 'soon', holderIdentity: 3 })), [
    'FieldValueTypeInvalid spec.holderIdentity',
    'FieldValueInvalid spec.renewTime',
  ]);
  assert.deepEqual(summary(lease.strategy.validate(make([] as unknown as Record<string, unknown>))), ['FieldValueTypeInvalid spec']);
});

test('architecture rule 8, Lease: prepare hooks store acquireTime and renewTime as MicroTime', () => {
  const o = make({ acquireTime: '2024-05-01T12:00:00+02:00', renewTime: '2024-05-01T10:00:01.5Z' });
  lease.strategy.prepareForCreate?.(o);
  assert.deepEqual(o.spec, { acquireTime: '2024-05-01T10:00:00.000000Z', renewTime: '2024-05-01T10:00:01.500000Z' });
});

test('architecture rule 8, Lease: type identity, Holder column, create-on-update off', () => {
  assert.equal(lease.group, COORDINATION_GROUP);
  assert.deepEqual([lease.version, lease.kind, lease.plural, lease.namespaced], ['v1', 'Lease', 'leases', true]);
  assert.deepEqual(lease.shortNames, []);
  assert.equal(lease.strategy.allowCreateOnUpdate, false);
  assert.equal(lease.strategy.allowUnconditionalUpdate, true);
  assert.deepEqual(lease.tableColumns.map((c) => [c.name, c.priority]), [['Holder', 0]]);
  assert.equal(lease.tableColumns[0]?.value(make(good)), 'ctl-1_abc');
  assert.equal(lease.tableColumns[0]?.value(make({})), '');
  assert.equal(lease.schema.properties?.spec?.properties?.leaseDurationSeconds?.format, 'int32');
});
