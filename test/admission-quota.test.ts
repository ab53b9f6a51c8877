import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name },
  spec: { hard, ...spec },
});
const pod = (name: string, resources: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox', resources }] },
});
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('ResourceQuota admission in a running server (spec 1.6)', () => {
  let server: RunningServer;
  let dir: string;
  let call: ReturnType<typeof client>;
  const ns = (name: string) => call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-quota-'));
    // No in-process controllers: the root CA ConfigMap they publish in each namespace would count against the quotas.
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true, controllers: [] });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour (ResourceQuota): 20 concurrent pod creates against a quota of 5 pods: exactly 5 succeed, the rest are 403', async () => {
    assert.equal((await ns('race')).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/race/resourcequotas', { body: quota('pods', { pods: '5' }) })).status, 201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/api/v1/namespaces/race/pods', { body: pod(`p${i}`) })));
    assert.equal(results.filter((r) => r.status === 201).length, 5);
    const refused = results.filter((r) => r.status !== 201);
    assert.equal(refused.length, 15);
    for (const r of refused) {
      assert.equal(r.status, 403, r.text);
      assert.match(r.json.message, /^pods "p\d+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=5, limited: pods=5$/);
    }
    const listed = await call('GET', '/api/v1/namespaces/race/pods');
    assert.equal(listed.json.items.length, 5);
    const q = await call('GET', '/api/v1/namespaces/race/resourcequotas/pods');
    assert.deepEqual(q.json.status, { hard: { pods: '5' }, used: { pods: '5' } });
  });

  it('reference behaviour (ResourceQuota): deleting a pod gives its unit back; the refused create then passes', async () => {
    const del = await call('DELETE', '/api/v1/namespaces/race/pods/' + (await call('GET', '/api/v1/namespaces/race/pods')).json.items[0].metadata.name);
    assert.equal(del.status, 200, del.text);
    // The watch cache shows the delete within moments; until then the unit still counts.
    let last = await call('POST', '/api/v1/namespaces/race/pods', { body: pod('after-delete') });
    for (let i = 0; i < 40 && last.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = await call('POST', '/api/v1/namespaces/race/pods', { body: pod('after-delete') });
    }
    assert.equal(last.status, 201, last.text);
    const again = await call('POST', '/api/v1/namespaces/race/pods', { body: pod('one-too-many') });
    assert.equal(again.status, 403, again.text);
  });

  it('reference behaviour (ResourceQuota): compute quotas need every container to state the amount, and count requests and limits', async () => {
    assert.equal((await ns('compute')).status, 201);
    const q = quota('compute', { 'limits.cpu': '1', 'requests.memory': '1Gi' });
    assert.equal((await call('POST', '/api/v1/namespaces/compute/resourcequotas', { body: q })).status, 201);
    const bare = await call('POST', '/api/v1/namespaces/compute/pods', { body: pod('bare') });
    assert.equal(bare.status, 403, bare.text);
    assert.equal(bare.json.message, 'pods "bare" is forbidden: failed quota: compute: must specify limits.cpu for: c; requests.memory for: c');
    // Limits alone default the requests (the pod then asks for what it limits).
    const ok = await call('POST', '/api/v1/namespaces/compute/pods', { body: pod('ok', { limits: { cpu: '600m', memory: '512Mi' } }) });
    assert.equal(ok.status, 201, ok.text);
    const big = await call('POST', '/api/v1/namespaces/compute/pods', { body: pod('big', { limits: { cpu: '500m' }, requests: { memory: '1Mi' } }) });
    assert.equal(big.status, 403, big.text);
    assert.equal(big.json.message, 'pods "big" is forbidden: exceeded quota: compute, requested: limits.cpu=500m, used: limits.cpu=600m, limited: limits.cpu=1');
    assert.equal((await call('GET', '/api/v1/namespaces/compute/pods/big')).status, 404);
    const status = (await call('GET', '/api/v1/namespaces/compute/resourcequotas/compute')).json.status;
    assert.deepEqual(status, { hard: { 'limits.cpu': '1', 'requests.memory': '1Gi' }, used: { 'limits.cpu': '600m', 'requests.memory': '512Mi' } });
  });

  it('reference behaviour (ResourceQuota): a dry run is checked but charges nothing; object counts name the resource', async () => {
    assert.equal((await ns('counts')).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/counts/resourcequotas', { body: quota('cm', { 'count/configmaps': '1', configmaps: '1' }) })).status, 201);
    const dry = await call('POST', '/api/v1/namespaces/counts/configmaps?dryRun=All', { body: configMap('dry') });
    assert.equal(dry.status, 201, dry.text);
    assert.equal((await call('GET', '/api/v1/namespaces/counts/resourcequotas/cm')).json.status, undefined);
    assert.equal((await call('POST', '/api/v1/namespaces/counts/configmaps', { body: configMap('one') })).status, 201);
    const dryOver = await call('POST', '/api/v1/namespaces/counts/configmaps?dryRun=All', { body: configMap('two') });
    assert.equal(dryOver.status, 403, dryOver.text);
    const two = await call('POST', '/api/v1/namespaces/counts/configmaps', { body: configMap('two') });
    assert.equal(two.status, 403, two.text);
    assert.equal(two.json.message, 'configmaps "two" is forbidden: exceeded quota: cm, requested: configmaps=1,count/configmaps=1, used: configmaps=1,count/configmaps=1, limited: configmaps=1,count/configmaps=1');
    // Other namespaces are not limited by it.
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('elsewhere') })).status, 201);
  });

  it('reference behaviour (ResourceQuota): a service update that adds node ports is charged for them', async () => {
    assert.equal((await ns('svc')).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/svc/resourcequotas', { body: quota('ports', { 'services.nodeports': '1' }) })).status, 201);
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] } };
    assert.equal((await call('POST', '/api/v1/namespaces/svc/services', { body: svc })).status, 201);
    const patched = await call('PATCH', '/api/v1/namespaces/svc/services/s', {
      raw: JSON.stringify({ spec: { type: 'NodePort' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 403, patched.text);
    assert.equal(patched.json.message, 'services "s" is forbidden: exceeded quota: ports, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    assert.equal((await call('GET', '/api/v1/namespaces/svc/services/s')).json.spec.type, 'ClusterIP');
  });

  it('reference behaviour (ResourceQuota): real kubectl shows the denial and the recorded usage', async () => {
    const k = kubectl(server.kubeconfigPath!);
    await k(['create', 'namespace', 'kq']);
    await k(['create', 'quota', 'small', '--hard=count/secrets=1', '-n', 'kq']);
    await k(['create', 'secret', 'generic', 's1', '--from-literal=a=b', '-n', 'kq']);
    await assert.rejects(k(['create', 'secret', 'generic', 's2', '--from-literal=a=b', '-n', 'kq']),
      /secrets "s2" is forbidden: exceeded quota: small, requested: count\/secrets=1, used: count\/secrets=1, limited: count\/secrets=1/);
    const described = await k(['describe', 'quota', 'small', '-n', 'kq']);
    assert.match(described, /count\/secrets\s+1\s+1/);
  });
});
