import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startServer, type RunningServer } from '../src/index.js';
import { kubectl } from './helpers/kubectl.js';

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.25
    ports:
    - containerPort: 80
`;
const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`;

describe('real kubectl against the server (spec 4.1, 4.3, 4.9)', () => {
  let server: RunningServer;
  let dir: string;
  let k: ReturnType<typeof kubectl>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    k = kubectl(server.kubeconfigPath!);
    writeFileSync(join(dir, 'pod.yaml'), POD);
    writeFileSync(join(dir, 'cm.yaml'), CONFIGMAP);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the default namespaces (the reference\'s four) with the written admin.kubeconfig', async () => {
    const out = await k(['get', 'namespaces', '-o', 'name']);
    assert.deepEqual(out.trim().split('\n').sort(), ['namespace/default', 'namespace/orch-node-lease', 'namespace/orch-public', 'namespace/orch-system']);
  });

  it('creates a namespace, a Pod with create -f and a ConfigMap with a first apply -f', async () => {
    assert.match(await k(['create', 'namespace', 'demo']), /namespace\/demo created/);
    assert.match(await k(['create', '-n', 'demo', '-f', join(dir, 'pod.yaml')]), /pod\/web created/);
    assert.match(await k(['apply', '-n', 'demo', '-f', join(dir, 'cm.yaml')]), /configmap\/settings created/);
    const pod = parse(await k(['get', 'pod', 'web', '-n', 'demo', '-o', 'yaml']));
    assert.equal(pod.spec.containers[0].image, 'nginx:1.25');
    assert.equal(pod.spec.restartPolicy, 'Always', 'defaults applied');
    assert.equal(pod.status.phase, 'Pending');
    const table = await k(['get', 'pods', '-n', 'demo']);
    assert.match(table, /^NAME\b/);
    assert.match(table, /\bweb\b/);
  });

  it('labels, annotates and patches with --type=merge and --type=json', async () => {
    await k(['label', 'pod', 'web', '-n', 'demo', 'tier=frontend']);
    await k(['annotate', 'pod', 'web', '-n', 'demo', 'note=hello']);
    const labelled = JSON.parse(await k(['get', 'pod', 'web', '-n', 'demo', '-o', 'json']));
    assert.equal(labelled.metadata.labels.tier, 'frontend');
    assert.equal(labelled.metadata.annotations.note, 'hello');
    await k(['patch', 'configmap', 'settings', '-n', 'demo', '--type=merge', '-p', '{"data":{"mode":"slow"}}']);
    await k(['patch', 'configmap', 'settings', '-n', 'demo', '--type=json', '-p', '[{"op":"add","path":"/data/extra","value":"1"}]']);
    const cm = JSON.parse(await k(['get', 'configmap', 'settings', '-n', 'demo', '-o', 'json']));
    assert.deepEqual(cm.data, { mode: 'slow', extra: '1' });
    const selected = await k(['get', 'pods', '-n', 'demo', '-l', 'tier=frontend', '-o', 'name']);
    assert.equal(selected.trim(), 'pod/web');
  });

  it('api-resources, explain and raw readyz', async () => {
    const resources = await k(['api-resources']);
    assert.match(resources, /^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    assert.match(resources, /^roles\s+rbac\.authorization\.orch\.io\/v1\s+true\s+Role$/m);
    const explain = await k(['explain', 'pod.spec']);
    assert.match(explain, /containers/);
    const readyz = await k(['get', '--raw', '/readyz?verbose']);
    assert.match(readyz, /readyz check passed/);
  });

  it('deletes (kubectl waits for the deletion through a watch) and reports errors from the server', async () => {
    assert.match(await k(['delete', 'pod', 'web', '-n', 'demo']), /pod "web" deleted/);
    await assert.rejects(k(['get', 'pod', 'web', '-n', 'demo']), /NotFound|not found/);
    await assert.rejects(k(['create', 'configmap', 'Bad_Name', '-n', 'demo']), /Invalid|invalid/);
    assert.match(await k(['delete', 'namespace', 'demo']), /namespace "demo" deleted/);
    await assert.rejects(k(['get', 'namespace', 'demo']), /not found/);
  });
});

describe('kubectl get -w (spec 4.7)', () => {
  it('prints changes as they happen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-w-'));
    const server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    const { spawn } = await import('node:child_process');
    const child = spawn('kubectl', ['--kubeconfig', server.kubeconfigPath!, 'get', 'configmaps', '-w', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    try {
      const k = kubectl(server.kubeconfigPath!);
      const deadline = Date.now() + 15_000;
      await new Promise((r) => setTimeout(r, 1000));
      await k(['create', 'configmap', 'live-1']);
      await k(['create', 'configmap', 'live-2']);
      while (!(out.includes('configmap/live-1') && out.includes('configmap/live-2')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(out, /configmap\/live-1/);
      assert.match(out, /configmap\/live-2/);
    } finally {
      child.kill();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
