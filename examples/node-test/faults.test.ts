// Testing retry logic with injected faults, and asserting on the requests a client made.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from 'orch';

/** The code under test: creates a config map, retrying while the server says 429 or 500. */
async function createWithRetry(api: k8s.CoreV1Api, name: string, attempts = 5): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { a: '1' } } });
      return;
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (i >= attempts || (code !== 429 && code !== 500)) throw e;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

let server: TestServer;
before(async () => {
  // No in-process controllers: their own writes (a root CA ConfigMap per namespace) would meet the
  // injected faults too, and the recorded requests would be more than the code under test made.
  server = await startServer({ controllers: [] });
});
after(() => server.close());

it('retries through two failures', async () => {
  const api = (await server.kubeConfig()).makeApiClient(k8s.CoreV1Api);
  const fault = server.inject({ verb: 'create', resource: 'configmaps', status: 429, retryAfterSeconds: 1, times: 2 });
  server.clearRequests();
  await createWithRetry(api, 'settings');
  assert.equal(fault.hits, 2);
  const creates = server.requests().filter((r) => r.verb === 'create' && r.resource === 'configmaps');
  assert.deepEqual(creates.map((r) => r.status), [429, 429, 201]);
});

it('gives up on a conflict', async () => {
  const api = (await server.kubeConfig()).makeApiClient(k8s.CoreV1Api);
  server.inject({ verb: 'create', resource: 'configmaps', status: 409, times: 1 });
  await assert.rejects(createWithRetry(api, 'other'), (e: { code?: number }) => e.code === 409);
});
