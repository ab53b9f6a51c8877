import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { crdBody, waitFor } from './helpers/crd.js';
import { kubectl } from './helpers/kubectl.js';

const G = 'kube.example.com';

describe('custom resources with the real kubectl (issue 18)', () => {
  let dir: string;
  let server: RunningServer;
  let k: ReturnType<typeof kubectl>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-kubectl-'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    k = kubectl(server.kubeconfigPath as string);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: apply -f a CRD, apply a resource, get with printer columns, apply --server-side, explain, scale, delete crd', async () => {
    const crdFile = join(dir, 'crd.yaml');
    const crd = crdBody(G) as ReturnType<typeof crdBody> & { metadata: { annotations?: Record<string, string> } };
    crd.metadata.annotations = { 'controller-gen.kubebuilder.io/version': 'v0.16.1' };
    writeFileSync(crdFile, stringify(crd));
    assert.match(await k(['apply', '-f', crdFile]), /created/);
    const call = client(server);
    await waitFor('served', async () => (await call('GET', `/apis/${G}/v1/namespaces/default/crontabs`)).status === 200);
    const cr = { apiVersion: `${G}/v1`, kind: 'CronTab', metadata: { name: 'nightly', namespace: 'default' }, spec: { cronSpec: '0 3 * * *', image: 'backup', replicas: 2 } };
    const crFile = join(dir, 'cr.yaml');
    writeFileSync(crFile, stringify(cr));
    // kubectl learns the new type through discovery; its cache may need a refresh on the first try.
    await waitFor('kubectl apply', async () => (await k(['apply', '-f', crFile]).then((o) => /created|configured/.test(o), () => false)), 10_000);
    const table = await k(['get', 'crontabs', '-n', 'default']);
    assert.match(table, /^NAME\s+SPEC\s+REPLICAS\s+AGE/m);
    assert.match(table, /^nightly\s+0 3 \* \* \*\s+2\s+\d+s/m);
    const wide = await k(['get', 'ct', '-n', 'default', '-o', 'wide']);
    assert.match(wide, /IMAGE/);
    cr.spec.image = 'backup2';
    writeFileSync(crFile, stringify(cr));
    assert.match(await k(['apply', '--server-side', '--force-conflicts', '-f', crFile]), /serverside-applied/);
    assert.match(await k(['explain', 'crontabs.spec']), /cronSpec/);
    assert.match(await k(['scale', 'crontab/nightly', '-n', 'default', '--replicas=4']), /scaled/);
    assert.equal((await call('GET', `/apis/${G}/v1/namespaces/default/crontabs/nightly`)).json.spec.replicas, 4);
    assert.match(await k(['delete', 'crd', `crontabs.${G}`]), /deleted/);
    assert.equal((await call('GET', `/apis/${G}/v1/namespaces/default/crontabs`)).status, 404);
  });
});
