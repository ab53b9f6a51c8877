import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { crdBody, waitFor } from './helpers/crd.js';

const G = 'node.example.com';

describe('custom resources through @kubernetes/client-node (issue 18)', () => {
  let dir: string;
  let server: RunningServer;
  let kc: k8s.KubeConfig;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-client-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, writeKubeconfig: true });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath as string);
    const call = client(server);
    assert.equal((await call('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', { body: crdBody(G) })).status, 201);
    await waitFor('served', async () => (await call('GET', `/apis/${G}/v1/namespaces/default/crontabs`)).status === 200);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: KubernetesObjectApi creates and lists custom resources, and a Watch sees them', async () => {
    const seen: string[] = [];
    const watching = await new k8s.Watch(kc).watch(`/apis/${G}/v1/namespaces/default/crontabs`, {}, (type, obj: { metadata?: { name?: string } }) => seen.push(`${type} ${obj.metadata?.name}`), () => undefined);
    const api = k8s.KubernetesObjectApi.makeApiClient(kc);
    const created = await api.create({ apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'from-node', namespace: 'default' }, spec: { cronSpec: '* * * * *' } } as k8s.KubernetesObject);
    assert.equal(created.metadata?.name, 'from-node');
    assert.equal((created as { spec?: { replicas?: number } }).spec?.replicas, 1);
    const list = await api.list(`${G}/v1`, 'CronTab', 'default');
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['from-node']);
    await waitFor('watch event', async () => seen.includes('ADDED from-node'));
    watching.abort();
  });
});
