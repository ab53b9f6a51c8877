import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RBAC_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { clusterRoleBinding, roleBinding } from './index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

const binding = (over: ApiObject = {}): ApiObject => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'RoleBinding',
  metadata: { name: 'b', namespace: 'ns' },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'pod-reader' },
  subjects: [
    { kind: 'User', apiGroup: RBAC_GROUP, name: 'jane' },
    { kind: 'Group', apiGroup: RBAC_GROUP, name: 'devs' },
    { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    { kind: 'ServiceAccount', name: 'local' },
  ],
  ...over,
});
const clusterBinding = (over: ApiObject = {}): ApiObject =>
  binding({
    kind: 'ClusterRoleBinding',
    metadata: { name: 'cb' },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ci' }],
    ...over,
  });
const rb = (over: ApiObject = {}) => roleBinding.strategy.validate(binding(over));
const crb = (over: ApiObject = {}) => clusterRoleBinding.strategy.validate(clusterBinding(over));

test('spec 2.7: valid bindings: a RoleBinding to a Role or ClusterRole, a ClusterRoleBinding to a ClusterRole', () => {
  assert.deepEqual(rb(), []);
  assert.deepEqual(rb({ roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'system:view' } }), []);
  assert.deepEqual(crb(), []);
  assert.deepEqual(crb({ subjects: undefined }), []);
});

test('spec 2.7: roleRef is required, in the RBAC group, of kind Role or ClusterRole, with a path-segment name', () => {
  assert.deepEqual(summary(rb({ roleRef: undefined })), ['FieldValueRequired roleRef']);
  const errs = rb({ roleRef: { apiGroup: 'other.io', kind: 'Secret', name: 'a/b' } });
  assert.deepEqual(summary(errs), [
    'FieldValueNotSupported roleRef.apiGroup',
    'FieldValueNotSupported roleRef.kind',
    'FieldValueInvalid roleRef.name',
  ]);
  assert.match(errs[1]?.message ?? '', /supported values: "Role", "ClusterRole"/);
  assert.match(errs[2]?.message ?? '', /may not contain '\/'/);
  assert.deepEqual(summary(rb({ roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: '' } })), ['FieldValueRequired roleRef.name']);
  assert.deepEqual(summary(rb({ roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: '..' } })), ['FieldValueInvalid roleRef.name']);
});

test('spec 2.7: a ClusterRoleBinding may only refer to a ClusterRole', () => {
  const errs = crb({ roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'r' } });
  assert.deepEqual(summary(errs), ['FieldValueNotSupported roleRef.kind']);
  assert.match(errs[0]?.message ?? '', /supported values: "ClusterRole"$/);
});

test('spec 2.7: subjects: names required; User and Group in the RBAC group; unknown kinds rejected', () => {
  const errs = rb({
    subjects: [
      { kind: 'User', apiGroup: RBAC_GROUP, name: '' },
      { kind: 'User', apiGroup: 'x.io', name: 'jane' },
      { kind: 'Group', apiGroup: '', name: 'devs' },
      { kind: 'Robot', name: 'r2' },
    ],
  });
  assert.deepEqual(summary(errs), [
    'FieldValueRequired subjects[0].name',
    'FieldValueNotSupported subjects[1].apiGroup',
    'FieldValueNotSupported subjects[2].apiGroup',
    'FieldValueNotSupported subjects[3].kind',
  ]);
  assert.match(errs[3]?.message ?? '', /"ServiceAccount", "User", "Group"/);
  // Free-form user and group names are fine (spec 2.7).
  assert.deepEqual(rb({ subjects: [{ kind: 'User', apiGroup: RBAC_GROUP, name: 'Jane Doe@corp' }] }), []);
});

test('spec 2.7: ServiceAccount subjects: core group, DNS-subdomain name, namespace required cluster-wide', () => {
  const errs = rb({ subjects: [{ kind: 'ServiceAccount', apiGroup: RBAC_GROUP, name: 'Bad_Name' }] });
  assert.deepEqual(summary(errs), ['FieldValueInvalid subjects[0].name', 'FieldValueNotSupported subjects[0].apiGroup']);
  assert.deepEqual(summary(crb({ subjects: [{ kind: 'ServiceAccount', name: 'builder' }] })), ['FieldValueRequired subjects[0].namespace']);
  assert.deepEqual(summary(rb({ subjects: [{ kind: 'ServiceAccount', name: '' }] })), ['FieldValueRequired subjects[0].name']);
  assert.deepEqual(summary(rb({ subjects: ['jane'] })), ['FieldValueTypeInvalid subjects[0]']);
});

test('spec 2.7: roleRef is immutable on update ("cannot change roleRef")', () => {
  for (const t of [roleBinding, clusterRoleBinding]) {
    const update = t.strategy.validateUpdate;
    assert.ok(update);
    const old = t === roleBinding ? binding() : clusterBinding();
    assert.deepEqual(update({ ...old, subjects: [] }, old), []);
    const changed = { ...old, roleRef: { ...(old.roleRef as object), name: 'other' } };
    const errs = update(changed, old);
    assert.deepEqual(summary(errs), ['FieldValueInvalid roleRef']);
    assert.match(errs[0]?.message ?? '', /cannot change roleRef$/);
  }
});

test('spec 2.7: defaulting fills roleRef.apiGroup and User/Group subject apiGroup, so omitting them is no change', () => {
  const o = binding({
    roleRef: { kind: 'Role', name: 'pod-reader' },
    subjects: [{ kind: 'User', name: 'jane' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa' }],
  });
  roleBinding.strategy.prepareForCreate?.(o);
  assert.deepEqual(o.roleRef, { kind: 'Role', name: 'pod-reader', apiGroup: RBAC_GROUP });
  assert.deepEqual(o.subjects, [
    { kind: 'User', name: 'jane', apiGroup: RBAC_GROUP },
    { kind: 'Group', name: 'devs', apiGroup: RBAC_GROUP },
    { kind: 'ServiceAccount', name: 'sa' },
  ]);
  assert.deepEqual(roleBinding.strategy.validate(o), []);
  const next = binding({ roleRef: { kind: 'Role', name: 'pod-reader' } });
  roleBinding.strategy.prepareForUpdate?.(next, binding());
  assert.deepEqual(roleBinding.strategy.validateUpdate?.(next, binding()), []);
});

test('spec 2.7: binding table: Role as "Kind/name"; wide Users, Groups, ServiceAccounts', () => {
  const cols = roleBinding.tableColumns;
  assert.deepEqual(
    cols.map((c) => [c.name, c.priority]),
    [
      ['Role', 0],
      ['Users', 1],
      ['Groups', 1],
      ['ServiceAccounts', 1],
    ],
  );
  const o = binding({
    subjects: [
      { kind: 'User', name: 'jane' },
      { kind: 'User', name: 'joe' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ],
  });
  assert.deepEqual(Object.fromEntries(cols.map((c) => [c.name, c.value(o)])), {
    Role: 'Role/pod-reader',
    Users: 'jane, joe',
    Groups: 'devs',
    ServiceAccounts: 'ci/builder',
  });
  const cb = Object.fromEntries(clusterRoleBinding.tableColumns.map((c) => [c.name, c.value(clusterBinding({ subjects: undefined }))]));
  assert.deepEqual(cb, { Role: 'ClusterRole/view', Users: '', Groups: '', ServiceAccounts: '' });
});
