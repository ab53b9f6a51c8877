import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STORAGE_GROUP } from '../api/naming.js';
import { NodeAuthorizer, NodeGraph } from '../authz/node/index.js';
import type { Attributes } from '../authz/index.js';
import { Registry } from '../registry/index.js';
import { builtinTypes } from '../registry/resources/index.js';
import { MemoryBackend } from '../storage/index.js';
import { feedNodeGraph } from './node-graph-setup.js';

const node = (name: string) => ({ username: `system:node:${name}`, groups: ['system:nodes'] });
const get = (who: string, resource: string, namespace: string, name: string, apiGroup = ''): Attributes => ({
  user: node(who), verb: 'get', isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource: '', namespace, name,
});

async function eventually(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('feedNodeGraph: the Node authorizer follows the watch caches (reference behaviour)', () => {
  let backend: MemoryBackend;
  let registry: Registry;
  let feed: { stop(): void };
  const graph = new NodeGraph();
  const z = new NodeAuthorizer(graph);
  const allowed = async (a: Attributes) => (await z.authorize(a)).decision === 'allow';
  const pods = () => registry.store('', 'v1', 'pods')!;

  before(async () => {
    backend = new MemoryBackend({ compactIntervalMs: 0 });
    registry = new Registry(backend, builtinTypes());
    await registry.namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    // Written before the feed starts: picked up by its initial load.
    await pods().create('ns', { metadata: { name: 'early' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', configMap: { name: 'early-cm' } }] } });
    await registry.startCaches();
    feed = await feedNodeGraph(registry, graph);
  });
  after(async () => {
    feed.stop();
    registry.stopCaches();
    await backend.close();
  });

  it('reference behaviour: pods present at start-up are in the graph', async () => {
    assert.equal(await allowed(get('n1', 'configmaps', 'ns', 'early-cm')), true);
    assert.equal(await allowed(get('n2', 'configmaps', 'ns', 'early-cm')), false);
  });

  it('reference behaviour: a pod created, moved and deleted grants and then withdraws its secret', async () => {
    const spec = { containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'db' } }] };
    await pods().create('ns', { metadata: { name: 'web' }, spec: { ...spec, nodeName: 'n1' } });
    await eventually('n1 may read the secret', () => allowed(get('n1', 'secrets', 'ns', 'db')));
    await pods().delete('ns', 'web');
    await eventually('n1 no longer may read the secret', async () => !(await allowed(get('n1', 'secrets', 'ns', 'db'))));
    await pods().create('ns', { metadata: { name: 'web' }, spec: { ...spec, nodeName: 'n2' } });
    await eventually('n2 may read the secret', () => allowed(get('n2', 'secrets', 'ns', 'db')));
    assert.equal(await allowed(get('n1', 'secrets', 'ns', 'db')), false);
  });

  it('reference behaviour: a PV bound to a claim of a pod on the node, and the node’s VolumeAttachment, become readable', async () => {
    await pods().create('ns', { metadata: { name: 'db' }, spec: { nodeName: 'n3', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } });
    await registry.store('', 'v1', 'persistentvolumes')!.create(undefined, {
      metadata: { name: 'pv-data' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' }, claimRef: { namespace: 'ns', name: 'data' } },
    });
    await registry.store(STORAGE_GROUP, 'v1', 'volumeattachments')!.create(undefined, {
      metadata: { name: 'va-1' },
      spec: { attacher: 'csi.example.com', nodeName: 'n3', source: { persistentVolumeName: 'pv-data' } },
    });
    await eventually('n3 may read the PV', () => allowed(get('n3', 'persistentvolumes', '', 'pv-data')));
    await eventually('n3 may read its attachment', () => allowed(get('n3', 'volumeattachments', '', 'va-1', STORAGE_GROUP)));
    assert.equal(await allowed(get('n1', 'persistentvolumes', '', 'pv-data')), false);
    assert.equal(await allowed(get('n1', 'volumeattachments', '', 'va-1', STORAGE_GROUP)), false);
  });
});
