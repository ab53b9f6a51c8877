import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COORDINATION_GROUP, GROUP_SUFFIX, MIRROR_POD_ANNOTATION, NODE_LEASE_NAMESPACE, STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { forbiddenNodeLabels, NodeRestrictionPlugin } from './node-restriction.js';

const n1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const objects = fixedObjects({
  '/nodes': [{ metadata: { name: 'n1', uid: 'uid-n1' } }],
  '/pods': [
    { metadata: { namespace: 'ns', name: 'mine', uid: 'uid-mine' }, spec: { nodeName: 'n1' } },
    { metadata: { namespace: 'ns', name: 'theirs', uid: 'uid-theirs' }, spec: { nodeName: 'n2' } },
  ],
});
const plugin = () => new NodeRestrictionPlugin(objects);

const core = (resource: string) => ({ resource: { group: '', version: 'v1', resource }, kind: { group: '', version: 'v1', kind: resource } });
const mirror = (meta: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): ApiObject => ({
  metadata: { name: 'static-n1', namespace: 'ns', annotations: { [MIRROR_POD_ANNOTATION]: 'x' }, ...meta },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...spec },
});
const selfOwner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-n1', controller: true };
const podCreate = (obj: ApiObject) => admissionRequest({ operation: 'CREATE', ...core('pods'), namespace: 'ns', name: obj.metadata?.name ?? '', object: obj, user: n1 });
const node = (labels: Record<string, string>, spec: Record<string, unknown> = {}): ApiObject => ({ metadata: { name: 'n1', labels }, spec });
const nodeWrite = (operation: 'CREATE' | 'UPDATE' | 'DELETE', name: string, object?: ApiObject, oldObject?: ApiObject) =>
  admissionRequest({ operation, ...core('nodes'), namespace: '', name, object, oldObject, user: n1 });
const tokenFor = (ref: Record<string, unknown> | undefined) =>
  admissionRequest({ operation: 'CREATE', ...core('serviceaccounts'), subResource: 'token', namespace: 'ns', name: 'default', object: { spec: { audiences: [], ...(ref ? { boundObjectRef: ref } : {}) } }, user: n1 });
const lease = (operation: 'CREATE' | 'UPDATE', name: string, namespace = NODE_LEASE_NAMESPACE) =>
  admissionRequest({ operation, resource: { group: COORDINATION_GROUP, version: 'v1', resource: 'leases' }, kind: { group: COORDINATION_GROUP, version: 'v1', kind: 'Lease' }, namespace, name, object: { metadata: { name, namespace } }, user: n1 });
const csiNode = (operation: 'CREATE' | 'DELETE', name: string) =>
  admissionRequest({ operation, resource: { group: STORAGE_GROUP, version: 'v1', resource: 'csinodes' }, kind: { group: STORAGE_GROUP, version: 'v1', kind: 'CSINode' }, namespace: '', name, ...(operation === 'CREATE' ? { object: { metadata: { name } } } : {}), user: n1 });
const sub = (resource: string, subResource: string, operation: 'CREATE' | 'UPDATE', name: string, object?: ApiObject, oldObject?: ApiObject) =>
  admissionRequest({ operation, ...core(resource), subResource, namespace: 'ns', name, object, oldObject, user: n1 });
const pvc = (status: Record<string, unknown>, labels: Record<string, string> = {}): ApiObject => ({ metadata: { name: 'data', namespace: 'ns', labels, resourceVersion: '5' }, spec: { volumeName: 'pv1' }, status });

/** [title, request, expected: null (admitted) or [code, message fragment]] */
const ROWS: [string, () => AdmissionRequest, null | [number, string]][] = [
  ['a mirror pod bound to itself', () => podCreate(mirror()), null],
  ['a mirror pod owned by itself as controller', () => podCreate(mirror({ ownerReferences: [selfOwner] })), null],
  ['a pod without the mirror annotation', () => podCreate(mirror({ annotations: {} })), [403, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "n1" can only create mirror pods`]],
  ['a mirror pod bound to another node', () => podCreate(mirror({}, { nodeName: 'n2' })), [403, 'node "n1" can only create pods with spec.nodeName set to itself']],
  ['a mirror pod with two owners', () => podCreate(mirror({ ownerReferences: [selfOwner, selfOwner] })), [403, 'with a single owner reference set to itself']],
  ['a mirror pod owned by another node', () => podCreate(mirror({ ownerReferences: [{ ...selfOwner, name: 'n2' }] })), [403, 'can only create pods with an owner reference set to itself']],
  ['a mirror pod whose owner is not a controller', () => podCreate(mirror({ ownerReferences: [{ ...selfOwner, controller: false }] })), [403, 'with a controller owner reference set to itself']],
  ['a mirror pod blocking owner deletion', () => podCreate(mirror({ ownerReferences: [{ ...selfOwner, blockOwnerDeletion: true }] })), [403, 'must not set blockOwnerDeletion']],
  ['a mirror pod with a stale node uid', () => podCreate(mirror({ ownerReferences: [{ ...selfOwner, uid: 'old' }] })), [403, 'node n1 UID mismatch: expected uid-n1 got old']],
  ['a mirror pod naming a service account', () => podCreate(mirror({}, { serviceAccountName: 'robot' })), [403, 'can not create pods that reference a service account']],
  ['a mirror pod naming a secret', () => podCreate(mirror({}, { imagePullSecrets: [{ name: 'pull' }] })), [403, 'can not create pods that reference secrets']],
  ['a mirror pod naming a configmap', () => podCreate(mirror({}, { volumes: [{ name: 'v', configMap: { name: 'cm' } }] })), [403, 'can not create pods that reference configmaps']],
  ['a mirror pod naming a claim', () => podCreate(mirror({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] })), [403, 'can not create pods that reference persistentvolumeclaims']],
  ['a mirror pod naming a resource claim', () => podCreate(mirror({}, { resourceClaims: [{ name: 'g', resourceClaimName: 'g' }] })), [403, 'can not create pods that reference resourceclaims']],
  ['an update of a pod', () => admissionRequest({ operation: 'UPDATE', ...core('pods'), namespace: 'ns', name: 'mine', object: mirror(), oldObject: mirror(), user: n1 }), [403, 'unexpected operation "UPDATE", node "n1" can only create and delete mirror pods']],
  ['a delete of its own pod', () => admissionRequest({ operation: 'DELETE', ...core('pods'), namespace: 'ns', name: 'mine', user: n1 }), null],
  ['a delete of another node’s pod', () => admissionRequest({ operation: 'DELETE', ...core('pods'), namespace: 'ns', name: 'theirs', user: n1 }), [403, 'node "n1" can only delete pods with spec.nodeName set to itself']],
  ['a delete of a missing pod', () => admissionRequest({ operation: 'DELETE', ...core('pods'), namespace: 'ns', name: 'gone', user: n1 }), [404, 'pods "gone" not found']],
  ['a status update of its own pod', () => sub('pods', 'status', 'UPDATE', 'mine', { metadata: { labels: { a: '1' } }, status: { phase: 'Running' } }, { metadata: { labels: { a: '1' } }, spec: { nodeName: 'n1' } }), null],
  ['a status update of another node’s pod', () => sub('pods', 'status', 'UPDATE', 'theirs', { status: {} }, { spec: { nodeName: 'n2' } }), [403, 'can only update pod status for pods with spec.nodeName set to itself']],
  ['a pod status update changing labels', () => sub('pods', 'status', 'UPDATE', 'mine', { metadata: { labels: { a: '2' } } }, { metadata: { labels: { a: '1' } }, spec: { nodeName: 'n1' } }), [403, 'cannot update labels through pod status']],
  ['another pod subresource', () => sub('pods', 'ephemeralcontainers', 'UPDATE', 'mine', {}, {}), [403, `unexpected subresource "ephemeralcontainers", only 'status' and 'eviction' are allowed`]],
  ['an eviction of its own pod', () => sub('pods', 'eviction', 'CREATE', 'mine', { metadata: { name: 'mine' } }), null],
  ['an eviction of another node’s pod', () => sub('pods', 'eviction', 'CREATE', 'theirs', { metadata: { name: 'theirs' } }), [403, 'node n1 can only evict pods with spec.nodeName set to itself']],
  ['registering its own node with kubelet labels', () => nodeWrite('CREATE', 'n1', node({ [`${GROUP_SUFFIX}/hostname`]: 'h', [`node.${GROUP_SUFFIX}/exclude-from-external-load-balancers`]: '', 'example.com/x': 'y' })), null],
  ['registering another node', () => nodeWrite('CREATE', 'n2', { metadata: { name: 'n2' } }), [403, 'node "n1" is not allowed to modify node "n2"']],
  ['registering with a node-role label', () => nodeWrite('CREATE', 'n1', node({ [`node-role.${GROUP_SUFFIX}/master`]: '' })), [403, `node "n1" is not allowed to set the following labels: node-role.${GROUP_SUFFIX}/master`]],
  ['registering with a config source', () => nodeWrite('CREATE', 'n1', node({}, { configSource: { configMap: {} } })), [403, 'is not allowed to create pods with a non-nil configSource']],
  ['an update adding a node-restriction label', () => nodeWrite('UPDATE', 'n1', node({ [`node-restriction.${GROUP_SUFFIX}/pool`]: 'a' }), node({})), [403, `is not allowed to modify labels: node-restriction.${GROUP_SUFFIX}/pool`]],
  ['an update removing a kubelet label', () => nodeWrite('UPDATE', 'n1', node({}), node({ [`${GROUP_SUFFIX}/os`]: 'linux' })), null],
  ['an update changing taints', () => nodeWrite('UPDATE', 'n1', node({}, { taints: [] }), node({}, { taints: [{ key: 'k', effect: 'NoSchedule' }] })), [403, 'node "n1" is not allowed to modify taints']],
  ['an update setting a new config source', () => nodeWrite('UPDATE', 'n1', node({}, { configSource: { configMap: { name: 'x' } } }), node({})), [403, 'is not allowed to update configSource to a new non-nil configSource']],
  ['a delete of its own node', () => nodeWrite('DELETE', 'n1'), null],
  ['a delete of another node', () => nodeWrite('DELETE', 'n2'), [403, 'node "n1" is not allowed to modify node "n2"']],
  ['a claim status update of capacity and conditions', () => sub('persistentvolumeclaims', 'status', 'UPDATE', 'data', pvc({ capacity: { storage: '2Gi' }, conditions: [{ type: 'Resizing' }] }), pvc({ capacity: { storage: '1Gi' } })), null],
  ['a claim status update changing labels', () => sub('persistentvolumeclaims', 'status', 'UPDATE', 'data', pvc({}, { x: 'y' }), pvc({})), [403, 'is not allowed to update fields other than status.capacity and status.conditions']],
  ['a claim update (not status)', () => sub('persistentvolumeclaims', '', 'UPDATE', 'data', pvc({}), pvc({})), [403, 'may only update PVC status']],
  ['a token bound to its own pod', () => tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'uid-mine' }), null],
  ['a token bound to nothing', () => tokenFor(undefined), [403, 'node requested token not bound to a pod']],
  ['a token bound to a pod without uid', () => tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'mine' }), [403, 'node requested token with a pod binding without a uid']],
  ['a token bound to a recreated pod', () => tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'old' }), [403, 'the UID in the bound object reference (old) does not match the UID in record']],
  ['a token bound to another node’s pod', () => tokenFor({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'uid-theirs' }), [403, 'node requested token bound to a pod scheduled on a different node']],
  ['creating its own lease', () => lease('CREATE', 'n1'), null],
  ['creating another node’s lease', () => lease('CREATE', 'n2'), [403, 'can only access node lease with the same name as the requesting node']],
  ['updating another node’s lease', () => lease('UPDATE', 'n2'), [403, 'can only access node lease with the same name as the requesting node']],
  ['a lease outside the node-lease namespace', () => lease('UPDATE', 'anything', 'default'), null],
  ['creating its own CSINode', () => csiNode('CREATE', 'n1'), null],
  ['deleting another node’s CSINode', () => csiNode('DELETE', 'n2'), [403, 'can only access CSINode with the same name as the requesting node']],
  ['a node user with no name', () => admissionRequest({ operation: 'CREATE', ...core('configmaps'), object: {}, user: { username: 'system:node:', groups: ['system:nodes'] } }), [403, 'could not determine node from user "system:node:"']],
  ['any write by a user that is not a node', () => admissionRequest({ operation: 'DELETE', ...core('nodes'), namespace: '', name: 'n2', user: { username: 'system:node:n1', groups: ['system:authenticated'] } }), null],
];

describe('NodeRestriction (reference behaviour)', () => {
  for (const [title, request, expected] of ROWS) {
    it(`reference behaviour: ${title} → ${expected ? expected[0] : 'admitted'}`, async () => {
      let error: unknown;
      try {
        await plugin().admit(request());
      } catch (e) {
        error = e;
      }
      if (!expected) return assert.equal(error, undefined);
      assert.ok(error instanceof StatusError, `expected a StatusError, got ${String(error)}`);
      assert.equal(error.code, expected[0]);
      assert.ok(error.message.includes(expected[1]), `message: ${error.message}`);
    });
  }

  it('reference behaviour: forbidden node labels are those under node-restriction and unknown maker domains, sorted', () => {
    const S = GROUP_SUFFIX;
    assert.deepEqual(
      forbiddenNodeLabels([`node-role.${S}/worker`, `${S}/hostname`, `kubelet.${S}/x`, `foo.node.${S}/y`, `a.node-restriction.${S}/z`, `${S}/custom`, 'plain', 'example.com/e']),
      [`a.node-restriction.${S}/z`, `node-role.${S}/worker`, `${S}/custom`],
    );
  });

  it('reference behaviour: the 403 names the resource and object as admission errors do', async () => {
    await assert.rejects(async () => plugin().admit(lease('CREATE', 'n2')), (e: StatusError) => e.message === `leases.${COORDINATION_GROUP} "n2" is forbidden: can only access node lease with the same name as the requesting node`);
  });
});

admissionPluginContract('NodeRestriction', {
  make: plugin,
  cases: ROWS.slice(0, 12).map(([title, request]) => ({ title, request })),
});
