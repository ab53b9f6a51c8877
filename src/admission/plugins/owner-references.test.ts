import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest, AuthorizationCheck, GroupVersionKind, KindMapping } from '../types.js';
import { changesOwnerReferences, newlyBlockingReferences, OwnerReferencesPermissionEnforcementPlugin, ownerReferencesPermissionEnforcementPlugin } from './owner-references.js';

const ref = (name: string, uid: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name, uid, ...extra });
const cm = (refs?: Record<string, unknown>[]): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', ...(refs ? { ownerReferences: refs } : {}) } });
const write = (operation: 'CREATE' | 'UPDATE', object: ApiObject, oldObject?: ApiObject, over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({ operation, name: 'cm', object, ...(oldObject ? { oldObject } : {}), ...over });

/** `allowed` lists `verb resource[/subresource] namespace/name` a user may do; everything else is no opinion. */
function authority(allowed: string[], reason = '') {
  const asked: string[] = [];
  const decide = async (_user: unknown, c: AuthorizationCheck | { verb: string; path: string }) => {
    const check = c as AuthorizationCheck;
    const key = `${check.verb} ${check.group ? `${check.resource}.${check.group}` : check.resource}${check.subresource ? `/${check.subresource}` : ''} ${check.namespace ?? ''}/${check.name ?? ''}`;
    asked.push(key);
    return allowed.includes(key) ? { decision: 'allow' as const, reason: '' } : { decision: 'noOpinion' as const, reason };
  };
  return { decide, asked };
}
const mapper = (k: GroupVersionKind): KindMapping[] => {
  if (k.group === 'apps' && k.version === 'v1' && k.kind === 'ReplicaSet') return [{ resource: { group: 'apps', version: 'v1', resource: 'replicasets' }, namespaced: true }];
  if (k.group === '' && k.version === 'v1' && k.kind === 'Node') return [{ resource: { group: '', version: 'v1', resource: 'nodes' }, namespaced: false }];
  return [];
};
const plugin = (allowed: string[], reason = '') => {
  const a = authority(allowed, reason);
  return { plugin: new OwnerReferencesPermissionEnforcementPlugin(a.decide, mapper), asked: a.asked };
};

admissionPluginContract('OwnerReferencesPermissionEnforcement', {
  make: () => plugin(['delete configmaps default/cm']).plugin,
  cases: [
    { title: 'a create with a blocking reference the user may not finalize', request: () => write('CREATE', cm([ref('rs', 'u1', { blockOwnerDeletion: true })])) },
    { title: 'an update adding a plain reference', request: () => write('UPDATE', cm([ref('rs', 'u1')]), cm()) },
    { title: 'an update leaving references alone', request: () => write('UPDATE', cm([ref('rs', 'u1')]), cm([ref('rs', 'u1')])) },
  ],
});

async function outcome(p: OwnerReferencesPermissionEnforcementPlugin, req: AdmissionRequest): Promise<string> {
  try {
    await p.validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (OwnerReferencesPermissionEnforcement): changing references needs delete on the object; blocking an owner needs update on its finalizers', async () => {
  const noDelete = `403 configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`;
  const noFinalizers = `403 configmaps "cm" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`;
  const blocking = ref('rs', 'u1', { blockOwnerDeletion: true });
  const table: [string, string[], AdmissionRequest, string, string[]][] = [
    ['create with a plain reference', [], write('CREATE', cm([ref('rs', 'u1')])), 'allowed', []],
    ['create with a blocking reference, no finalizers permission', [], write('CREATE', cm([blocking])), noFinalizers, ['update replicasets.apps/finalizers default/rs']],
    ['create with a blocking reference, finalizers permission', ['update replicasets.apps/finalizers default/rs'], write('CREATE', cm([blocking])), 'allowed', ['update replicasets.apps/finalizers default/rs']],
    ['update without a change asks nothing', [], write('UPDATE', cm([blocking]), cm([blocking])), 'allowed', []],
    ['update adding a reference without delete', [], write('UPDATE', cm([ref('rs', 'u1')]), cm()), noDelete, ['delete configmaps default/cm']],
    ['update adding a reference with delete', ['delete configmaps default/cm'], write('UPDATE', cm([ref('rs', 'u1')]), cm()), 'allowed', ['delete configmaps default/cm']],
    ['update turning blocking on needs both', ['delete configmaps default/cm'], write('UPDATE', cm([blocking]), cm([ref('rs', 'u1', { blockOwnerDeletion: false })])), noFinalizers,
      ['delete configmaps default/cm', 'update replicasets.apps/finalizers default/rs']],
    ['update keeping an already blocking reference', ['delete configmaps default/cm'], write('UPDATE', cm([blocking, ref('b', 'u2')]), cm([blocking])), 'allowed', ['delete configmaps default/cm']],
    ['a cluster-scoped owner is checked without a namespace', ['update nodes/finalizers /n1'], write('CREATE', cm([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'u3', blockOwnerDeletion: true }])), 'allowed', ['update nodes/finalizers /n1']],
    ['pod status writes are exempt', [], write('UPDATE', cm([ref('rs', 'u1')]), cm(), { resource: { group: '', version: 'v1', resource: 'pods' }, subResource: 'status' }), 'allowed', []],
  ];
  for (const [what, allowed, req, want, wantAsked] of table) {
    const { plugin: p, asked } = plugin(allowed);
    assert.equal(await outcome(p, req), want, what);
    assert.deepEqual(asked, wantAsked, what);
  }
});

test('reference behaviour (OwnerReferencesPermissionEnforcement): an owner kind the server does not serve, and the authorizer reason, are in the message', async () => {
  const unknown = write('CREATE', cm([{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u', blockOwnerDeletion: true }]));
  assert.equal(await outcome(plugin([]).plugin, unknown),
    '403 configmaps "cm" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"');
  assert.equal(await outcome(plugin([], 'RBAC: nothing bound').plugin, write('UPDATE', cm([ref('rs', 'u1')]), cm())),
    `403 configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can't delete: RBAC: nothing bound, <nil>`);
  const failing = new OwnerReferencesPermissionEnforcementPlugin(async () => { throw new Error('webhook down'); }, mapper);
  assert.equal(await outcome(failing, write('UPDATE', cm([ref('rs', 'u1')]), cm())), `403 configmaps "cm" is forbidden: cannot set an ownerRef on a resource you can't delete: , webhook down`);
});

test('reference behaviour (OwnerReferencesPermissionEnforcement): what counts as a change and as newly blocking', () => {
  const a = ref('a', 'ua');
  const blockingA = ref('a', 'ua', { blockOwnerDeletion: true });
  assert.equal(changesOwnerReferences(cm([a]), undefined), true);
  assert.equal(changesOwnerReferences(cm(), undefined), false);
  assert.equal(changesOwnerReferences(cm([a]), cm([{ ...a, controller: null }])), false, 'null and absent are the same');
  assert.equal(changesOwnerReferences(cm([a, ref('b', 'ub')]), cm([ref('b', 'ub'), a])), true, 'order matters');
  assert.deepEqual(newlyBlockingReferences(cm([blockingA]), cm([a])), [blockingA]);
  assert.deepEqual(newlyBlockingReferences(cm([blockingA]), cm([blockingA])), []);
  assert.deepEqual(newlyBlockingReferences(cm([a]), undefined), []);
});

test('reference behaviour (OwnerReferencesPermissionEnforcement): the plugin needs the authorizer and takes no configuration', () => {
  const deps = { objects: { get: async () => undefined, list: async () => [] }, equivalentResources: () => [], kindOf: () => undefined, log: () => undefined };
  assert.throws(() => ownerReferencesPermissionEnforcementPlugin(deps, undefined), /needs the server's authorizer/);
  const full = { ...deps, authorizeDecision: authority([]).decide, resourcesOfKind: mapper };
  assert.throws(() => ownerReferencesPermissionEnforcementPlugin(full, {}), /takes no configuration/);
  assert.equal(ownerReferencesPermissionEnforcementPlugin(full, undefined).name, 'OwnerReferencesPermissionEnforcement');
});
