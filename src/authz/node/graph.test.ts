import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { NodeGraph, type NodeGraphKind } from './graph.js';

const pod = (spec: Record<string, unknown>, extra: Partial<ApiObject> = {}): ApiObject => ({
  metadata: { namespace: 'ns', name: 'web' },
  ...extra,
  spec: { nodeName: 'n1', containers: [{ name: 'c' }], ...spec },
});
const container = (c: Record<string, unknown>) => ({ containers: [{ name: 'c', ...c }] });

/** Each path of the reference's graph from a pod to an object: [title, pod spec, kind, namespace, name]. */
const PATHS: [string, Record<string, unknown>, NodeGraphKind, string, string][] = [
  ['secret volume', { volumes: [{ name: 'v', secret: { secretName: 's1' } }] }, 'secret', 'ns', 's1'],
  ['image pull secret', { imagePullSecrets: [{ name: 'pull' }] }, 'secret', 'ns', 'pull'],
  ['env secretKeyRef', container({ env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'env-s', key: 'k' } } }] }), 'secret', 'ns', 'env-s'],
  ['envFrom secretRef', container({ envFrom: [{ secretRef: { name: 'from-s' } }] }), 'secret', 'ns', 'from-s'],
  ['projected secret', { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 'proj-s' } }] } }] }, 'secret', 'ns', 'proj-s'],
  ['csi nodePublishSecretRef of an inline volume', { volumes: [{ name: 'v', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-s' } } }] }, 'secret', 'ns', 'csi-s'],
  ['rbd secretRef', { volumes: [{ name: 'v', rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd-s' } } }] }, 'secret', 'ns', 'rbd-s'],
  ['init container env secret', { initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'init-s' } } }] }] }, 'secret', 'ns', 'init-s'],
  ['ephemeral container envFrom secret', { ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'eph-s' } }] }] }, 'secret', 'ns', 'eph-s'],
  ['configMap volume', { volumes: [{ name: 'v', configMap: { name: 'cm1' } }] }, 'configmap', 'ns', 'cm1'],
  ['projected configMap', { volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'proj-cm' } }] } }] }, 'configmap', 'ns', 'proj-cm'],
  ['env configMapKeyRef', container({ env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }] }), 'configmap', 'ns', 'env-cm'],
  ['envFrom configMapRef', container({ envFrom: [{ configMapRef: { name: 'from-cm' } }] }), 'configmap', 'ns', 'from-cm'],
  ['service account', { serviceAccountName: 'robot' }, 'serviceaccount', 'ns', 'robot'],
  ['persistentVolumeClaim volume', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] }, 'persistentvolumeclaim', 'ns', 'data'],
  ['generic ephemeral volume (claim <pod>-<volume>)', { volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }] }, 'persistentvolumeclaim', 'ns', 'web-scratch'],
  ['resource claim by name', { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] }, 'resourceclaim', 'ns', 'gpu-claim'],
];

describe('NodeGraph: the reference paths from a bound pod to what its node may read (reference behaviour)', () => {
  for (const [title, spec, kind, ns, name] of PATHS) {
    it(`reference behaviour: ${title} makes ${kind} ${ns}/${name} readable by the pod's node only`, () => {
      const g = new NodeGraph();
      g.upsertPod(pod(spec));
      assert.equal(g.hasPath('n1', kind, ns, name), true);
      assert.equal(g.hasPath('n2', kind, ns, name), false, 'another node');
      assert.equal(g.hasPath('n1', kind, 'other', name), false, 'same name in another namespace');
    });
  }

  it('reference behaviour: a resource claim made from a template is reachable under the name the pod status records', () => {
    const g = new NodeGraph();
    g.upsertPod(pod({ resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'tpl' }] }, { status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'web-gpu-x1' }] } }));
    assert.equal(g.hasPath('n1', 'resourceclaim', 'ns', 'web-gpu-x1'), true);
    assert.equal(g.hasPath('n1', 'resourceclaim', 'ns', 'tpl'), false);
  });

  it('reference behaviour: an unscheduled pod gives no node anything', () => {
    const g = new NodeGraph();
    g.upsertPod(pod({ nodeName: undefined, volumes: [{ name: 'v', secret: { secretName: 's1' } }] }));
    assert.equal(g.hasPath('n1', 'secret', 'ns', 's1'), false);
    assert.equal(g.hasPath('', 'secret', 'ns', 's1'), false);
  });

  it('reference behaviour: a PV bound (claimRef) to a claim used on the node, and the PV’s node-side secrets, are readable; controller-only CSI secrets are not', () => {
    const g = new NodeGraph();
    g.upsertPod(pod({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] }));
    g.upsertPersistentVolume({
      metadata: { name: 'pv1' },
      spec: {
        claimRef: { namespace: 'ns', name: 'data' },
        csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { namespace: 'storage', name: 'stage' }, controllerPublishSecretRef: { namespace: 'storage', name: 'ctrl' } },
      },
    });
    g.upsertPersistentVolume({ metadata: { name: 'pv2' }, spec: { claimRef: { namespace: 'ns', name: 'other' }, rbd: { secretRef: { name: 'rbd' } } } });
    assert.equal(g.hasPath('n1', 'persistentvolume', '', 'pv1'), true);
    assert.equal(g.hasPath('n2', 'persistentvolume', '', 'pv1'), false);
    assert.equal(g.hasPath('n1', 'secret', 'storage', 'stage'), true);
    assert.equal(g.hasPath('n1', 'secret', 'storage', 'ctrl'), false);
    assert.equal(g.hasPath('n1', 'persistentvolume', '', 'pv2'), false, 'bound to a claim no pod on the node uses');
    assert.equal(g.hasPath('n1', 'secret', 'ns', 'rbd'), false);
    g.upsertPod(pod({ volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'other' } }] }, { metadata: { namespace: 'ns', name: 'web2' } }));
    assert.equal(g.hasPath('n1', 'secret', 'ns', 'rbd'), true, 'a legacy source secret defaults to the claim namespace');
    g.removePersistentVolume('pv1');
    assert.equal(g.hasPath('n1', 'persistentvolume', '', 'pv1'), false);
    assert.equal(g.hasPath('n1', 'secret', 'storage', 'stage'), false);
  });

  it('reference behaviour: a VolumeAttachment is readable by the node it names', () => {
    const g = new NodeGraph();
    g.upsertVolumeAttachment({ metadata: { name: 'va1' }, spec: { nodeName: 'n1', attacher: 'a', source: {} } });
    assert.equal(g.hasPath('n1', 'volumeattachment', '', 'va1'), true);
    assert.equal(g.hasPath('n2', 'volumeattachment', '', 'va1'), false);
    g.upsertVolumeAttachment({ metadata: { name: 'va1' }, spec: { nodeName: 'n2', attacher: 'a', source: {} } });
    assert.equal(g.hasPath('n1', 'volumeattachment', '', 'va1'), false);
    g.removeVolumeAttachment('va1');
    assert.equal(g.hasPath('n2', 'volumeattachment', '', 'va1'), false);
  });

  it('reference behaviour: moving a pod to another node, changing its references or deleting it takes the access away', () => {
    const g = new NodeGraph();
    const spec = { volumes: [{ name: 'v', secret: { secretName: 's1' } }], serviceAccountName: 'robot' };
    g.upsertPod(pod(spec));
    g.upsertPod(pod({ nodeName: 'n2', ...spec }));
    assert.equal(g.hasPath('n1', 'secret', 'ns', 's1'), false, 'moved away');
    assert.equal(g.hasPath('n2', 'secret', 'ns', 's1'), true);
    g.upsertPod(pod({ nodeName: 'n2', serviceAccountName: 'robot' }));
    assert.equal(g.hasPath('n2', 'secret', 'ns', 's1'), false, 'reference dropped');
    assert.equal(g.hasPath('n2', 'serviceaccount', 'ns', 'robot'), true);
    g.removePod('ns', 'web');
    assert.equal(g.hasPath('n2', 'serviceaccount', 'ns', 'robot'), false, 'deleted');
  });

  it('reference behaviour: two pods on one node sharing a secret keep it readable until both are gone', () => {
    const g = new NodeGraph();
    const spec = { volumes: [{ name: 'v', secret: { secretName: 'shared' } }] };
    g.upsertPod(pod(spec, { metadata: { namespace: 'ns', name: 'a' } }));
    g.upsertPod(pod(spec, { metadata: { namespace: 'ns', name: 'b' } }));
    g.removePod('ns', 'a');
    assert.equal(g.hasPath('n1', 'secret', 'ns', 'shared'), true);
    g.removePod('ns', 'b');
    assert.equal(g.hasPath('n1', 'secret', 'ns', 'shared'), false);
  });

  it('reference behaviour: replacing the pod set after a relist drops pods that are gone', () => {
    const g = new NodeGraph();
    g.upsertPod(pod({ serviceAccountName: 'gone' }, { metadata: { namespace: 'ns', name: 'old' } }));
    g.replacePods([pod({ serviceAccountName: 'kept' })]);
    assert.equal(g.hasPath('n1', 'serviceaccount', 'ns', 'gone'), false);
    assert.equal(g.hasPath('n1', 'serviceaccount', 'ns', 'kept'), true);
  });
});
