import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COORDINATION_GROUP, EVENTS_GROUP, NODE_LEASE_NAMESPACE, STORAGE_GROUP } from '../../api/naming.js';
import type { Attributes } from '../index.js';
import { NodeAuthorizer, NodeGraph } from './index.js';

const node1 = { username: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };

function attrs(over: Partial<Attributes>): Attributes {
  return { user: node1, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', resource: '', subresource: '', namespace: '', name: '', ...over };
}

function authorizer(): NodeAuthorizer {
  const g = new NodeGraph();
  g.upsertPod({
    metadata: { namespace: 'ns', name: 'web' },
    spec: {
      nodeName: 'n1',
      serviceAccountName: 'robot',
      containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cm' } }] }],
      volumes: [
        { name: 's', secret: { secretName: 'sec' } },
        { name: 'd', persistentVolumeClaim: { claimName: 'data' } },
      ],
    },
  });
  g.upsertPersistentVolume({ metadata: { name: 'pv1' }, spec: { claimRef: { namespace: 'ns', name: 'data' } } });
  g.upsertVolumeAttachment({ metadata: { name: 'va1' }, spec: { nodeName: 'n1' } });
  return new NodeAuthorizer(g);
}

type Row = [title: string, over: Partial<Attributes>, expected: 'allow' | 'noOpinion'];

const ROWS: Row[] = [
  ['get a secret its pod mounts', { resource: 'secrets', namespace: 'ns', name: 'sec' }, 'allow'],
  ['watch a secret its pod mounts (by name)', { verb: 'watch', resource: 'secrets', namespace: 'ns', name: 'sec' }, 'allow'],
  ['list secrets (no name)', { verb: 'list', resource: 'secrets', namespace: 'ns' }, 'noOpinion'],
  ['get a secret no pod of it uses', { resource: 'secrets', namespace: 'ns', name: 'other' }, 'noOpinion'],
  ['update a secret its pod mounts', { verb: 'update', resource: 'secrets', namespace: 'ns', name: 'sec' }, 'noOpinion'],
  ['get a configmap its pod uses', { resource: 'configmaps', namespace: 'ns', name: 'cm' }, 'allow'],
  ['get its pod’s claim', { resource: 'persistentvolumeclaims', namespace: 'ns', name: 'data' }, 'allow'],
  ['list claims', { verb: 'list', resource: 'persistentvolumeclaims', namespace: 'ns' }, 'noOpinion'],
  ['update the status of its pod’s claim', { verb: 'update', resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'ns', name: 'data' }, 'allow'],
  ['get the PV bound to its pod’s claim', { resource: 'persistentvolumes', name: 'pv1' }, 'allow'],
  ['get its VolumeAttachment', { apiGroup: STORAGE_GROUP, resource: 'volumeattachments', name: 'va1' }, 'allow'],
  ['create a token for its pod’s service account', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'robot' }, 'allow'],
  ['create a token for another service account', { verb: 'create', resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'default' }, 'noOpinion'],
  ['get a service account', { resource: 'serviceaccounts', namespace: 'ns', name: 'robot' }, 'noOpinion'],
  ['update its own lease', { verb: 'update', apiGroup: COORDINATION_GROUP, resource: 'leases', namespace: NODE_LEASE_NAMESPACE, name: 'n1' }, 'allow'],
  ['create a lease (name checked by NodeRestriction)', { verb: 'create', apiGroup: COORDINATION_GROUP, resource: 'leases', namespace: NODE_LEASE_NAMESPACE }, 'allow'],
  ['update another node’s lease', { verb: 'update', apiGroup: COORDINATION_GROUP, resource: 'leases', namespace: NODE_LEASE_NAMESPACE, name: 'n2' }, 'noOpinion'],
  ['get a lease in another namespace', { apiGroup: COORDINATION_GROUP, resource: 'leases', namespace: 'default', name: 'n1' }, 'noOpinion'],
  ['list leases', { verb: 'list', apiGroup: COORDINATION_GROUP, resource: 'leases', namespace: NODE_LEASE_NAMESPACE }, 'noOpinion'],
  ['update its own CSINode', { verb: 'update', apiGroup: STORAGE_GROUP, resource: 'csinodes', name: 'n1' }, 'allow'],
  ['delete another node’s CSINode', { verb: 'delete', apiGroup: STORAGE_GROUP, resource: 'csinodes', name: 'n2' }, 'noOpinion'],
  ['static rule: list services', { verb: 'list', resource: 'services' }, 'allow'],
  ['static rule: get endpoints', { resource: 'endpoints', namespace: 'ns', name: 'e' }, 'allow'],
  ['static rule: watch nodes', { verb: 'watch', resource: 'nodes' }, 'allow'],
  ['static rule: patch node status', { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }, 'allow'],
  ['static rule: list pods', { verb: 'list', resource: 'pods' }, 'allow'],
  ['static rule: update pod status', { verb: 'update', resource: 'pods', subresource: 'status', namespace: 'ns', name: 'web' }, 'allow'],
  ['static rule: create events.v1 events', { verb: 'create', apiGroup: EVENTS_GROUP, resource: 'events', namespace: 'ns' }, 'allow'],
  ['static rule: delete events is not granted', { verb: 'delete', resource: 'events', namespace: 'ns', name: 'e' }, 'noOpinion'],
  ['not in the rules: update a pod', { verb: 'update', resource: 'pods', namespace: 'ns', name: 'web' }, 'noOpinion'],
  ['not in the rules: create a namespace', { verb: 'create', resource: 'namespaces' }, 'noOpinion'],
  ['non-resource path', { isResourceRequest: false, verb: 'get', path: '/metrics' }, 'noOpinion'],
];

describe('NodeAuthorizer (reference behaviour)', () => {
  for (const [title, over, expected] of ROWS) {
    it(`reference behaviour: node n1: ${title} → ${expected}`, async () => {
      assert.equal((await authorizer().authorize(attrs(over))).decision, expected);
    });
  }

  it('reference behaviour: the same request from another node is no opinion, with the reason naming that node', async () => {
    const d = await authorizer().authorize(attrs({ user: { username: 'system:node:n2', groups: ['system:nodes'] }, resource: 'secrets', namespace: 'ns', name: 'sec' }));
    assert.deepEqual(d, { decision: 'noOpinion', reason: "no relationship found between node 'n2' and this object" });
  });

  it('reference behaviour: users that are not node identities get no opinion, even for static node rules', async () => {
    const z = authorizer();
    for (const user of [
      { username: 'alice', groups: ['system:nodes'] },
      { username: 'system:node:n1', groups: ['system:authenticated'] },
    ]) {
      assert.deepEqual(await z.authorize(attrs({ user, verb: 'list', resource: 'services' })), { decision: 'noOpinion' });
      assert.deepEqual(await z.authorize(attrs({ user, resource: 'secrets', namespace: 'ns', name: 'sec' })), { decision: 'noOpinion' });
    }
  });

  it('reference behaviour: a node user with an empty node name is no opinion with a reason', async () => {
    const d = await authorizer().authorize(attrs({ user: { username: 'system:node:', groups: ['system:nodes'] }, verb: 'list', resource: 'services' }));
    assert.equal(d.decision, 'noOpinion');
    assert.match(d.reason ?? '', /unknown node/);
  });
});
