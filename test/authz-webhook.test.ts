/**
 * Authorization through SubjectAccessReview webhooks (spec 5.7 items 1, 5-7; 8): a real HTTPS webhook
 * that counts its calls, configured by an AuthorizationConfiguration file or by the mode flags.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { failsToStart, stopAll, until } from './helpers/apiserver-process.js';
import { startWebhookServer, type Reply, type WebhookServer } from './helpers/webhook-server.js';

const RBAC = 'rbac.authorization.orch.io';
const CONFIG_VERSION = 'apiserver.config.orch.io/v1beta1';
const USERS = ['allowed-user', 'denied-user', 'rbac-user', 'hang-user', 'soft-hang', 'skip-user'];

/** The webhook's answer for each user; `hang` never answers. */
function answerFor(user: string): Record<string, unknown> | 'hang' {
  if (user === 'allowed-user') return { allowed: true, reason: 'webhook says yes' };
  if (user === 'denied-user') return { allowed: false, denied: true, reason: 'webhook says no' };
  if (user === 'hang-user' || user === 'soft-hang') return 'hang';
  return { allowed: false };
}

function sarWebhook(): Promise<WebhookServer> {
  return startWebhookServer((review): Reply => {
    const sar = review as unknown as { apiVersion: string; spec: { user: string } };
    const a = answerFor(sar.spec.user);
    if (a === 'hang') return { hang: true };
    return { raw: JSON.stringify({ apiVersion: sar.apiVersion, kind: 'SubjectAccessReview', status: a }) };
  });
}

const kubeconfigFor = (hook: WebhookServer) =>
  `clusters:\n- name: hook\n  cluster:\n    server: ${hook.url}/authorize\n    certificate-authority-data: ${hook.caBundle}\n`;
const callsBy = (hook: WebhookServer, user: string) => hook.reviews.filter((r) => (r as unknown as { spec: { user: string } }).spec.user === user).length;

describe('webhook authorization with --authorization-config (spec 5.7 items 5-7)', () => {
  let dir: string;
  let hook: WebhookServer;
  let server: RunningServer;
  let configFile: string;
  const logs: string[] = [];
  let call: ReturnType<typeof client>;
  const as = (user: string) => (method: string, path: string) => call(method, path, { token: `tok-${user}` });
  const configWith = (authorizers: unknown[]) => JSON.stringify({ apiVersion: CONFIG_VERSION, kind: 'AuthorizationConfiguration', authorizers });
  const guard = (kubeconfig: string) => ({
    type: 'Webhook',
    name: 'guard',
    webhook: {
      timeout: '1s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'Deny',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: [{ expression: "request.user != 'skip-user'" }, { expression: "!request.user.startsWith('soft-')" }],
    },
  });
  const soft = (kubeconfig: string) => ({
    type: 'Webhook',
    name: 'soft',
    webhook: {
      timeout: '1s',
      subjectAccessReviewVersion: 'v1beta1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
      matchConditions: [{ expression: "request.user.startsWith('soft-')" }],
    },
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-authz-webhook-'));
    hook = await sarWebhook();
    const kubeconfig = join(dir, 'hook.kubeconfig');
    writeFileSync(kubeconfig, kubeconfigFor(hook));
    writeFileSync(join(dir, 'tokens.csv'), USERS.map((u) => `tok-${u},${u},uid-${u}`).join('\n') + '\n');
    configFile = join(dir, 'authz.json');
    writeFileSync(configFile, configWith([guard(kubeconfig), soft(kubeconfig), { type: 'RBAC', name: 'rbac' }]));
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'memory' },
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationConfigFile: configFile,
      log: (m) => logs.push(m),
    });
    call = client(server);
    for (const user of ['denied-user', 'rbac-user', 'soft-hang', 'skip-user']) {
      const r = await call('POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
        body: { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: `view-${user}` }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: user }] },
      });
      assert.equal(r.status, 201, r.text);
    }
    await until('the RBAC bindings are in the index', async () => (await as('skip-user')('GET', '/api/v1/namespaces/default/configmaps')).status === 200);
  });

  after(async () => {
    await server?.close();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 5.7 item 7: system:masters is never sent to the webhook', async () => {
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(hook.reviews.filter((r) => (r as unknown as { spec: { groups?: string[] } }).spec.groups?.includes('system:masters')).length, 0);
  });

  it('spec 5.7 item 1: a webhook allow allows, and the allow is cached (one call for repeated requests)', async () => {
    const get = as('allowed-user');
    assert.equal((await get('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await get('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await get('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(callsBy(hook, 'allowed-user'), 1);
    const sent = hook.reviews.find((r) => (r as unknown as { spec: { user: string } }).spec.user === 'allowed-user') as unknown as Record<string, any>;
    assert.equal(sent.apiVersion, 'authorization.orch.io/v1');
    assert.deepEqual(sent.spec.resourceAttributes, { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(sent.spec.groups, ['system:authenticated']);
  });

  it('spec 5.7 item 1: a webhook deny is 403 with its reason even when RBAC would allow, and is cached', async () => {
    const r = await as('denied-user')('GET', '/api/v1/namespaces/default/configmaps');
    assert.equal(r.status, 403);
    assert.match(r.json.message, /webhook says no/);
    assert.equal((await as('denied-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
    assert.equal(callsBy(hook, 'denied-user'), 1);
  });

  it('spec 5.7 item 1: no opinion from the webhook falls through to RBAC', async () => {
    assert.equal((await as('rbac-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 200, 'view allows list');
    assert.equal((await as('rbac-user')('DELETE', '/api/v1/namespaces/default/configmaps/x')).status, 403, 'view does not allow delete');
    assert.equal(callsBy(hook, 'rbac-user'), 2);
  });

  it('spec 5.7 item 6: a false match condition skips the webhook (RBAC decides, no call)', async () => {
    assert.equal((await as('skip-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(callsBy(hook, 'skip-user'), 0);
  });

  it('spec 5.7 item 6: a hanging webhook with failurePolicy Deny is 403 within its 1s timeout', async () => {
    const t0 = Date.now();
    const r = await as('hang-user')('GET', '/api/v1/namespaces/default/configmaps');
    const took = Date.now() - t0;
    assert.equal(r.status, 403);
    assert.ok(took >= 900 && took < 3000, `answered after ${took} ms`);
    assert.ok(logs.some((l) => /authorization webhook "guard": .*deadline exceeded/.test(l)), logs.join('\n'));
  });

  it('spec 5.7 item 6: a hanging webhook with failurePolicy NoOpinion lets RBAC decide after its timeout', async () => {
    const t0 = Date.now();
    const r = await as('soft-hang')('GET', '/api/v1/namespaces/default/configmaps');
    const took = Date.now() - t0;
    assert.equal(r.status, 200, r.text);
    assert.ok(took >= 900 && took < 3000, `answered after ${took} ms`);
    const sent = hook.reviews.find((x) => (x as unknown as { spec: { user: string } }).spec.user === 'soft-hang') as unknown as Record<string, any>;
    assert.equal(sent.apiVersion, 'authorization.orch.io/v1beta1');
    assert.deepEqual(sent.spec.group, ['system:authenticated'], 'v1beta1 reviews carry "group"');
  });

  it('spec 5.7 item 6: a changed valid file takes effect; an invalid one keeps the previous configuration', async () => {
    writeFileSync(configFile, configWith([{ type: 'RBAC', name: 'only-rbac' }]));
    await until('the reloaded configuration (RBAC only) forbids allowed-user', async () => (await as('allowed-user')('GET', '/api/v1/namespaces/default/configmaps')).status === 403);
    const callsBefore = hook.reviews.length;
    assert.equal((await as('denied-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 200, 'RBAC alone now decides');
    assert.ok(logs.some((l) => /authz\.json reloaded \(RBAC\/only-rbac\)/.test(l)), logs.join('\n'));
    writeFileSync(configFile, configWith([{ type: 'RBAC', name: 'Bad_Name' }]));
    await until('the rejected file is logged', () => logs.some((l) => /previous configuration stays: .*authorizers\[0\]\.name: Invalid value "Bad_Name"/.test(l)));
    assert.equal((await as('denied-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 200, 'the previous configuration still answers');
    assert.equal((await as('allowed-user')('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
    assert.equal(hook.reviews.length, callsBefore, 'the webhook is no longer asked');
  });
});

describe('webhook authorization with --authorization-mode=Webhook (spec 5.7 item 5)', () => {
  it('reference behaviour: the mode flags send v1beta1 reviews by default; a zero authorized TTL caches nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-authz-legacy-'));
    const hook = await sarWebhook();
    let server: RunningServer | undefined;
    try {
      writeFileSync(join(dir, 'hook.kubeconfig'), kubeconfigFor(hook));
      writeFileSync(join(dir, 'tokens.csv'), 'tok-allowed-user,allowed-user,u1\n');
      server = await startServer({
        port: 0,
        dataDir: join(dir, 'data'),
        storage: { type: 'memory' },
        tokenAuthFile: join(dir, 'tokens.csv'),
        authorizationModes: ['Webhook', 'RBAC'],
        authorizationWebhookConfigFile: join(dir, 'hook.kubeconfig'),
        authorizationWebhookCacheAuthorizedTTLMs: 0,
      });
      const call = client(server);
      assert.equal((await call('GET', '/api/v1/namespaces', { token: 'tok-allowed-user' })).status, 200);
      assert.equal((await call('GET', '/api/v1/namespaces', { token: 'tok-allowed-user' })).status, 200);
      assert.equal(hook.reviews.length, 2);
      assert.equal(hook.reviews[0]!.apiVersion, 'authorization.orch.io/v1beta1');
    } finally {
      await server?.close();
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('authorization start-up errors (spec 5.7 item 5, spec 7)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-authz-errors-'));
    writeFileSync(join(dir, 'ok.yaml'), `apiVersion: ${CONFIG_VERSION}\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n`);
    writeFileSync(join(dir, 'hook.kubeconfig'), 'clusters:\n- name: h\n  cluster: {server: "https://127.0.0.1:1"}\n');
  });
  after(() => {
    stopAll();
    rmSync(dir, { recursive: true, force: true });
  });
  const data = () => `--data-dir=${join(dir, 'data')}`;

  it('spec 7: --authorization-config with --authorization-mode or an --authorization-webhook-* flag exits, naming both flags', async () => {
    const config = `--authorization-config=${join(dir, 'ok.yaml')}`;
    assert.match(await failsToStart([data(), config, '--authorization-mode=RBAC']), /--authorization-config cannot be used together with --authorization-mode/);
    assert.match(await failsToStart([data(), config, '--authorization-webhook-version=v1']), /--authorization-config cannot be used together with --authorization-webhook-version/);
    assert.match(await failsToStart([data(), config, `--authorization-webhook-config-file=${join(dir, 'hook.kubeconfig')}`]), /--authorization-config cannot be used together with --authorization-webhook-config-file/);
    assert.match(await failsToStart([data(), config, '--authorization-webhook-cache-authorized-ttl=1m']), /--authorization-config cannot be used together with --authorization-webhook-cache-authorized-ttl/);
    assert.match(await failsToStart([data(), config, '--authorization-webhook-cache-unauthorized-ttl=1m']), /--authorization-config cannot be used together with --authorization-webhook-cache-unauthorized-ttl/);
  });

  it('spec 5.7 item 6: an invalid configuration file exits, naming the flag, the file and the field', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `apiVersion: ${CONFIG_VERSION}\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n- type: Webhook\n  name: hook\n  webhook: {timeout: 45s, subjectAccessReviewVersion: v1, matchConditionSubjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: InClusterConfig}}\n`);
    const err = await failsToStart([data(), `--authorization-config=${bad}`]);
    assert.match(err, /--authorization-config: .*bad\.yaml: authorizers\[1\]\.webhook\.timeout: Invalid value "45s": must be > 0s and <= 30s/);
    assert.match(err, /authorizers\[1\]\.webhook\.connectionInfo\.type: Invalid value "InClusterConfig"/);
    assert.match(await failsToStart([data(), `--authorization-config=${join(dir, 'missing.yaml')}`]), /--authorization-config: .*missing\.yaml: cannot be read/);
  });

  it('reference behaviour: mode flags that need a file, or files without their mode, exit naming the flag', async () => {
    const hookFile = `--authorization-webhook-config-file=${join(dir, 'hook.kubeconfig')}`;
    assert.match(await failsToStart([data(), '--authorization-mode=Webhook']), /--authorization-mode: mode Webhook needs --authorization-webhook-config-file/);
    assert.match(await failsToStart([data(), hookFile]), /--authorization-webhook-config-file: can only be given with --authorization-mode Webhook/);
    assert.match(await failsToStart([data(), '--authorization-mode=ABAC']), /--authorization-mode: mode ABAC needs --authorization-policy-file/);
    assert.match(await failsToStart([data(), '--authorization-mode=Webhook', hookFile, '--authorization-webhook-version=v2']), /--authorization-webhook-version: unsupported version "v2"/);
    assert.match(await failsToStart([data(), '--authorization-mode=RBAC', '--authorization-webhook-cache-authorized-ttl=soon']), /--authorization-webhook-cache-authorized-ttl: invalid duration "soon"/);
  });
});
