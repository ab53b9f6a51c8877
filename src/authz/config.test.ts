import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { AUTHORIZATION_CONFIG_GROUP } from '../api/naming.js';
import { AuthorizationConfigError, loadAuthorizationConfiguration, parseAuthorizationConfiguration } from './config.js';
import { formatGoDuration, parseGoDuration } from '../util/duration.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-authz-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = join(dir, 'webhook.kubeconfig');
writeFileSync(kubeconfig, 'clusters:\n- name: w\n  cluster: {server: "https://127.0.0.1:9443/authorize"}\n');
mkdirSync(join(dir, 'a-directory'));
const V1BETA1 = `${AUTHORIZATION_CONFIG_GROUP}/v1beta1`;

/** A valid webhook block with `over` merged in (a key set to undefined is removed). */
function webhook(over: Record<string, unknown> = {}): Record<string, unknown> {
  const w: Record<string, unknown> = {
    timeout: '3s',
    subjectAccessReviewVersion: 'v1',
    matchConditionSubjectAccessReviewVersion: 'v1',
    failurePolicy: 'NoOpinion',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    ...over,
  };
  for (const k of Object.keys(w)) if (w[k] === undefined) delete w[k];
  return w;
}
const doc = (authorizers: unknown, top: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: V1BETA1, kind: 'AuthorizationConfiguration', authorizers, ...top });
const withWebhook = (over: Record<string, unknown>) => doc([{ type: 'Webhook', name: 'hook', webhook: webhook(over) }]);

test('spec 5.7 item 6: a valid file lists the authorizers in order with the webhook settings and defaults', () => {
  const cfg = parseAuthorizationConfiguration(
    [
      `apiVersion: ${V1BETA1}`,
      'kind: AuthorizationConfiguration',
      'authorizers:',
      '- type: Node',
      '  name: node',
      '- type: Webhook',
      '  name: first',
      '  webhook:',
      '    timeout: 3s',
      '    subjectAccessReviewVersion: v1beta1',
      '    matchConditionSubjectAccessReviewVersion: v1',
      '    failurePolicy: Deny',
      '    connectionInfo:',
      '      type: KubeConfigFile',
      `      kubeConfigFile: ${kubeconfig}`,
      '    matchConditions:',
      "    - expression: has(request.resourceAttributes)",
      "    - expression: request.user != 'system:anonymous'",
      '- type: Webhook',
      '  name: second',
      `  webhook: ${JSON.stringify(webhook({ authorizedTTL: '1m', unauthorizedTTL: '0s', timeout: '30s' }))}`,
      '- type: RBAC',
      '  name: rbac',
    ].join('\n'),
  );
  assert.deepEqual(cfg.authorizers.map((a) => `${a.type}/${a.name}`), ['Node/node', 'Webhook/first', 'Webhook/second', 'RBAC/rbac']);
  const first = cfg.authorizers[1]!;
  assert.ok(first.type === 'Webhook');
  assert.equal(first.webhook.timeoutMs, 3000);
  assert.equal(first.webhook.authorizedTTLMs, 5 * 60_000, 'authorizedTTL defaults to 5m0s');
  assert.equal(first.webhook.unauthorizedTTLMs, 30_000, 'unauthorizedTTL defaults to 30s');
  assert.equal(first.webhook.subjectAccessReviewVersion, 'v1beta1');
  assert.equal(first.webhook.failurePolicy, 'Deny');
  assert.equal(first.webhook.connection.url.href, 'https://127.0.0.1:9443/authorize');
  assert.equal(first.webhook.matchConditions.length, 2);
  const second = cfg.authorizers[2]!;
  assert.ok(second.type === 'Webhook');
  assert.equal(second.webhook.authorizedTTLMs, 60_000);
  assert.equal(second.webhook.unauthorizedTTLMs, 30_000, 'an explicit 0s takes the default, as the reference defaults it');
  assert.equal(second.webhook.timeoutMs, 30_000);
});

test('reference behaviour: v1alpha1 is read too, and AlwaysAllow, AlwaysDeny and ABAC are accepted types', () => {
  const cfg = parseAuthorizationConfiguration(
    JSON.stringify({
      apiVersion: `${AUTHORIZATION_CONFIG_GROUP}/v1alpha1`,
      kind: 'AuthorizationConfiguration',
      authorizers: [{ type: 'AlwaysDeny', name: 'deny' }, { type: 'ABAC', name: 'abac' }, { type: 'AlwaysAllow', name: 'allow' }],
    }),
  );
  assert.deepEqual(cfg.authorizers.map((a) => a.type), ['AlwaysDeny', 'ABAC', 'AlwaysAllow']);
});

test('spec 5.7 item 6: every rule of the table is checked, with the field path in the message', () => {
  const long = Array.from({ length: 65 }, (_, i) => ({ expression: `request.user == 'u${i}'` }));
  const table: [string, string, RegExp][] = [
    ['apiVersion', doc([{ type: 'RBAC', name: 'r' }], { apiVersion: `${AUTHORIZATION_CONFIG_GROUP}/v2` }), /^apiVersion: Unsupported value ".*\/v2": supported values: /],
    ['kind', doc([{ type: 'RBAC', name: 'r' }], { kind: 'Other' }), /^kind: Unsupported value "Other"/],
    ['unknown top field', doc([{ type: 'RBAC', name: 'r' }], { extra: 1 }), /^extra: unknown field/],
    ['no authorizers', doc([]), /^authorizers: Required value/],
    ['authorizers not a list', doc({}), /^authorizers: must be a list/],
    ['type missing', doc([{ name: 'x' }]), /^authorizers\[0\]\.type: Required value/],
    ['type unknown', doc([{ type: 'Magic', name: 'x' }]), /^authorizers\[0\]\.type: Unsupported value "Magic": supported values: "AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"/],
    ['type repeated', doc([{ type: 'RBAC', name: 'a' }, { type: 'RBAC', name: 'b' }]), /^authorizers\[1\]\.type: Duplicate value: "RBAC"/],
    ['name missing', doc([{ type: 'RBAC' }]), /^authorizers\[0\]\.name: Required value/],
    ['name repeated', doc([{ type: 'RBAC', name: 'a' }, { type: 'Node', name: 'a' }]), /^authorizers\[1\]\.name: Duplicate value: "a"/],
    ['name not a DNS label', doc([{ type: 'RBAC', name: 'My_Authorizer' }]), /^authorizers\[0\]\.name: Invalid value "My_Authorizer": must be a DNS label/],
    ['name too long', doc([{ type: 'RBAC', name: 'a'.repeat(64) }]), /^authorizers\[0\]\.name: Invalid value .*must be a DNS label/],
    ['unknown authorizer field', doc([{ type: 'RBAC', name: 'r', colour: 'red' }]), /^authorizers\[0\]\.colour: unknown field/],
    ['webhook on RBAC', doc([{ type: 'RBAC', name: 'r', webhook: webhook() }]), /^authorizers\[0\]\.webhook: Invalid value: may only be set when type is Webhook/],
    ['webhook missing', doc([{ type: 'Webhook', name: 'w' }]), /^authorizers\[0\]\.webhook: Required value/],
    ['timeout missing', withWebhook({ timeout: undefined }), /^authorizers\[0\]\.webhook\.timeout: Required value/],
    ['timeout over 30s', withWebhook({ timeout: '45s' }), /^authorizers\[0\]\.webhook\.timeout: Invalid value "45s": must be > 0s and <= 30s/],
    ['timeout negative', withWebhook({ timeout: '-1s' }), /^authorizers\[0\]\.webhook\.timeout: Invalid value "-1s": must be > 0s and <= 30s/],
    ['timeout not a duration', withWebhook({ timeout: 'soon' }), /^authorizers\[0\]\.webhook\.timeout: Invalid value "soon": must be a duration/],
    ['authorizedTTL negative', withWebhook({ authorizedTTL: '-5m' }), /^authorizers\[0\]\.webhook\.authorizedTTL: Invalid value "-5m0s": must be > 0s/],
    ['unauthorizedTTL negative', withWebhook({ unauthorizedTTL: '-1s' }), /^authorizers\[0\]\.webhook\.unauthorizedTTL: Invalid value "-1s": must be > 0s/],
    ['subjectAccessReviewVersion missing', withWebhook({ subjectAccessReviewVersion: undefined }), /^authorizers\[0\]\.webhook\.subjectAccessReviewVersion: Required value/],
    ['subjectAccessReviewVersion unknown', withWebhook({ subjectAccessReviewVersion: 'v2' }), /subjectAccessReviewVersion: Unsupported value "v2": supported values: "v1", "v1beta1"/],
    ['matchConditionSubjectAccessReviewVersion missing', withWebhook({ matchConditionSubjectAccessReviewVersion: undefined }), /^authorizers\[0\]\.webhook\.matchConditionSubjectAccessReviewVersion: Required value/],
    ['matchConditionSubjectAccessReviewVersion v1beta1', withWebhook({ matchConditionSubjectAccessReviewVersion: 'v1beta1' }), /matchConditionSubjectAccessReviewVersion: Unsupported value "v1beta1": supported values: "v1"/],
    ['failurePolicy missing', withWebhook({ failurePolicy: undefined }), /^authorizers\[0\]\.webhook\.failurePolicy: Required value/],
    ['failurePolicy unknown', withWebhook({ failurePolicy: 'Ignore' }), /failurePolicy: Unsupported value "Ignore": supported values: "NoOpinion", "Deny"/],
    ['connectionInfo missing', withWebhook({ connectionInfo: undefined }), /^authorizers\[0\]\.webhook\.connectionInfo\.type: Required value/],
    ['connectionInfo type unknown', withWebhook({ connectionInfo: { type: 'Magic' } }), /connectionInfo\.type: Unsupported value "Magic": supported values: "InClusterConfig", "KubeConfigFile"/],
    ['InClusterConfig', withWebhook({ connectionInfo: { type: 'InClusterConfig' } }), /^authorizers\[0\]\.webhook\.connectionInfo\.type: Invalid value "InClusterConfig": not supported by the API server itself/],
    ['InClusterConfig with a file', withWebhook({ connectionInfo: { type: 'InClusterConfig', kubeConfigFile: kubeconfig } }), /connectionInfo\.kubeConfigFile: Invalid value .*: can only be set when type is KubeConfigFile/],
    ['kubeConfigFile missing', withWebhook({ connectionInfo: { type: 'KubeConfigFile' } }), /^authorizers\[0\]\.webhook\.connectionInfo\.kubeConfigFile: Required value/],
    ['kubeConfigFile relative', withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'hook.kubeconfig' } }), /kubeConfigFile: Invalid value "hook.kubeconfig": must be an absolute path/],
    ['kubeConfigFile absent', withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'none') } }), /kubeConfigFile: Invalid value .*none": cannot be read: ENOENT/],
    ['kubeConfigFile a directory', withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: join(dir, 'a-directory') } }), /kubeConfigFile: Invalid value .*: must be a regular file/],
    ['connectionInfo unknown field', withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig, proxy: 'x' } }), /connectionInfo\.proxy: unknown field/],
    ['webhook unknown field', withWebhook({ retries: 3 }), /^authorizers\[0\]\.webhook\.retries: unknown field/],
    ['more than 64 match conditions', withWebhook({ matchConditions: long }), /^authorizers\[0\]\.webhook\.matchConditions: Too many: 65: must have at most 64 items/],
    ['empty expression', withWebhook({ matchConditions: [{ expression: '  ' }] }), /matchConditions\[0\]\.expression: Required value/],
    ['repeated expression', withWebhook({ matchConditions: [{ expression: 'true' }, { expression: 'true' }] }), /matchConditions\[1\]\.expression: Duplicate value: "true"/],
    ['expression that does not compile', withWebhook({ matchConditions: [{ expression: 'request.user ==' }] }), /matchConditions\[0\]\.expression: Invalid value "request.user ==": compilation failed/],
    ['expression that is not boolean', withWebhook({ matchConditions: [{ expression: "'text'" }] }), /matchConditions\[0\]\.expression: Invalid value .*must evaluate to bool/],
    ['expression naming an undefined field', withWebhook({ matchConditions: [{ expression: "request.username == 'a'" }] }), /matchConditions\[0\]\.expression: .*undefined field 'username'/],
    ['expression naming an undefined attribute', withWebhook({ matchConditions: [{ expression: "request.resourceAttributes.kind == 'Pod'" }] }), /undefined field 'kind'/],
    ['expression with an unknown variable', withWebhook({ matchConditions: [{ expression: "object.x == 'a'" }] }), /matchConditions\[0\]\.expression: Invalid value .*compilation failed/],
    ['match condition unknown field', withWebhook({ matchConditions: [{ expression: 'true', name: 'x' }] }), /matchConditions\[0\]\.name: unknown field/],
    ['duplicate YAML keys', `kind: AuthorizationConfiguration\nkind: AuthorizationConfiguration\n`, /^not valid YAML or JSON/],
    ['not an object', '- a\n', /^must hold an AuthorizationConfiguration object/],
  ];
  for (const [what, text, want] of table) assert.throws(() => parseAuthorizationConfiguration(text), (e: Error) => e instanceof AuthorizationConfigError && want.test(e.message), what);
});

test('spec 5.7 item 6: every problem of a file is reported at once', () => {
  assert.throws(
    () => parseAuthorizationConfiguration(withWebhook({ timeout: '1m', failurePolicy: 'Maybe' })),
    /webhook\.timeout: Invalid value "1m0s".*; authorizers\[0\]\.webhook\.failurePolicy: Unsupported value "Maybe"/,
  );
});

test('spec 5.7 item 6: a bad kubeconfig named by the file is an error naming the field and the kubeconfig', () => {
  const bad = join(dir, 'bad.kubeconfig');
  writeFileSync(bad, 'clusters:\n- name: w\n  cluster: {server: "ftp://x"}\n');
  assert.throws(() => parseAuthorizationConfiguration(withWebhook({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: bad } })), /authorizers\[0\]\.webhook\.connectionInfo\.kubeConfigFile \(.*bad\.kubeconfig\): cluster\.server: Invalid value/);
});

test('spec 5.7 item 6: loading names the file in every error', () => {
  assert.throws(() => loadAuthorizationConfiguration(join(dir, 'missing.yaml')), /missing\.yaml: cannot be read/);
  const file = join(dir, 'authz.yaml');
  writeFileSync(file, withWebhook({ timeout: '31s' }));
  assert.throws(() => loadAuthorizationConfiguration(file), /authz\.yaml: authorizers\[0\]\.webhook\.timeout: Invalid value "31s"/);
});

test('reference behaviour: durations are read and written in the Go syntax', () => {
  const table: [string, number | undefined][] = [['5m0s', 300_000], ['30s', 30_000], ['1h', 3_600_000], ['1.5s', 1500], ['500ms', 500], ['0', 0], ['-1s', -1000], ['1m30s', 90_000], ['', undefined], ['5', undefined], ['5x', undefined], ['s', undefined]];
  for (const [text, ms] of table) assert.equal(parseGoDuration(text), ms, text);
  const out: [number, string][] = [[300_000, '5m0s'], [30_000, '30s'], [3_600_000, '1h0m0s'], [1500, '1.5s'], [250, '250ms'], [0, '0s'], [-60_000, '-1m0s']];
  for (const [ms, text] of out) assert.equal(formatGoDuration(ms), text, String(ms));
});
