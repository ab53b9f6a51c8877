// One server per test file, fixtures applied once, reset() before each test.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { startServer, type TestServer } from 'orch';

/** The code under test: counts the config maps of a namespace that carry a label. */
async function countLabelled(api: k8s.CoreV1Api, namespace: string, label: string): Promise<number> {
  const list = await api.listNamespacedConfigMap({ namespace, labelSelector: label });
  return list.items.length;
}

let server: TestServer;
let api: k8s.CoreV1Api;

beforeAll(async () => {
  server = await startServer();
  await server.apply(process.env.ORCH_FIXTURES!);
  await server.snapshot();
  api = (await server.kubeConfig()).makeApiClient(k8s.CoreV1Api);
});
afterAll(() => server.close());
// Every test starts from the snapshot, whatever the previous one wrote.
beforeEach(() => server.reset());

it('counts the fixture', async () => {
  expect(await countLabelled(api, 'shop', 'app=shop')).toBe(1);
});

it('sees what the test adds', async () => {
  await server.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'extra', namespace: 'shop', labels: { app: 'shop' } } });
  expect(await countLabelled(api, 'shop', 'app=shop')).toBe(2);
});

it('does not see what the previous test added', async () => {
  expect(await countLabelled(api, 'shop', 'app=shop')).toBe(1);
});
