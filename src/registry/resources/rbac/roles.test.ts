import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RBAC_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { clusterRole, clusterRoleBinding, rbacTypes, role, roleBinding } from './index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const roleWith = (...rules: unknown[]): ApiObject => ({ kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules });
const clusterRoleWith = (extra: ApiObject): ApiObject => ({ kind: 'ClusterRole', metadata: { name: 'cr' }, ...extra });
const validateRole = (...rules: unknown[]) => role.strategy.validate(roleWith(...rules));
const validateClusterRole = (extra: ApiObject) => clusterRole.strategy.validate(clusterRoleWith(extra));

const podReader = { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] };

test('spec 2.7: the four RBAC types, their scope, names and strategy flags', () => {
  assert.deepEqual(
    rbacTypes.map((t) => [t.group, t.version, t.kind, t.plural, t.namespaced, t.listKind]),
    [
      [RBAC_GROUP, 'v1', 'Role', 'roles', true, 'RoleList'],
      [RBAC_GROUP, 'v1', 'ClusterRole', 'clusterroles', false, 'ClusterRoleList'],
      [RBAC_GROUP, 'v1', 'RoleBinding', 'rolebindings', true, 'RoleBindingList'],
      [RBAC_GROUP, 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false, 'ClusterRoleBindingList'],
    ],
  );
  for (const t of rbacTypes) {
    assert.equal(t.strategy.nameRule, 'path-segment');
    assert.deepEqual(t.shortNames, []);
    assert.equal(t.strategy.allowCreateOnUpdate, true);
    assert.equal(t.strategy.allowUnconditionalUpdate, true);
  }
  // Roles use the default table (Name, Created At).
  assert.deepEqual(role.tableColumns, []);
  assert.deepEqual(clusterRole.tableColumns, []);
  assert.ok(roleBinding.schema.properties?.roleRef && clusterRoleBinding.schema.properties?.subjects);
});

test('spec 2.7: valid roles: resource rules, wildcards, resourceNames, no rules at all', () => {
  assert.deepEqual(validateRole(podReader), []);
  assert.deepEqual(validateRole({ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }), []);
  assert.deepEqual(validateRole({ ...podReader, resourceNames: ['web-0'] }), []);
  assert.deepEqual(role.strategy.validate({ kind: 'Role', metadata: { name: 'r', namespace: 'ns' } }), []);
});

test('spec 2.7: every rule needs at least one verb', () => {
  const errs = validateRole(podReader, { apiGroups: [''], resources: ['pods'], verbs: [] });
  assert.deepEqual(summary(errs), ['FieldValueRequired rules[1].verbs']);
  assert.equal(errs[0]?.message, 'Required value: verbs must contain at least one value');
});

test('spec 2.7: resource rules need apiGroups and resources', () => {
  const errs = validateRole({ verbs: ['get'] });
  assert.deepEqual(summary(errs), ['FieldValueRequired rules[0].apiGroups', 'FieldValueRequired rules[0].resources']);
  assert.match(errs[0]?.message ?? '', /resource rules must supply at least one api group/);
  assert.match(errs[1]?.message ?? '', /resource rules must supply at least one resource/);
  // resourceNames alone do not name a resource.
  assert.deepEqual(summary(validateRole({ apiGroups: [''], resourceNames: ['x'], verbs: ['get'] })), [
    'FieldValueRequired rules[0].resources',
  ]);
});

test('spec 2.7: a Role may not grant non-resource URLs', () => {
  const errs = validateRole({ nonResourceURLs: ['/healthz'], verbs: ['get'] });
  assert.deepEqual(summary(errs), ['FieldValueInvalid rules[0].nonResourceURLs']);
  assert.match(errs[0]?.message ?? '', /namespaced rules cannot apply to non-resource URLs/);
});

test('spec 2.7: ClusterRole rules grant resources or non-resource URLs, never both in one rule', () => {
  assert.deepEqual(validateClusterRole({ rules: [podReader, { nonResourceURLs: ['/healthz', '/healthz/*'], verbs: ['get'] }] }), []);
  // cluster-admin's catch-all rule.
  assert.deepEqual(validateClusterRole({ rules: [{ nonResourceURLs: ['*'], verbs: ['*'] }] }), []);
  for (const mixed of [{ apiGroups: [''] }, { resources: ['pods'] }, { resourceNames: ['x'] }]) {
    const errs = validateClusterRole({ rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'], ...mixed }] });
    assert.deepEqual(summary(errs), ['FieldValueInvalid rules[0].nonResourceURLs']);
    assert.match(errs[0]?.message ?? '', /rules cannot apply to both regular resources and non-resource URLs/);
  }
});

test("spec 2.7: non-resource URLs begin with '/' (or are the lone '*')", () => {
  const errs = validateClusterRole({ rules: [{ nonResourceURLs: ['/ok', 'healthz'], verbs: ['get'] }] });
  assert.deepEqual(summary(errs), ['FieldValueInvalid rules[0].nonResourceURLs[1]']);
});

test('spec 2.7: rule fields must be lists of strings', () => {
  assert.deepEqual(summary(validateRole({ apiGroups: '', resources: ['pods', 3], verbs: ['get'] })), [
    'FieldValueTypeInvalid rules[0].apiGroups',
    'FieldValueTypeInvalid rules[0].resources[1]',
    'FieldValueRequired rules[0].apiGroups',
  ]);
  assert.deepEqual(summary(validateRole('get pods')), ['FieldValueTypeInvalid rules[0]']);
});

test('spec 2.7: aggregationRule needs at least one valid label selector', () => {
  const sel = { matchLabels: { [`${RBAC_GROUP}/aggregate-to-view`]: 'true' } };
  assert.deepEqual(validateClusterRole({ aggregationRule: { clusterRoleSelectors: [sel] } }), []);
  assert.deepEqual(
    validateClusterRole({
      aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }, { key: 'a', operator: 'In', values: ['x'] }] }] },
    }),
    [],
  );
  const empty = validateClusterRole({ aggregationRule: {} });
  assert.deepEqual(summary(empty), ['FieldValueRequired aggregationRule.clusterRoleSelectors']);
  assert.match(empty[0]?.message ?? '', /at least one clusterRoleSelector required if aggregationRule is non-nil/);
});

test('spec 2.7: aggregation selectors: label keys and values, operators, values per operator', () => {
  const errs = validateClusterRole({
    aggregationRule: {
      clusterRoleSelectors: [
        { matchLabels: { 'bad key!': 'v', ok: 'bad value!' } },
        {
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Near', values: ['x'] },
            { key: '-bad', operator: 'NotIn', values: ['ok', 'not ok'] },
          ],
        },
      ],
    },
  });
  assert.deepEqual(summary(errs), [
    'FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchLabels',
    'FieldValueInvalid aggregationRule.clusterRoleSelectors[0].matchLabels',
    'FieldValueRequired aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values',
    'FieldValueForbidden aggregationRule.clusterRoleSelectors[1].matchExpressions[1].values',
    'FieldValueNotSupported aggregationRule.clusterRoleSelectors[1].matchExpressions[2].operator',
    'FieldValueInvalid aggregationRule.clusterRoleSelectors[1].matchExpressions[3].key',
    'FieldValueInvalid aggregationRule.clusterRoleSelectors[1].matchExpressions[3].values[1]',
  ]);
});
