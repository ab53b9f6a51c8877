import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AUTHORIZATION_CONFIG_GROUP } from '../api/naming.js';
import type { Attributes, Authorizer, Decision } from '../authz/index.js';
import type { WebhookSettings } from '../authz/webhook/index.js';
import { buildAuthorizer, type AuthorizationOptions, type AuthorizerFactories } from './authz-setup.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-authz-setup-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const hookFile = join(dir, 'hook.kubeconfig');
writeFileSync(hookFile, 'clusters:\n- name: h\n  cluster: {server: "https://127.0.0.1:1"}\n');

/** Factories whose modules answer with their own name, recording what they were made from. */
function factories() {
  const made: string[] = [];
  const webhooks: WebhookSettings[] = [];
  const named = (name: string, decision: Decision['decision']): Authorizer => ({ authorize: async () => ({ decision, reason: name }) });
  const f: AuthorizerFactories = {
    rbac: () => (made.push('rbac'), named('rbac', 'noOpinion')),
    node: () => (made.push('node'), named('node', 'noOpinion')),
    abac: (file) => (made.push(`abac:${file}`), named('abac', 'noOpinion')),
    webhook: (s) => (made.push(`webhook:${s.name}`), webhooks.push(s), named(s.name, 'noOpinion')),
  };
  return { f, made, webhooks };
}
const attrs = (groups: string[] = []): Attributes => ({ user: { username: 'u', groups }, verb: 'get', isResourceRequest: false, path: '/x', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' });

test('spec 5.7 item 5: the mode list builds the modules in order from the factories', async () => {
  const { f, made, webhooks } = factories();
  const setup = buildAuthorizer({ authorizationModes: ['Node', 'ABAC', 'Webhook', 'RBAC'], authorizationPolicyFile: '/p.jsonl', authorizationWebhookConfigFile: hookFile, authorizationWebhookVersion: 'v1', authorizationWebhookCacheUnauthorizedTTLMs: 1000 }, f);
  assert.deepEqual(made, ['node', 'abac:/p.jsonl', 'webhook:webhook', 'rbac']);
  assert.equal(setup.rbacEnabled, true);
  assert.deepEqual((await setup.authorizer.authorize(attrs())).reason, 'node; abac; webhook; rbac');
  assert.equal((await setup.authorizer.authorize(attrs(['system:masters']))).decision, 'allow', 'spec 5.7 item 7: system:masters bypasses every module');
  const w = webhooks[0]!;
  assert.deepEqual([w.subjectAccessReviewVersion, w.authorizedTTLMs, w.unauthorizedTTLMs, w.timeoutMs, w.failurePolicy], ['v1', 300_000, 1000, 30_000, 'NoOpinion']);
  assert.equal(buildAuthorizer({}, factories().f).rbacEnabled, true, 'RBAC is the default mode');
});

test('spec 5.7 item 5: mode flag problems are start-up errors naming the flag', () => {
  const table: [AuthorizationOptions, RegExp][] = [
    [{ authorizationModes: [] }, /^Error: --authorization-mode: at least one mode is required/],
    [{ authorizationModes: ['RBAC', 'RBAC'] }, /^Error: --authorization-mode: "RBAC" is listed more than once/],
    [{ authorizationModes: ['Sometimes'] }, /^Error: --authorization-mode: unknown authorization mode "Sometimes" \(supported: AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node\)/],
    [{ authorizationModes: ['ABAC'] }, /^Error: --authorization-mode: mode ABAC needs --authorization-policy-file/],
    [{ authorizationModes: ['RBAC'], authorizationPolicyFile: '/p' }, /^Error: --authorization-policy-file: can only be given with --authorization-mode ABAC/],
    [{ authorizationModes: ['Webhook'] }, /^Error: --authorization-mode: mode Webhook needs --authorization-webhook-config-file/],
    [{ authorizationModes: ['RBAC'], authorizationWebhookConfigFile: hookFile }, /^Error: --authorization-webhook-config-file: can only be given with --authorization-mode Webhook/],
    [{ authorizationModes: ['RBAC'], authorizationWebhookVersion: 'v1' }, /^Error: --authorization-webhook-version: can only be given with --authorization-mode Webhook/],
    [{ authorizationModes: ['Webhook'], authorizationWebhookConfigFile: hookFile, authorizationWebhookVersion: 'v2' }, /^Error: --authorization-webhook-version: unsupported version "v2"/],
    [{ authorizationModes: ['Webhook'], authorizationWebhookConfigFile: join(dir, 'none') }, /^Error: --authorization-webhook-config-file .*none: cannot be read/],
    [{ authorizationModes: ['Webhook'], authorizationWebhookConfigFile: hookFile, authorizationWebhookCacheAuthorizedTTLMs: -1 }, /^Error: --authorization-webhook-cache-authorized-ttl: must be a duration of 0s or more/],
    [{ authorizationConfigFile: '/c.yaml', authorizationModes: ['RBAC'] }, /^Error: --authorization-config cannot be used together with --authorization-mode/],
    [{ authorizationConfigFile: '/c.yaml', authorizationWebhookCacheAuthorizedTTLMs: 5 }, /^Error: --authorization-config cannot be used together with --authorization-webhook-cache-authorized-ttl/],
  ];
  for (const [opts, want] of table) assert.throws(() => buildAuthorizer(opts, factories().f), want, JSON.stringify(opts));
});

test('spec 5.7 item 6: the configuration file builds the modules it lists; ABAC needs the policy file', async () => {
  const file = join(dir, 'authz.yaml');
  const write = (authorizers: unknown[]) => writeFileSync(file, JSON.stringify({ apiVersion: `${AUTHORIZATION_CONFIG_GROUP}/v1beta1`, kind: 'AuthorizationConfiguration', authorizers }));
  write([{ type: 'Node', name: 'node' }, { type: 'ABAC', name: 'abac' }, { type: 'AlwaysDeny', name: 'deny' }]);
  const { f, made } = factories();
  const setup = buildAuthorizer({ authorizationConfigFile: file, authorizationPolicyFile: '/p.jsonl' }, f);
  assert.deepEqual(made, ['node', 'abac:/p.jsonl']);
  assert.equal(setup.rbacEnabled, false);
  assert.equal((await setup.authorizer.authorize(attrs())).decision, 'deny');
  assert.throws(() => buildAuthorizer({ authorizationConfigFile: file }, factories().f), /^Error: --authorization-config: authorizers\[1\]: type ABAC needs --authorization-policy-file/);
  write([{ type: 'RBAC', name: 'rbac' }]);
  assert.throws(() => buildAuthorizer({ authorizationConfigFile: file, authorizationPolicyFile: '/p' }, factories().f), /^Error: --authorization-policy-file: can only be given when the --authorization-config file lists an ABAC authorizer/);
  const failing = { ...factories().f, node: () => { throw new Error('the Node authorizer is not available'); } };
  write([{ type: 'Node', name: 'node' }]);
  assert.throws(() => buildAuthorizer({ authorizationConfigFile: file }, failing), /^Error: --authorization-config: the Node authorizer is not available/);
});
