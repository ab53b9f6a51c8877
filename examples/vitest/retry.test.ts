// Retry logic against injected faults. This file runs in another worker than shop.test.ts, at the same time,
// against its own server: the recorded requests are exactly the ones this file's client made.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer, type TestServer } from 'orch';

/** The code under test: creates a config map, retrying while the server answers 429 or 500. */
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
let api: k8s.CoreV1Api;

beforeAll(async () => {
  // No in-process controllers: their own writes would meet the injected faults and be recorded too.
  server = await startServer({ controllers: [] });
  api = (await server.kubeConfig()).makeApiClient(k8s.CoreV1Api);
});
afterAll(() => server.close());
beforeEach(async () => {
  await server.reset();
  server.clearRequests();
});

it('retries through two 429 answers', async () => {
  const fault = server.inject({ verb: 'create', resource: 'configmaps', status: 429, retryAfterSeconds: 1, times: 2 });
  await createWithRetry(api, 'settings');
  expect(fault.hits).toBe(2);
  const creates = server.requests().filter((r) => r.verb === 'create' && r.resource === 'configmaps');
  expect(creates.map((r) => r.status)).toEqual([429, 429, 201]);
});

it('gives up on a conflict, and reset() removed the previous test\'s config map', async () => {
  server.inject({ verb: 'create', resource: 'configmaps', status: 409, times: 1 });
  await expect(createWithRetry(api, 'settings')).rejects.toMatchObject({ code: 409 });
  const list = await api.listNamespacedConfigMap({ namespace: 'default' });
  expect(list.items.map((c) => c.metadata?.name)).not.toContain('settings');
});
