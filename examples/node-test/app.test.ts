// Testing code that talks to the API with node:test. Each test file runs in its own worker process
// (node --test runs files in parallel) and starts its own server on a free port, so files never share state.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from 'orch';

/** The code under test: counts the config maps of a namespace that carry a label. */
async function countLabelled(api: k8s.CoreV1Api, namespace: string, label: string): Promise<number> {
  const list = await api.listNamespacedConfigMap({ namespace, labelSelector: label });
  return list.items.length;
}

describe('countLabelled', () => {
  let server: TestServer;
  let api: k8s.CoreV1Api;

  before(async () => {
    server = await startServer();
    // Fixtures shared by every test: applied once, then kept by the snapshot.
    await server.apply(`
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: base, namespace: shop, labels: {app: shop}}
`);
    await server.snapshot();
    api = (await server.kubeConfig()).makeApiClient(k8s.CoreV1Api);
  });
  after(() => server.close());
  // Every test starts from the snapshot, whatever the previous one wrote.
  beforeEach(() => server.reset());

  it('counts the fixture', async () => {
    assert.equal(await countLabelled(api, 'shop', 'app=shop'), 1);
  });

  it('sees what the test adds', async () => {
    await server.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', namespace: 'shop', labels: { app: 'shop' } } });
    assert.equal(await countLabelled(api, 'shop', 'app=shop'), 2);
  });

  it('does not see what the previous test added', async () => {
    assert.equal(await countLabelled(api, 'shop', 'app=shop'), 1);
  });
});
