/**
 * Issue 17: stored values no encryption provider can read, as met by the server's own readers of the watch
 * cache and the store (authentication, admission, authorization, configuration followers). Objects are
 * written under key A; the server restarts with only key B configured, and each reader's outcome is shown
 * through a request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, APIEXTENSIONS_GROUP, AUTHENTICATION_GROUP, ENCRYPTION_CONFIG_GROUP, RBAC_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { FLOWCONTROL_GROUP } from '../src/registry/resources/flowcontrol/index.js';
import { client, type RequestOptions, type Response } from './helpers/client.js';

const KEY = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const ENCRYPTED = [
  'secrets',
  'limitranges',
  'pods',
  `rolebindings.${RBAC_GROUP}`,
  `flowschemas.${FLOWCONTROL_GROUP}`,
  `validatingwebhookconfigurations.${ADMISSIONREGISTRATION_GROUP}`,
  `validatingadmissionpolicies.${ADMISSIONREGISTRATION_GROUP}`,
  `customresourcedefinitions.${APIEXTENSIONS_GROUP}`,
];
const VWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`;
const POLICIES = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicybindings`;
const CRDS = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;

/** The resources above under aesgcm with one key only (no identity: nothing else can read them). */
const configYaml = (name: string, fill: number) =>
  [
    `apiVersion: ${ENCRYPTION_CONFIG_GROUP}/v1`,
    'kind: EncryptionConfiguration',
    'resources:',
    `- resources: [${ENCRYPTED.join(', ')}]`,
    '  providers:',
    '  - aesgcm:',
    '      keys:',
    `      - {name: ${name}, secret: ${KEY(fill)}}`,
  ].join('\n');

type Call = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

const whoami = (call: Call, token: string) =>
  call('POST', `/apis/${AUTHENTICATION_GROUP}/v1/selfsubjectreviews`, { token, body: { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'SelfSubjectReview' } });

async function boundToken(call: Call, secretName: string): Promise<string> {
  const s = await call('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName }, stringData: { k: 'v' } } });
  assert.equal(s.status, 201, s.text);
  const r = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
    body: { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { audiences: [], boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secretName, uid: s.json.metadata.uid } } },
  });
  assert.equal(r.status, 201, r.text);
  return r.json.status.token as string;
}

const viewBinding = (name: string, user: string) => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'RoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'view' },
  subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: user }],
});

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

/** A pod on `node` mounting `secret`: the Node authorizer lets that node read the secret. */
const podOnNode = (name: string, node: string, secret: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName: node, serviceAccountName: 'robot', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', secret: { secretName: secret } }] },
});

/** A webhook nobody answers, failing closed, for configmaps labelled `label=yes`. */
const failingHook = (name: string, label: string) => ({
  apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name },
  webhooks: [{
    name: `${name}.example.com`,
    clientConfig: { url: 'https://127.0.0.1:1/hook' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    objectSelector: { matchLabels: { [label]: 'yes' } },
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 2,
  }],
});
/** A policy denying configmaps, bound to those labelled `policy=yes` (the binding itself stays plain). */
const denyPolicy = {
  apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'deny-cm' },
  spec: { matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }, validations: [{ expression: 'false', message: 'denied by policy' }] },
};
const denyBinding = {
  apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'deny-cm' },
  spec: { policyName: 'deny-cm', validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { policy: 'yes' } } } },
};
const labelledConfigMap = (name: string, label: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [label]: 'yes' } } });

const crd = (plural: string, kind: string) => ({
  apiVersion: `${APIEXTENSIONS_GROUP}/v1`,
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
  },
});

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('issue 17, spec 2.12: values encrypted with a removed key, met by the server\'s internal readers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-readers-'));
  const configFile = join(dir, 'encryption.yaml');
  let server: RunningServer | undefined;
  let call: Call;
  const logs: string[] = [];
  const logged = (re: RegExp) => logs.filter((l) => re.test(l));
  let lostToken = '';

  const start = async (yaml: string) => {
    writeFileSync(configFile, yaml);
    server = await startServer({
      port: 0,
      dataDir: dir,
      storage: { type: 'sqlite', path: join(dir, 'orch.db') },
      encryptionProviderConfig: configFile,
      log: (m) => logs.push(m),
    });
    return client(server);
  };

  before(async () => {
    // Written under key A.
    call = await start(configYaml('keyA', 1));
    assert.equal((await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } })).status, 201);
    lostToken = await boundToken(call, 'bound-a');
    assert.equal((await whoami(call, lostToken)).status, 201, 'the token works while its secret is readable');
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lr' } } })).status, 201);
    const lr = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits: [{ type: 'Container', default: { cpu: '100m' } }] } };
    assert.equal((await call('POST', '/api/v1/namespaces/lr/limitranges', { body: lr })).status, 201);
    assert.equal((await call('POST', `/apis/${RBAC_GROUP}/v1/namespaces/default/rolebindings`, { body: viewBinding('alice-view', 'alice') })).status, 201);
    const asAlice = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'impersonate-user': 'alice' } });
    assert.equal(asAlice.status, 200, 'the binding grants while it is readable');
    await server?.close();
    // Key A removed: every value above (and the built-in flow schemas) is unreadable now.
    logs.length = 0;
    call = await start(configYaml('keyB', 2));
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.12: the server starts and serves with unreadable flow schemas and role bindings; each is logged by name', async () => {
    const r = await call('GET', '/api/v1/namespaces');
    assert.equal(r.status, 200, r.text);
    assert.ok(logged(/^flowcontrol: .*flowschemas\/exempt\b/).length >= 1, logs.join('\n'));
    assert.equal(logged(/^rbac: .*rolebindings\/default\/alice-view\b/).length, 1, logs.join('\n'));
  });

  it('spec 2.12, reference behaviour: a service-account token bound to an unreadable secret gets 401, logged once; a readable one works', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await whoami(call, lostToken);
      assert.equal(r.status, 401, r.text);
    }
    assert.equal(logged(/^authentication: .*secrets\/default\/bound-a\b/).length, 1, logs.join('\n'));
    const fresh = await boundToken(call, 'bound-b');
    const ok = await whoami(call, fresh);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.status.userInfo.username, 'system:serviceaccount:default:robot');
  });

  it('spec 2.12: a TokenRequest bound to an unreadable secret is a 500 naming it', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { audiences: [], boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: 'bound-a' } } },
    });
    assert.equal(r.status, 500, r.text);
    assert.match(r.json.message, /secrets\/default\/bound-a/);
  });

  it('spec 2.12: a pod create whose namespace\'s LimitRange is unreadable is a 500 naming it, nothing stored; other namespaces admit', async () => {
    const r = await call('POST', '/api/v1/namespaces/lr/pods', { body: pod('p') });
    assert.equal(r.status, 500, r.text);
    assert.equal(r.json.reason, 'InternalError');
    assert.match(r.json.message, /limitranges\/lr\/limits/);
    assert.equal((await call('GET', '/api/v1/namespaces/lr/pods/p')).status, 404);
    // Objects the LimitRanger does not look at are admitted in that namespace.
    const cm = await call('POST', '/api/v1/namespaces/lr/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
    assert.equal(cm.status, 201, cm.text);
    const other = await call('POST', '/api/v1/namespaces/default/pods', { body: { ...pod('q'), spec: { ...pod('q').spec, automountServiceAccountToken: false, serviceAccountName: 'robot' } } });
    assert.equal(other.status, 201, other.text);
  });

  it('spec 2.12, reference behaviour: an unreadable RoleBinding grants nothing (403 for its subject) while other bindings keep working', async () => {
    const alice = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'impersonate-user': 'alice' } });
    assert.equal(alice.status, 403, alice.text);
    assert.equal((await call('POST', `/apis/${RBAC_GROUP}/v1/namespaces/default/rolebindings`, { body: viewBinding('bob-view', 'bob') })).status, 201);
    const deadline = Date.now() + 5000;
    let bob = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'impersonate-user': 'bob' } });
    while (bob.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      bob = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'impersonate-user': 'bob' } });
    }
    assert.equal(bob.status, 200, bob.text);
    // Still refused once the readable binding is in the index (the unreadable one never is).
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'impersonate-user': 'alice' } })).status, 403);
  });
});

describe('issue 17: an unreadable CRD and node-graph inputs are skipped, logged by name', () => {
  // Shares nothing with the suite above: its own data dir, same two phases.
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-readers-cfg-'));
  const configFile = join(dir, 'encryption.yaml');
  let server: RunningServer | undefined;
  let call: Call;
  const logs: string[] = [];
  const logged = (re: RegExp) => logs.filter((l) => re.test(l));
  const asNode = (name: string) => ({ 'impersonate-user': `system:node:${name}`, 'impersonate-group': 'system:nodes' });
  const start = async (yaml: string) => {
    writeFileSync(configFile, yaml);
    server = await startServer({
      authorizationModes: ['Node', 'RBAC'],
      port: 0,
      dataDir: dir,
      storage: { type: 'sqlite', path: join(dir, 'orch.db') },
      encryptionProviderConfig: configFile,
      log: (m) => logs.push(m),
    });
    return client(server);
  };
  const nodeReads = async (node: string, secret: string) => (await call('GET', `/api/v1/namespaces/default/secrets/${secret}`, { headers: asNode(node) })).status;

  before(async () => {
    call = await start(configYaml('keyA', 1));
    assert.equal((await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/default/pods', { body: podOnNode('on-n1', 'n1', 'db') })).status, 201);
    await eventually('n1 may read the secret of its pod', async () => (await nodeReads('n1', 'db')) === 404);
    assert.equal((await call('POST', CRDS, { body: crd('widgets', 'Widget') })).status, 201);
    await eventually('widgets are served', async () => (await call('GET', '/apis/example.com/v1/namespaces/default/widgets')).status === 200);
    await server?.close();
    logs.length = 0;
    call = await start(configYaml('keyB', 2));
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: the Node authorizer leaves an unreadable pod out of the graph (403), logged; readable pods still grant', async () => {
    assert.equal(await nodeReads('n1', 'db'), 403);
    assert.equal(logged(/^node authorizer: .*pods\/default\/on-n1\b/).length, 1, logs.join('\n'));
    assert.equal((await call('POST', '/api/v1/namespaces/default/pods', { body: podOnNode('on-n1-b', 'n1', 'db2') })).status, 201);
    await eventually('n1 may read the secret of its new pod', async () => (await nodeReads('n1', 'db2')) === 404);
    assert.equal(await nodeReads('n1', 'db'), 403);
  });

  it('spec 2.12: an unreadable CRD is not served, logged by name; a readable one is served', async () => {
    assert.equal((await call('GET', '/apis/example.com/v1/namespaces/default/widgets')).status, 404);
    assert.equal(logged(/^customresourcedefinitions: .*customresourcedefinitions\/widgets\.example\.com\b/).length, 1, logs.join('\n'));
    assert.equal((await call('POST', CRDS, { body: crd('gadgets', 'Gadget') })).status, 201);
    await eventually('gadgets are served', async () => (await call('GET', '/apis/example.com/v1/namespaces/default/gadgets')).status === 200);
  });
});

/**
 * An admission configuration that cannot be read could be the one refusing a request: admission fails
 * closed (every write it would judge is a 500 naming the object, nothing stored), as the reference's
 * webhook and policy plugins do while their informers cannot list. Reads are not admitted, so they go on.
 */
for (const kind of ['ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy'] as const) {
  describe(`issue 17: an unreadable ${kind} fails admission closed`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-enc-readers-adm-'));
    const configFile = join(dir, 'encryption.yaml');
    let server: RunningServer | undefined;
    let call: Call;
    const logs: string[] = [];
    const start = async (yaml: string) => {
      writeFileSync(configFile, yaml);
      server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') }, encryptionProviderConfig: configFile, controllers: [], log: (m) => logs.push(m) });
      return client(server);
    };
    const unreadableName = kind === 'ValidatingWebhookConfiguration' ? /validatingwebhookconfigurations\/deny-a\b/ : /validatingadmissionpolicies\/deny-cm\b/;

    before(async () => {
      call = await start(configYaml('keyA', 1));
      if (kind === 'ValidatingWebhookConfiguration') {
        assert.equal((await call('POST', VWC, { body: failingHook('deny-a', 'hook-a') })).status, 201);
        await eventually('the webhook applies', async () => (await call('POST', '/api/v1/namespaces/default/configmaps', { body: labelledConfigMap('probe-a', 'hook-a') })).status === 500);
      } else {
        assert.equal((await call('POST', POLICIES, { body: denyPolicy })).status, 201);
        assert.equal((await call('POST', BINDINGS, { body: denyBinding })).status, 201);
        await eventually('the policy applies', async () => (await call('POST', '/api/v1/namespaces/default/configmaps', { body: labelledConfigMap('probe-p', 'policy') })).status === 422);
      }
      assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: labelledConfigMap('before', 'none') })).status, 201);
      await server?.close();
      call = await start(configYaml('keyB', 2));
    });
    after(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('spec 2.12: a write is a 500 naming the unreadable object, and nothing is stored', async () => {
      const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: labelledConfigMap('after', 'none') });
      assert.equal(r.status, 500, r.text);
      assert.match(r.json.message, unreadableName);
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/after')).status, 404);
    });

    it('spec 2.12: reads are not admitted and go on', async () => {
      const r = await call('GET', '/api/v1/namespaces/default/configmaps/before');
      assert.equal(r.status, 200, r.text);
    });
  });
}
