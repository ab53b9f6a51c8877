// Issue 21: the reference's client libraries, unmodified, against a server started with `naming: 'k8s'`:
// @kubernetes/client-node's typed APIs and an informer, and python's client when it is installed.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type RunningServer } from '../src/index.js';

/** A python interpreter that has the `kubernetes` client (the Debian package installs it for /usr/bin/python3). */
function pythonWithClient(): string | undefined {
  for (const exe of ['python3', '/usr/bin/python3']) {
    if (spawnSync(exe, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0) return exe;
  }
  return undefined;
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const PYTHON_SCRIPT = `
import json, sys
from kubernetes import client, config
config.load_kube_config(config_file=sys.argv[1])
core, apps, rbac = client.CoreV1Api(), client.AppsV1Api(), client.RbacAuthorizationV1Api()
rbac.create_namespaced_role('default', client.V1Role(metadata=client.V1ObjectMeta(name='py-reader'),
    rules=[client.V1PolicyRule(api_groups=[''], resources=['pods'], verbs=['get'])]))
apps.create_namespaced_deployment('default', client.V1Deployment(metadata=client.V1ObjectMeta(name='py-web'),
    spec=client.V1DeploymentSpec(selector=client.V1LabelSelector(match_labels={'app': 'py-web'}),
        template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={'app': 'py-web'}),
            spec=client.V1PodSpec(containers=[client.V1Container(name='c', image='nginx')])))))
print(json.dumps({
  'namespaces': sorted(n.metadata.name for n in core.list_namespace().items),
  'roles': [r.metadata.name for r in rbac.list_namespaced_role('default').items],
  'deployment': apps.read_namespaced_deployment('py-web', 'default').spec.revision_history_limit,
}))
`;

describe('reference clients against a k8s-named server (issue 21)', () => {
  let server: RunningServer;
  let dir: string;
  let kc: k8s.KubeConfig;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-naming-clients-'));
    server = await startServer({ naming: 'k8s', port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath!);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: client-node CoreV1Api lists the kube-* namespaces', async () => {
    const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    assert.deepEqual(list.items.map((n) => n.metadata?.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  it('reference behaviour: client-node AppsV1Api creates and reads a Deployment (defaults applied)', async () => {
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    const d = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    assert.equal(d.spec?.progressDeadlineSeconds, 600);
  });

  it('reference behaviour: client-node RbacAuthorizationV1Api creates a Role and lists the bootstrap ClusterRoles', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const role = await rbac.createNamespacedRole({ namespace: 'default', body: { metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } });
    assert.equal(role.apiVersion, 'rbac.authorization.k8s.io/v1');
    const roles = await rbac.listClusterRole();
    const admin = roles.items.find((r) => r.metadata?.name === 'cluster-admin');
    assert.equal(admin?.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.equal(admin?.metadata?.annotations?.['rbac.authorization.kubernetes.io/autoupdate'], 'true');
  });

  it('reference behaviour: client-node BatchV1Api creates a Job', async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    await batch.createNamespacedJob({ namespace: 'default', body: { metadata: { name: 'once' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } });
    const job = await batch.readNamespacedJob({ name: 'once', namespace: 'default' });
    assert.equal(job.spec?.backoffLimit, 6);
    assert.ok(job.spec?.template.metadata?.labels?.['batch.kubernetes.io/job-name'] === 'once', JSON.stringify(job.spec?.template.metadata));
  });

  it('reference behaviour: a client-node informer sees ConfigMaps come and go', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const names = () => informer.list().map((c) => c.metadata?.name);
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'seen' }, data: { a: '1' } } });
      await until('the informer to add the ConfigMap', () => names().includes('seen'));
      await core.deleteNamespacedConfigMap({ name: 'seen', namespace: 'default' });
      await until('the informer to drop the ConfigMap', () => !names().includes('seen'));
    } finally {
      await informer.stop();
    }
  });

  const python = pythonWithClient();
  it('reference behaviour: python kubernetes client (CoreV1Api, AppsV1Api, RbacAuthorizationV1Api)', { skip: python ? false : 'python kubernetes client not installed' }, async () => {
    const { stdout } = await promisify(execFile)(python!, ['-c', PYTHON_SCRIPT, server.kubeconfigPath!], { timeout: 60_000 });
    const got = JSON.parse(stdout) as { namespaces: string[]; roles: string[]; deployment: number };
    assert.deepEqual(got.namespaces, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assert.ok(got.roles.includes('py-reader'), got.roles.join(' '));
    assert.equal(got.deployment, 10);
  });
});
