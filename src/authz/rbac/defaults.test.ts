import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHORIZATION_GROUP, BOOTSTRAPPING_LABEL, RBAC_AUTOUPDATE_ANNOTATION, RBAC_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import type { Attributes } from '../index.js';
import { RbacAuthorizer } from './authorizer.js';
import { defaultClusterRoleBindings, defaultClusterRoles, defaultRbacObjects, reconcile } from './defaults.js';
import { RbacIndex, type RbacKind } from './rbac-index.js';
import { roleRefChanged } from './reconcile.js';
import type { Binding, ClusterRole } from './types.js';

const byName = <T extends ApiObject>(list: T[], name: string): T => {
  const o = list.find((x) => x.metadata?.name === name);
  assert.ok(o, `missing ${name}`);
  return o;
};

function authz() {
  const index = new RbacIndex();
  for (const o of defaultRbacObjects()) index.upsert(o.kind as RbacKind, o);
  return new RbacAuthorizer(index);
}
const res = (groups: string[], verb: string, apiGroup: string, resource: string, namespace = 'ns', subresource = ''): Attributes => ({
  user: { username: 'someone', groups },
  verb,
  isResourceRequest: true,
  path: '',
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource,
  namespace,
  name: 'n',
});
const path = (groups: string[], p: string): Attributes => ({ ...res(groups, 'get', '', ''), isResourceRequest: false, path: p, namespace: '' });

describe('default RBAC objects (spec 5.8)', () => {
  const roles = defaultClusterRoles();
  const bindings = defaultClusterRoleBindings();

  it('spec 5.8: has every user-facing role and component role, labelled and annotated', () => {
    const names = [
      'cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring',
      'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view', 'system:node', 'system:node-proxier',
      'system:scheduler', 'system:controller-manager', 'system:auth-delegator', 'system:node-bootstrapper',
      'system:persistent-volume-provisioner', 'system:dns',
    ];
    for (const n of names) byName(roles, n);
    for (const o of [...roles, ...bindings]) {
      assert.equal(o.apiVersion, `${RBAC_GROUP}/v1`);
      assert.equal(o.metadata?.labels?.[BOOTSTRAPPING_LABEL], 'rbac-defaults', o.metadata?.name);
      assert.equal(o.metadata?.annotations?.[RBAC_AUTOUPDATE_ANNOTATION], 'true');
    }
    assert.deepEqual(byName(roles, 'view').aggregationRule, {
      clusterRoleSelectors: [{ matchLabels: { [`${RBAC_GROUP}/aggregate-to-view`]: 'true' } }],
    });
    assert.equal(byName(roles, 'system:aggregate-to-edit').metadata?.labels?.[`${RBAC_GROUP}/aggregate-to-edit`], 'true');
  });

  it('spec 5.8: default bindings', () => {
    const subjects = (n: string) => (byName(bindings, n) as Binding).subjects?.map((s) => `${s.kind}:${s.name}`);
    assert.deepEqual(subjects('cluster-admin'), ['Group:system:masters']);
    assert.deepEqual(subjects('system:basic-user'), ['Group:system:authenticated']);
    assert.deepEqual(subjects('system:discovery'), ['Group:system:authenticated']);
    assert.deepEqual(subjects('system:public-info-viewer'), ['Group:system:authenticated', 'Group:system:unauthenticated']);
    assert.deepEqual(subjects('system:monitoring'), ['Group:system:monitoring']);
    assert.deepEqual(subjects('system:node-proxier'), ['User:system:proxy']);
    assert.deepEqual(subjects('system:scheduler'), ['User:system:scheduler']);
    assert.deepEqual(subjects('system:controller-manager'), ['User:system:controller-manager']);
    for (const b of bindings) byName(roles, (b as Binding).roleRef.name);
  });

  it('spec 5.8: admin ⊃ edit ⊃ view; secrets and roles only where the table says', async () => {
    const a = authz();
    const idx = new RbacIndex();
    for (const o of defaultRbacObjects()) idx.upsert(o.kind as RbacKind, o);
    for (const role of ['admin', 'edit', 'view']) {
      idx.upsert('RoleBinding', { metadata: { name: role, namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: role }, subjects: [{ kind: 'Group', name: role }] });
    }
    const z = new RbacAuthorizer(idx);
    const can = async (g: string, verb: string, group: string, resource: string, sub = '') =>
      (await z.authorize(res([g], verb, group, resource, 'ns', sub))).decision === 'allow';
    assert.equal(await can('view', 'list', '', 'pods'), true);
    assert.equal(await can('view', 'get', '', 'pods', 'log'), true);
    assert.equal(await can('view', 'get', '', 'secrets'), false);
    assert.equal(await can('view', 'create', '', 'pods'), false);
    assert.equal(await can('view', 'get', RBAC_GROUP, 'roles'), false);
    assert.equal(await can('edit', 'get', '', 'secrets'), true);
    assert.equal(await can('edit', 'create', '', 'configmaps'), true);
    assert.equal(await can('edit', 'list', '', 'pods'), true);
    assert.equal(await can('edit', 'create', RBAC_GROUP, 'rolebindings'), false);
    assert.equal(await can('admin', 'create', RBAC_GROUP, 'rolebindings'), true);
    assert.equal(await can('admin', 'update', '', 'secrets'), true);
    assert.equal(await can('admin', 'delete', '', 'namespaces'), false);
    // The defaults alone: masters may do anything, authenticated users only basic things.
    assert.equal((await a.authorize(res(['system:masters'], 'delete', 'x', 'y', ''))).decision, 'allow');
    assert.equal((await a.authorize(res(['system:authenticated'], 'list', '', 'pods'))).decision, 'noOpinion');
  });

  it('spec 5.8: discovery, public info and monitoring paths', async () => {
    const a = authz();
    const ok = async (groups: string[], p: string) => (await a.authorize(path(groups, p))).decision === 'allow';
    assert.equal(await ok(['system:authenticated'], '/apis/apps/v1'), true);
    assert.equal(await ok(['system:authenticated'], '/openapi/v3'), true);
    assert.equal(await ok(['system:unauthenticated'], '/version'), true);
    assert.equal(await ok(['system:unauthenticated'], '/livez'), true);
    assert.equal(await ok(['system:unauthenticated'], '/apis'), false);
    assert.equal(await ok(['system:authenticated'], '/metrics'), false);
    assert.equal(await ok(['system:monitoring'], '/metrics'), true);
    assert.equal(await ok(['system:monitoring'], '/readyz/etcd'), true);
    assert.equal((await a.authorize(res(['system:authenticated'], 'create', AUTHORIZATION_GROUP, 'selfsubjectaccessreviews', ''))).decision, 'allow');
  });
});

describe('reconcile (spec 5.8)', () => {
  const wantedRole = (): ClusterRole => byName(defaultClusterRoles(), 'system:basic-user');
  const wantedBinding = (): Binding => byName(defaultClusterRoleBindings(), 'system:public-info-viewer') as Binding;

  it('spec 5.8: creates what is missing and leaves an up-to-date object alone', () => {
    const w = wantedRole();
    assert.deepEqual(reconcile(undefined, w), w);
    assert.equal(reconcile(w, wantedRole()), undefined);
  });

  it('spec 5.8: adds missing permissions, keeps extra ones and user metadata', () => {
    const existing: ClusterRole = {
      ...wantedRole(),
      metadata: { name: 'system:basic-user', resourceVersion: '7', labels: { team: 'x', [BOOTSTRAPPING_LABEL]: 'changed' }, annotations: { note: 'mine' } },
      rules: [{ apiGroups: ['extra'], resources: ['things'], verbs: ['get'] }, wantedRole().rules?.[0] as never],
    };
    const out = reconcile(existing, wantedRole()) as ClusterRole;
    assert.ok(out);
    assert.equal(out.metadata?.resourceVersion, '7');
    assert.deepEqual(out.metadata?.labels, { team: 'x', [BOOTSTRAPPING_LABEL]: 'rbac-defaults' });
    assert.deepEqual(out.metadata?.annotations, { note: 'mine', [RBAC_AUTOUPDATE_ANNOTATION]: 'true' });
    assert.deepEqual(out.rules, [...(existing.rules ?? []), wantedRole().rules?.[1]]);
    // A broader existing rule covers the wanted ones: nothing to add.
    const broad = { ...wantedRole(), rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['create'] }] };
    assert.equal(reconcile(broad, wantedRole()), undefined);
  });

  it('spec 5.8: adds missing subjects and keeps extra ones', () => {
    const existing = { ...wantedBinding(), subjects: [{ kind: 'User', name: 'extra' }, { kind: 'Group', name: 'system:authenticated' }] };
    const out = reconcile(existing, wantedBinding()) as Binding;
    assert.deepEqual(out.subjects?.map((s) => s.name), ['extra', 'system:authenticated', 'system:unauthenticated']);
    assert.equal(roleRefChanged(existing, wantedBinding()), false);
    assert.equal(roleRefChanged({ ...existing, roleRef: { kind: 'ClusterRole', name: 'other' } }, wantedBinding()), true);
  });

  it('spec 5.8: autoupdate "false" disables reconciliation', () => {
    const meta = { name: 'system:basic-user', annotations: { [RBAC_AUTOUPDATE_ANNOTATION]: 'false' } };
    assert.equal(reconcile({ ...wantedRole(), metadata: meta, rules: [] }, wantedRole()), undefined);
    assert.equal(reconcile({ ...wantedBinding(), metadata: meta, subjects: [] }, wantedBinding()), undefined);
  });

  it('adds missing aggregation selectors to an aggregated role', () => {
    const view = byName(defaultClusterRoles(), 'view');
    const out = reconcile({ ...view, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }] } }, view) as ClusterRole;
    assert.equal(out.aggregationRule?.clusterRoleSelectors?.length, 2);
  });
});
