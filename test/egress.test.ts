/**
 * Egress selection through a whole server (spec 2.12): real HTTP CONNECT proxies started here count the
 * tunnels that token and admission webhook calls open through them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, APISERVER_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { failsToStart, stopAll } from './helpers/apiserver-process.js';
import { client, type Response } from './helpers/client.js';
import { startConnectProxy, type ConnectProxy } from './helpers/connect-proxy.js';
import { allow, startWebhookServer, type Reply, type WebhookServer } from './helpers/webhook-server.js';

const VWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const SELF = '/apis/authentication.orch.io/v1/selfsubjectreviews';

function egressFile(dir: string, name: string, selections: unknown[]): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ apiVersion: `${APISERVER_GROUP}/v1beta1`, kind: 'EgressSelectorConfiguration', egressSelections: selections }));
  return file;
}

function kubeconfig(dir: string, server: string, caBundle: string): string {
  const file = join(dir, 'token-webhook.kubeconfig');
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: authn\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${caBundle}\nusers:\n- name: apiserver\n  user: {}\ncontexts:\n- name: webhook\n  context: {cluster: authn, user: apiserver}\ncurrent-context: webhook\n`,
  );
  return file;
}

const tokenAnswer = (review: { apiVersion: string; spec?: { token?: string } }): Reply =>
  review.spec?.token === 'tok-alice'
    ? { raw: JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'alice' } } }) }
    : { raw: JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status: { authenticated: false } }) };

const validating = (name: string, clientConfig: Record<string, unknown>) => ({
  metadata: { name },
  webhooks: [
    {
      name: `${name}.example.com`,
      clientConfig,
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      objectSelector: { matchLabels: { test: name } },
    },
  ],
});

/** Webhook configurations reach admission through the watch cache: retry until the webhook was called. */
async function until(attempt: () => Promise<Response>, done: () => boolean): Promise<Response> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await attempt();
    if (done() || Date.now() > deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('egress selection through the server (spec 2.12)', () => {
  let dir: string;
  let controlplane: ConnectProxy;
  let cluster: ConnectProxy;
  let tokens: WebhookServer;
  let hooks: WebhookServer;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-egress-'));
    controlplane = await startConnectProxy({ kind: 'tcp' });
    cluster = await startConnectProxy({ kind: 'uds', path: join(dir, 'cluster-proxy.sock') });
    tokens = await startWebhookServer((r) => tokenAnswer(r as never));
    hooks = await startWebhookServer((r) => allow(r), ['hooks.default.svc']);
    const file = egressFile(dir, 'egress.json', [
      { name: 'controlplane', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: controlplane.address } } } },
      { name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { uds: { udsName: cluster.address } } } },
      { name: 'etcd', connection: { proxyProtocol: 'Direct' } },
    ]);
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      egressSelectorConfigFile: file,
      authenticationTokenWebhook: { configFile: kubeconfig(dir, `${tokens.url}/authenticate`, tokens.caBundle) },
    });
    call = client(server);
  });
  after(async () => {
    await server.close();
    closeWebhookConnections();
    await Promise.all([tokens.close(), hooks.close(), controlplane.close(), cluster.close()]);
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.12: a token webhook call goes through the controlplane egress proxy', async () => {
    const r = await call('POST', SELF, { token: 'tok-alice', body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(r.status, 201, r.text);
    assert.equal((r.json as any).status.userInfo.username, 'alice');
    assert.ok(controlplane.tunnels.includes(`127.0.0.1:${tokens.port}`), JSON.stringify(controlplane.tunnels));
    assert.ok(!cluster.tunnels.includes(`127.0.0.1:${tokens.port}`));
  });

  it('reference behaviour: a URL admission webhook goes through the controlplane egress proxy', async () => {
    assert.equal((await call('POST', VWC, { body: validating('by-url', { url: `${hooks.url}/by-url`, caBundle: hooks.caBundle }) })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `url-${n++}`, labels: { test: 'by-url' } } } }),
      () => hooks.paths.some((p) => p.startsWith('/by-url')),
    );
    assert.equal(r.status, 201, r.text);
    assert.ok(controlplane.tunnels.includes(`127.0.0.1:${hooks.port}`), JSON.stringify(controlplane.tunnels));
  });

  it('reference behaviour: a service-backed admission webhook goes through the cluster egress proxy (here on a Unix socket)', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks' }, spec: { type: 'ExternalName', externalName: 'localhost' } };
    assert.equal((await call('POST', '/api/v1/namespaces/default/services', { body: svc })).status, 201);
    const cc = { service: { namespace: 'default', name: 'hooks', path: '/by-service', port: hooks.port }, caBundle: hooks.caBundle };
    assert.equal((await call('POST', VWC, { body: validating('by-service', cc) })).status, 201);
    let n = 0;
    const r = await until(
      () => call('POST', CONFIGMAPS, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `svc-${n++}`, labels: { test: 'by-service' } } } }),
      () => hooks.paths.some((p) => p.startsWith('/by-service')),
    );
    assert.equal(r.status, 201, r.text);
    assert.ok(cluster.tunnels.includes(`localhost:${hooks.port}`), JSON.stringify(cluster.tunnels));
    assert.ok(!controlplane.tunnels.includes(`localhost:${hooks.port}`));
  });

  it('spec 2.12: with Direct selections the webhook is called without any proxy', async () => {
    const proxy = await startConnectProxy({ kind: 'tcp' });
    const direct = await startServer({
      port: 0,
      storage: { type: 'memory' },
      egressSelectorConfigFile: egressFile(dir, 'direct.json', [{ name: 'master', connection: { proxyProtocol: 'Direct' } }]),
      authenticationTokenWebhook: { configFile: kubeconfig(dir, `${tokens.url}/authenticate`, tokens.caBundle) },
    });
    try {
      const before = tokens.reviews.length;
      const r = await client(direct)('POST', SELF, { token: 'tok-alice', body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(tokens.reviews.length, before + 1);
      assert.deepEqual(proxy.tunnels, []);
    } finally {
      await direct.close();
      await proxy.close();
    }
  });

  it('spec 2.12: a bad --egress-selector-config-file is a start-up error naming the flag, the file and the field', async () => {
    const bad = egressFile(dir, 'bad.json', [{ name: 'cluster', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: 'http://p:1', tlsConfig: {} } } } }]);
    await assert.rejects(
      startServer({ port: 0, storage: { type: 'memory' }, egressSelectorConfigFile: bad }),
      /--egress-selector-config-file .*bad\.json: egressSelections\[0\]\.connection\.transport\.tcp\.tlsConfig: Invalid value: "nil": TLSConfig config should not be present when using HTTP/,
    );
    const grpc = egressFile(dir, 'grpc.json', [{ name: 'cluster', connection: { proxyProtocol: 'GRPC', transport: { uds: { udsName: '/run/konnectivity.sock' } } } }]);
    const stderr = await failsToStart(['--data-dir', join(dir, 'cli'), '--secure-port', '0', '--egress-selector-config-file', grpc]);
    assert.match(stderr, /--egress-selector-config-file .*grpc\.json: egressSelections\[0\]\.connection\.proxyProtocol: Unsupported value: "GRPC"/);
    const missing = await failsToStart(['--data-dir', join(dir, 'cli'), '--secure-port', '0', '--egress-selector-config-file', join(dir, 'nope.yaml')]);
    assert.match(missing, /--egress-selector-config-file .*nope\.yaml: cannot be read/);
  });
});
