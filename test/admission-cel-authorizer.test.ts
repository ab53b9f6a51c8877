/**
 * The CEL `authorizer` library through a whole server (issue 15, spec 1.6): ValidatingAdmissionPolicies
 * and a webhook match condition that ask the server's RBAC authorizer about the request's user, a
 * service account, and a non-resource path. Two token users with different grants write ConfigMaps.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP, AUTHORIZATION_GROUP, RBAC_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { allow, startWebhookServer, type WebhookServer } from './helpers/webhook-server.js';

const NS = 'cel-authz';
const POLICIES = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicies`;
const BINDINGS = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingadmissionpolicybindings`;
const VWC = `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const ALICE = 'tok-alice';
const BOB = 'tok-bob';

const configMap = (name: string, testCase: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'authz-test': testCase } }, data: { a: 'b' } });

/** A policy on ConfigMap creates with one validation, bound (Deny) to ConfigMaps labelled with `name`. */
function policyAndBinding(name: string, expression: string, message: string) {
  return [
    {
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
        validations: [{ expression, message, reason: 'Forbidden' }],
      },
    },
    { metadata: { name }, spec: { policyName: name, validationActions: ['Deny'], matchResources: { objectSelector: { matchLabels: { 'authz-test': name } } } } },
  ] as const;
}

describe('the CEL authorizer library in admission (issue 15, spec 1.6)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let hooks: WebhookServer;

  const created = async (path: string, body: unknown) => {
    const r = await call('POST', path, { body });
    assert.equal(r.status, 201, r.text);
  };

  /** Waits until the RBAC authorizer (fed by the watch) answers `attributes` for `user` with `allowed`. */
  async function untilAuthorized(user: string, attributes: Record<string, unknown>, allowed = true): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const r = await call('POST', `/apis/${AUTHORIZATION_GROUP}/v1/subjectaccessreviews`, { body: { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SubjectAccessReview', spec: { user, ...attributes } } });
      if ((r.json?.status?.allowed === true) === allowed) return;
      if (Date.now() > deadline) throw new Error(`authorizer did not reach allowed=${allowed} for ${user}: ${r.text}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  /** Configuration reaches admission through the watch cache: retries new names until `done`. */
  async function until(testCase: string, token: string, done: (r: Response) => boolean): Promise<Response> {
    const deadline = Date.now() + 5000;
    for (let n = 0; ; n++) {
      const r = await call('POST', CONFIGMAPS, { body: configMap(`${testCase}-${token}-${n}`, testCase), token });
      if (done(r) || Date.now() > deadline) return r;
      await new Promise((res) => setTimeout(res, 50));
    }
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-cel-authz-'));
    writeFileSync(join(dir, 'tokens.csv'), `${ALICE},alice,uid-alice,devs\n${BOB},bob,uid-bob,devs\n`);
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, tokenAuthFile: join(dir, 'tokens.csv') });
    call = client(server);
    hooks = await startWebhookServer((review) => allow(review));
    await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const rbac = `/apis/${RBAC_GROUP}/v1`;
    // Both may create ConfigMaps in the namespace; only alice may also delete pods, read ConfigMaps and get /metrics.
    await created(`${rbac}/namespaces/${NS}/roles`, { metadata: { name: 'writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] });
    await created(`${rbac}/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'writers' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'writer' },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: 'devs' }],
    });
    await created(`${rbac}/namespaces/${NS}/roles`, {
      metadata: { name: 'pod-deleter' },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['delete'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      ],
    });
    await created(`${rbac}/namespaces/${NS}/rolebindings`, {
      metadata: { name: 'alice-deletes-pods' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'pod-deleter' },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'alice' }],
    });
    await created(`${rbac}/clusterroles`, { metadata: { name: 'metrics-reader' }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] });
    await created(`${rbac}/clusterrolebindings`, {
      metadata: { name: 'alice-reads-metrics' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'metrics-reader' },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'alice' }],
    });
    await untilAuthorized('alice', { resourceAttributes: { namespace: NS, resource: 'pods', verb: 'delete' } });
    await untilAuthorized('alice', { resourceAttributes: { namespace: NS, resource: 'configmaps', verb: 'get' } });
    await untilAuthorized('alice', { nonResourceAttributes: { path: '/metrics', verb: 'get' } });
    await untilAuthorized('bob', { groups: ['devs'], resourceAttributes: { namespace: NS, resource: 'configmaps', verb: 'create' } });
  });

  after(async () => {
    closeWebhookConnections();
    await hooks.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: a policy denies unless the request\'s user may delete pods in the object\'s namespace', async () => {
    const [policy, binding] = policyAndBinding(
      'pod-deleters-only',
      "authorizer.group('').resource('pods').namespace(object.metadata.namespace).check('delete').allowed()",
      'only users who may delete pods here may create config maps',
    );
    await created(POLICIES, policy);
    await created(BINDINGS, binding);
    const denied = await until('pod-deleters-only', BOB, (r) => r.status === 403);
    assert.equal(denied.status, 403, denied.text);
    assert.match(denied.json.message, /ValidatingAdmissionPolicy 'pod-deleters-only' with binding 'pod-deleters-only' denied request: only users who may delete pods here may create config maps$/);
    const allowed = await call('POST', CONFIGMAPS, { body: configMap('pod-deleters-only-alice', 'pod-deleters-only'), token: ALICE });
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('reference behaviour: authorizer.path(p).check(verb) asks about a non-resource path for the request\'s user', async () => {
    const [policy, binding] = policyAndBinding('metrics-readers-only', "authorizer.path('/metrics').check('get').allowed()", 'only readers of /metrics');
    await created(POLICIES, policy);
    await created(BINDINGS, binding);
    const denied = await until('metrics-readers-only', BOB, (r) => r.status === 403);
    assert.equal(denied.status, 403, denied.text);
    assert.match(denied.json.message, /only readers of \/metrics$/);
    const allowed = await call('POST', CONFIGMAPS, { body: configMap('metrics-readers-only-alice', 'metrics-readers-only'), token: ALICE });
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('reference behaviour: authorizer.serviceAccount(ns, name) checks as that service account, whoever writes', async () => {
    const [policy, binding] = policyAndBinding(
      'deployer-may-create',
      "authorizer.serviceAccount(object.metadata.namespace, 'deployer').group('apps').resource('deployments').namespace(object.metadata.namespace).check('create').allowed()",
      'the deployer service account may not create deployments here',
    );
    await created(POLICIES, policy);
    await created(BINDINGS, binding);
    const denied = await until('deployer-may-create', ALICE, (r) => r.status === 403);
    assert.equal(denied.status, 403, denied.text);
    assert.match(denied.json.message, /the deployer service account may not create deployments here$/);
    const rbac = `/apis/${RBAC_GROUP}/v1/namespaces/${NS}`;
    await created(`${rbac}/roles`, { metadata: { name: 'deployments-creator' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['create'] }] });
    await created(`${rbac}/rolebindings`, {
      metadata: { name: 'deployer-creates' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: 'deployments-creator' },
      subjects: [{ kind: 'ServiceAccount', name: 'deployer', namespace: NS }],
    });
    // The grant is the service account's, so a user with no such grant (bob) is now admitted too.
    const allowed = await until('deployer-may-create', BOB, (r) => r.status === 201);
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('reference behaviour: a webhook match condition authorizer.requestResource.check(verb) calls the webhook only for users allowed that verb on the request\'s resource', async () => {
    const testCase = 'readers-webhook';
    await created(VWC, {
      metadata: { name: testCase },
      webhooks: [
        {
          name: 'readers.example.com',
          clientConfig: { url: `${hooks.url}/readers`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          objectSelector: { matchLabels: { 'authz-test': testCase } },
          matchConditions: [{ name: 'may-read-configmaps', expression: "authorizer.requestResource.check('get').allowed()" }],
        },
      ],
    });
    const calledFor = (name: string) => hooks.reviews.some((r) => r.request.name === name);
    // alice may get ConfigMaps in the namespace: her writes are sent to the webhook once the configuration is in.
    const deadline = Date.now() + 5000;
    let aliceName = '';
    for (let n = 0; !calledFor(aliceName); n++) {
      assert.ok(Date.now() < deadline, 'the webhook was never called for alice');
      aliceName = `${testCase}-alice-${n}`;
      assert.equal((await call('POST', CONFIGMAPS, { body: configMap(aliceName, testCase), token: ALICE })).status, 201);
    }
    const review = hooks.reviews.find((r) => r.request.name === aliceName);
    assert.equal(review?.request.userInfo.username, 'alice');
    // bob may not get them: the condition is false and his write goes through without the webhook.
    const bobs = await call('POST', CONFIGMAPS, { body: configMap(`${testCase}-bob`, testCase), token: BOB });
    assert.equal(bobs.status, 201, bobs.text);
    assert.equal(calledFor(`${testCase}-bob`), false);
  });

  it('reference behaviour: a policy calling an unknown authorizer method is refused when stored (422)', async () => {
    const [policy] = policyAndBinding('bad-method', "authorizer.group('').resource('pods').check('get').granted()", 'x');
    const r = await call('POST', POLICIES, { body: policy });
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec\.validations\[0\]\.expression: Invalid value: .*compilation failed: .*Decision\.granted/);
  });
});
