import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RBAC_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import type { Attributes } from '../index.js';
import { RbacAuthorizer, type RbacSource } from './authorizer.js';
import { benchAuthorize } from './bench.js';
import { RbacIndex, type RbacKind } from './rbac-index.js';
import type { Subject } from './types.js';

const user = (username: string, groups: string[] = ['system:authenticated']) => ({ username, groups });
function req(u: Attributes['user'], verb: string, resource: string, namespace = '', name = '', subresource = ''): Attributes {
  return { user: u, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource, subresource, namespace, name };
}
const role = (name: string, namespace?: string): ApiObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
});
const binding = (name: string, roleKind: string, roleName: string, subjects: Subject[], namespace?: string): ApiObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: roleName },
  subjects,
});
const U = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
const G = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const SA = (name: string, namespace?: string): Subject => ({ kind: 'ServiceAccount', name, ...(namespace ? { namespace } : {}) });

function setup(objs: [RbacKind, ApiObject][]) {
  const index = new RbacIndex();
  for (const [k, o] of objs) index.upsert(k, o);
  return { index, authz: new RbacAuthorizer(index) };
}

describe('RbacAuthorizer bindings (spec 5.8)', () => {
  it('spec 5.8: a ClusterRoleBinding grants in every namespace and at cluster scope', async () => {
    const { authz } = setup([
      ['ClusterRole', role('reader')],
      ['ClusterRoleBinding', binding('b', 'ClusterRole', 'reader', [U('alice')])],
    ]);
    for (const ns of ['a', 'b', '']) {
      const d = await authz.authorize(req(user('alice'), 'get', 'configmaps', ns, 'x'));
      assert.equal(d.decision, 'allow', ns);
    }
    const d = await authz.authorize(req(user('alice'), 'get', 'configmaps', 'a', 'x'));
    assert.equal(d.reason, 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "reader" to User "alice"');
    assert.equal((await authz.authorize(req(user('alice'), 'delete', 'configmaps', 'a', 'x'))).decision, 'noOpinion');
    assert.equal((await authz.authorize(req(user('bob'), 'get', 'configmaps', 'a', 'x'))).decision, 'noOpinion');
  });

  it('spec 5.8: a RoleBinding to a ClusterRole grants only in its own namespace', async () => {
    const { authz } = setup([
      ['ClusterRole', role('reader')],
      ['RoleBinding', binding('rb', 'ClusterRole', 'reader', [U('alice')], 'team')],
    ]);
    const ok = await authz.authorize(req(user('alice'), 'list', 'configmaps', 'team'));
    assert.deepEqual(ok, { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "reader" to User "alice"' });
    assert.equal((await authz.authorize(req(user('alice'), 'list', 'configmaps', 'other'))).decision, 'noOpinion');
    assert.equal((await authz.authorize(req(user('alice'), 'list', 'configmaps', ''))).decision, 'noOpinion');
  });

  it('spec 5.8: a RoleBinding to a Role uses the Role of the binding namespace', async () => {
    const { authz } = setup([
      ['Role', role('r', 'team')],
      ['Role', { metadata: { name: 'r', namespace: 'other' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }],
      ['RoleBinding', binding('rb', 'Role', 'r', [U('alice')], 'team')],
    ]);
    assert.equal((await authz.authorize(req(user('alice'), 'get', 'configmaps', 'team', 'x'))).decision, 'allow');
    assert.equal((await authz.authorize(req(user('alice'), 'get', 'secrets', 'team', 'x'))).decision, 'noOpinion');
  });

  it('spec 2.7: Group subjects match by group membership, case-sensitively', async () => {
    const { authz } = setup([
      ['ClusterRole', role('reader')],
      ['RoleBinding', binding('rb', 'ClusterRole', 'reader', [G('devs')], 'team')],
    ]);
    const d = await authz.authorize(req(user('carol', ['devs']), 'get', 'configmaps', 'team', 'x'));
    assert.equal(d.reason, 'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "reader" to Group "devs"');
    assert.equal((await authz.authorize(req(user('carol', ['Devs']), 'get', 'configmaps', 'team', 'x'))).decision, 'noOpinion');
    // A user whose name equals the group name is not in the group.
    assert.equal((await authz.authorize(req(user('devs', []), 'get', 'configmaps', 'team', 'x'))).decision, 'noOpinion');
  });

  it('spec 2.7: ServiceAccount subjects match system:serviceaccount:<ns>:<name>; a RoleBinding defaults the namespace', async () => {
    const { authz } = setup([
      ['ClusterRole', role('reader')],
      ['RoleBinding', binding('explicit', 'ClusterRole', 'reader', [SA('builder', 'ci')], 'team')],
      ['RoleBinding', binding('implicit', 'ClusterRole', 'reader', [SA('deployer')], 'team')],
      ['ClusterRoleBinding', binding('nons', 'ClusterRole', 'reader', [SA('ghost')])],
    ]);
    const d = await authz.authorize(req(user('system:serviceaccount:ci:builder'), 'get', 'configmaps', 'team', 'x'));
    assert.equal(d.reason, 'RBAC: allowed by RoleBinding "explicit/team" of ClusterRole "reader" to ServiceAccount "builder/ci"');
    const d2 = await authz.authorize(req(user('system:serviceaccount:team:deployer'), 'get', 'configmaps', 'team', 'x'));
    assert.equal(d2.reason, 'RBAC: allowed by RoleBinding "implicit/team" of ClusterRole "reader" to ServiceAccount "deployer/team"');
    assert.equal((await authz.authorize(req(user('system:serviceaccount:other:deployer'), 'get', 'configmaps', 'team', 'x'))).decision, 'noOpinion');
    // A ClusterRoleBinding service account without a namespace matches nobody.
    assert.equal((await authz.authorize(req(user('system:serviceaccount::ghost'), 'get', 'configmaps', '', 'x'))).decision, 'noOpinion');
  });

  it('spec 5.7: a binding to a missing role gives no opinion with the reference reason', async () => {
    const { authz } = setup([
      ['ClusterRoleBinding', binding('b', 'ClusterRole', 'x', [U('alice')])],
      ['RoleBinding', binding('rb', 'Role', 'gone', [U('alice')], 'team')],
      ['ClusterRoleBinding', binding('other', 'ClusterRole', 'y', [U('bob')])],
    ]);
    assert.deepEqual(await authz.authorize(req(user('alice'), 'get', 'pods', '', 'p')), {
      decision: 'noOpinion',
      reason: `RBAC: clusterrole.${RBAC_GROUP} "x" not found`,
    });
    const both = await authz.authorize(req(user('alice'), 'get', 'pods', 'team', 'p'));
    assert.equal(both.reason, `RBAC: [clusterrole.${RBAC_GROUP} "x" not found, role.${RBAC_GROUP} "gone" not found]`);
    // Bindings of other users do not leak into the reason; nothing applicable means no reason at all.
    assert.deepEqual(await authz.authorize(req(user('carol'), 'get', 'pods', '', 'p')), { decision: 'noOpinion' });
  });

  it('spec 5.7: non-resource URLs are granted by ClusterRoleBindings', async () => {
    const { authz } = setup([
      ['ClusterRole', { metadata: { name: 'health' }, rules: [{ nonResourceURLs: ['/healthz', '/healthz/*'], verbs: ['get'] }] }],
      ['ClusterRoleBinding', binding('b', 'ClusterRole', 'health', [G('system:authenticated')])],
    ]);
    const a = (path: string, verb = 'get'): Attributes => ({ ...req(user('u'), verb, ''), isResourceRequest: false, path });
    assert.equal((await authz.authorize(a('/healthz/etcd'))).decision, 'allow');
    assert.equal((await authz.authorize(a('/healthz', 'post'))).decision, 'noOpinion');
    assert.equal((await authz.authorize(a('/metrics'))).decision, 'noOpinion');
  });

  it('upsert replaces and remove forgets, keeping the subject index in step', async () => {
    const { index, authz } = setup([
      ['ClusterRole', role('reader')],
      ['RoleBinding', binding('rb', 'ClusterRole', 'reader', [U('alice')], 'team')],
    ]);
    const get = (u: string) => authz.authorize(req(user(u), 'get', 'configmaps', 'team', 'x'));
    index.upsert('RoleBinding', binding('rb', 'ClusterRole', 'reader', [U('bob')], 'team'));
    assert.equal((await get('alice')).decision, 'noOpinion');
    assert.equal((await get('bob')).decision, 'allow');
    index.apply('RoleBinding', 'DELETED', binding('rb', 'ClusterRole', 'reader', [], 'team'));
    assert.equal((await get('bob')).decision, 'noOpinion');
    assert.deepEqual(index.listRoleBindings('team'), []);
    index.upsert('RoleBinding', binding('rb', 'ClusterRole', 'reader', [U('bob')], 'team'));
    index.remove('ClusterRole', '', 'reader');
    assert.equal((await get('bob')).reason, `RBAC: clusterrole.${RBAC_GROUP} "reader" not found`);
  });

  it('works with a plain source that has no subject index', async () => {
    const src: RbacSource = {
      getRole: () => undefined,
      getClusterRole: (n) => (n === 'reader' ? role('reader') : undefined),
      listRoleBindings: (ns) => (ns === 'team' ? [binding('rb', 'ClusterRole', 'reader', [U('alice')], 'team') as never] : []),
      listClusterRoleBindings: () => [],
    };
    const authz = new RbacAuthorizer(src);
    assert.equal((await authz.authorize(req(user('alice'), 'get', 'configmaps', 'team', 'x'))).decision, 'allow');
    assert.equal((await authz.authorize(req(user('bob'), 'get', 'configmaps', 'team', 'x'))).decision, 'noOpinion');
  });
});

describe('RbacIndex with many bindings', () => {
  it('one authorization examines only the bindings of the user and its groups (10,000 users)', async () => {
    const index = new RbacIndex();
    index.upsert('ClusterRole', role('reader'));
    for (let i = 0; i < 10_000; i++) index.upsert('RoleBinding', binding(`b${i}`, 'ClusterRole', 'reader', [U(`user-${i}`)], 'ns'));
    index.upsert('RoleBinding', binding('group', 'ClusterRole', 'reader', [G('devs'), U('user-42')], 'ns'));
    // Spy: the full lists must never be read when the index can answer.
    let listed = 0;
    const spy: RbacSource = {
      getRole: (ns, n) => index.getRole(ns, n),
      getClusterRole: (n) => index.getClusterRole(n),
      listRoleBindings: (ns) => (listed++, index.listRoleBindings(ns)),
      listClusterRoleBindings: () => (listed++, index.listClusterRoleBindings()),
      roleBindingsFor: (ns, u) => index.roleBindingsFor(ns, u),
      clusterRoleBindingsFor: (u) => index.clusterRoleBindingsFor(u),
    };
    const authz = new RbacAuthorizer(spy);
    assert.equal((await authz.authorize(req(user('user-5000'), 'get', 'configmaps', 'ns', 'x'))).decision, 'allow');
    assert.equal(authz.bindingsExamined, 1);
    // Denied requests also touch only the user's bindings.
    assert.equal((await authz.authorize(req(user('user-5000'), 'delete', 'configmaps', 'ns', 'x'))).decision, 'noOpinion');
    assert.equal(authz.bindingsExamined, 2);
    // A binding naming both the user and its group is examined once.
    await authz.authorize(req(user('user-42', ['devs']), 'delete', 'configmaps', 'ns', 'x'));
    assert.equal(authz.bindingsExamined, 2 + 2);
    assert.equal(listed, 0);
  });

  it('benchAuthorize runs; bindings examined per decision do not grow with n', async () => {
    const small = await benchAuthorize(10, 200);
    const large = await benchAuthorize(5000, 200);
    assert.equal(large.n, 5000);
    assert.equal(large.ops, 200);
    // Own RoleBinding plus the three default bindings of system:authenticated.
    assert.equal(small.examinedPerOp, 4);
    assert.equal(large.examinedPerOp, 4);
    assert.ok(large.nsPerOp > 0);
  });
});
