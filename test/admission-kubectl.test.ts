/**
 * What a kubectl user sees of admission webhooks (issue 15, spec 8): a denial's message as kubectl's error,
 * and a webhook's warnings printed by kubectl as `Warning:` lines while the write succeeds.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { allow, startWebhookServer, type Review, type WebhookServer } from './helpers/webhook-server.js';

const NAMESPACE = 'hooked';

/** kubectl's exit code, stdout and stderr (a failure is an answer here, not an exception). */
function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('admission webhooks as kubectl shows them (issue 15, spec 8)', () => {
  let dir: string;
  let server: RunningServer;
  let hooks: WebhookServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-admission-kubectl-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    hooks = await startWebhookServer((r: Review) => {
      const name = String(r.request.name ?? '');
      if (r.request.kind?.kind === 'ConfigMap' && name.startsWith('bad-')) {
        return { response: { uid: r.request.uid, allowed: false, status: { code: 403, message: 'names starting with bad- are refused here' } } };
      }
      return allow(r, { warnings: ['this namespace is watched by the example webhook'] });
    });
    const call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE, labels: { team: 'hooked' } } } })).status, 201);
    const cfg = {
      metadata: { name: 'kubectl-example' },
      webhooks: [
        {
          name: 'check.example.com',
          clientConfig: { url: `${hooks.url}/check`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          namespaceSelector: { matchLabels: { team: 'hooked' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    };
    assert.equal((await call('POST', `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`, { body: cfg })).status, 201);
    // The configuration reaches admission through the watch cache: wait until the webhook is called.
    const deadline = Date.now() + 5000;
    for (let i = 0; hooks.reviews.length === 0; i++) {
      if (Date.now() > deadline) throw new Error('the webhook configuration never took effect');
      await call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, { body: { metadata: { name: `probe-${i}` } } });
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    await hooks.close();
    closeWebhookConnections();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: kubectl create fails with the webhook\'s denial message, and nothing is stored', async () => {
    const r = await kubectl(server.kubeconfigPath!, ['-n', NAMESPACE, 'create', 'configmap', 'bad-one', '--from-literal=a=b']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /admission webhook "check\.example\.com" denied the request: names starting with bad- are refused here/);
    const get = await kubectl(server.kubeconfigPath!, ['-n', NAMESPACE, 'get', 'configmap', 'bad-one']);
    assert.match(get.stderr, /NotFound|not found/);
  });

  it('spec 8: kubectl prints the webhook\'s warning and the create succeeds', async () => {
    const r = await kubectl(server.kubeconfigPath!, ['-n', NAMESPACE, 'create', 'configmap', 'good-one', '--from-literal=a=b']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /configmap\/good-one created/);
    assert.match(r.stderr, /^Warning: this namespace is watched by the example webhook$/m);
  });
});
