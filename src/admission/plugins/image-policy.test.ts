import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IMAGE_POLICY_AUDIT_PREFIX, IMAGE_POLICY_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { GROUP_SUFFIX } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { BackendFailure, type WebhookBackend as ImagePolicyBackend } from '../../util/webhook-backend.js';
import { loadBackendKubeconfig, parseImagePolicyConfiguration } from './image-policy-config.js';
import { AnswerCache, FAILED_OPEN_AUDIT_KEY, imageReviewSpec, ImagePolicyWebhookPlugin, parseImageReviewAnswer } from './image-policy.js';

const POLICY_ANNOTATION = `alpha.image-policy.${GROUP_SUFFIX}/mode`;
const pod = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', annotations },
  spec,
});
const podWrite = (object: ApiObject, o: { operation?: 'CREATE' | 'UPDATE'; oldObject?: ApiObject; subResource?: string; annotations?: Record<string, string> } = {}): AdmissionRequest => {
  const req = admissionRequest({
    operation: o.operation ?? 'CREATE',
    namespace: 'ns',
    name: 'p',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    subResource: o.subResource ?? '',
    object,
    ...(o.oldObject ? { oldObject: o.oldObject } : {}),
  });
  if (o.annotations) (req as { annotate: AdmissionRequest['annotate'] }).annotate = (k, v) => void (o.annotations![k] = v);
  return req;
};
const answer = (status: Record<string, unknown>) => JSON.stringify({ apiVersion: `${IMAGE_POLICY_GROUP}/v1alpha1`, kind: 'ImageReview', status });

/** A backend that answers from a list of outcomes (the last one repeats) and records what it was sent. */
function scripted(outcomes: (string | BackendFailure)[]): ImagePolicyBackend & { sent: any[] } {
  const sent: any[] = [];
  return {
    sent,
    async post(body) {
      sent.push(JSON.parse(body));
      const next = outcomes.length > 1 ? outcomes.shift()! : outcomes[0]!;
      if (next instanceof BackendFailure) throw next;
      return next;
    },
    close() {},
  };
}
const SETTINGS = { allowTtlMs: 300_000, denyTtlMs: 30_000, retryBackoffMs: 1, defaultAllow: false };
const onePod = pod({ containers: [{ name: 'c', image: 'good' }] });

async function outcome(p: ImagePolicyWebhookPlugin, req: AdmissionRequest): Promise<string> {
  try {
    await p.validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return `${e.code} ${e.message}`;
  }
}

admissionPluginContract('ImagePolicyWebhook', {
  make: () => new ImagePolicyWebhookPlugin(SETTINGS, scripted([answer({ allowed: true })])),
  cases: [
    { title: 'a pod the backend allows', request: () => podWrite(onePod) },
    { title: 'a config map (not reviewed)', request: () => admissionRequest({ operation: 'CREATE', name: 'c' }) },
  ],
});
admissionPluginContract('ImagePolicyWebhook (denying backend)', {
  make: () => new ImagePolicyWebhookPlugin(SETTINGS, scripted([answer({ allowed: false, reason: 'no' })])),
  cases: [{ title: 'a pod the backend denies', request: () => podWrite(onePod) }],
});

test('spec 2.11 (ImageReview): containers then init containers, or the ephemeral ones on their subresource; only *.image-policy annotations; the namespace', () => {
  const p = pod(
    { containers: [{ name: 'a', image: 'app:1' }], initContainers: [{ name: 'i', image: 'init:1' }], ephemeralContainers: [{ name: 'e', image: 'debug:1' }] },
    { [POLICY_ANNOTATION]: 'strict', 'other.example/x': 'y', [`b.image-policy.${GROUP_SUFFIX}/z`]: '1' },
  );
  assert.deepEqual(imageReviewSpec(p, '', 'ns'), {
    containers: [{ image: 'app:1' }, { image: 'init:1' }],
    annotations: { [POLICY_ANNOTATION]: 'strict', [`b.image-policy.${GROUP_SUFFIX}/z`]: '1' },
    namespace: 'ns',
  });
  assert.deepEqual(imageReviewSpec(p, 'ephemeralcontainers', 'ns').containers, [{ image: 'debug:1' }]);
  assert.deepEqual(imageReviewSpec(pod({}), '', ''), {}, 'empty parts are left out');
});

test('reference behaviour (ImagePolicyWebhook): allowed, denied with the reason, denied without one; the review sent', async () => {
  const table: [string, string, string][] = [
    ['allowed', answer({ allowed: true }), 'allowed'],
    ['denied with a reason', answer({ allowed: false, reason: 'image good is not signed' }), '403 pods "p" is forbidden: image policy webhook backend denied one or more images: image good is not signed'],
    ['denied without a reason', answer({ allowed: false }), '403 pods "p" is forbidden: one or more images rejected by webhook backend'],
    ['status left out counts as not allowed', JSON.stringify({ kind: 'ImageReview' }), '403 pods "p" is forbidden: one or more images rejected by webhook backend'],
  ];
  for (const [what, reply, want] of table) {
    const backend = scripted([reply]);
    assert.equal(await outcome(new ImagePolicyWebhookPlugin(SETTINGS, backend), podWrite(onePod)), want, what);
    assert.equal(backend.sent.length, 1);
    assert.deepEqual(backend.sent[0], { apiVersion: `${IMAGE_POLICY_GROUP}/v1alpha1`, kind: 'ImageReview', metadata: { creationTimestamp: null }, spec: { containers: [{ image: 'good' }], namespace: 'ns' }, status: { allowed: false } });
  }
});

test('reference behaviour (ImagePolicyWebhook): the backend\'s audit annotations are recorded under the plugin\'s prefix, from the cache too', async () => {
  const backend = scripted([answer({ allowed: true, auditAnnotations: { 'checked-by': 'scanner' } })]);
  const plugin = new ImagePolicyWebhookPlugin(SETTINGS, backend);
  for (let i = 0; i < 2; i++) {
    const got: Record<string, string> = {};
    assert.equal(await outcome(plugin, podWrite(onePod, { annotations: got })), 'allowed');
    assert.deepEqual(got, { [`${IMAGE_POLICY_AUDIT_PREFIX}checked-by`]: 'scanner' });
  }
  assert.equal(backend.sent.length, 1);
});

test('reference behaviour (ImagePolicyWebhook): answers are cached per review for allowTTL or denyTTL', async () => {
  let now = 0;
  const backend = scripted([answer({ allowed: true })]);
  const plugin = new ImagePolicyWebhookPlugin({ ...SETTINGS, allowTtlMs: 1000, denyTtlMs: 10 }, backend, () => now);
  await outcome(plugin, podWrite(onePod));
  await outcome(plugin, podWrite(onePod));
  assert.equal(backend.sent.length, 1, 'the same review within allowTTL is answered from the cache');
  await outcome(plugin, podWrite(pod({ containers: [{ name: 'c', image: 'other' }] })));
  assert.equal(backend.sent.length, 2, 'another review is asked');
  now = 1000;
  await outcome(plugin, podWrite(onePod));
  assert.equal(backend.sent.length, 3, 'asked again once allowTTL passed');

  const denying = scripted([answer({ allowed: false })]);
  const strict = new ImagePolicyWebhookPlugin({ ...SETTINGS, allowTtlMs: 1000, denyTtlMs: 10 }, denying, () => now);
  now = 0;
  await outcome(strict, podWrite(onePod));
  now = 5;
  await outcome(strict, podWrite(onePod));
  now = 10;
  await outcome(strict, podWrite(onePod));
  assert.equal(denying.sent.length, 2, 'a denial is remembered for denyTTL only');
  const off = scripted([answer({ allowed: true })]);
  const uncached = new ImagePolicyWebhookPlugin({ ...SETTINGS, allowTtlMs: 0 }, off, () => 0);
  await outcome(uncached, podWrite(onePod));
  await outcome(uncached, podWrite(onePod));
  assert.equal(off.sent.length, 2, 'a TTL of 0 (configured -1) caches nothing');
});

test('reference behaviour (ImagePolicyWebhook): a failing backend is retried once, then defaultAllow decides', async () => {
  const down = () => new BackendFailure('Post "https://127.0.0.1:1/": connect ECONNREFUSED 127.0.0.1:1', true);
  const table: [string, (string | BackendFailure)[], boolean, string, number, boolean][] = [
    // [what, outcomes, defaultAllow, result, calls, failed-open annotation]
    ['down, closed', [down()], false, '403 pods "p" is forbidden: Post "https://127.0.0.1:1/": connect ECONNREFUSED 127.0.0.1:1', 2, false],
    ['down, open', [down()], true, 'allowed', 2, true],
    ['down once, then an answer', [down(), answer({ allowed: true })], false, 'allowed', 2, false],
    ['a 500, closed', [new BackendFailure('Error contacting webhook: 500', true)], false, '403 pods "p" is forbidden: Error contacting webhook: 500', 2, false],
    ['a 403 is not retried', [new BackendFailure('Error contacting webhook: 403', false)], false, '403 pods "p" is forbidden: Error contacting webhook: 403', 1, false],
    ['garbage, open', ['not json'], true, 'allowed', 1, true],
    ['garbage, closed', ['{"status": {"allowed": "yes"}}'], false, '403 pods "p" is forbidden: the backend answered with a status.allowed that is not a boolean', 1, false],
  ];
  for (const [what, outcomes, defaultAllow, want, calls, failedOpen] of table) {
    const backend = scripted([...outcomes]);
    const annotations: Record<string, string> = {};
    const plugin = new ImagePolicyWebhookPlugin({ ...SETTINGS, defaultAllow }, backend);
    assert.equal(await outcome(plugin, podWrite(onePod, { annotations })), want, what);
    assert.equal(backend.sent.length, calls, `${what}: calls`);
    assert.equal(annotations[FAILED_OPEN_AUDIT_KEY] === 'true', failedOpen, `${what}: failed-open annotation`);
  }
});

test('reference behaviour (ImagePolicyWebhook): only pod creates and updates are reviewed; an update keeping the images asks nothing', async () => {
  const backend = scripted([answer({ allowed: false })]);
  const plugin = new ImagePolicyWebhookPlugin(SETTINGS, backend);
  assert.deepEqual(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((op) => plugin.handles(op as never)), [true, true, false, false]);
  assert.equal(await outcome(plugin, admissionRequest({ operation: 'CREATE', name: 'c' })), 'allowed');
  assert.equal(await outcome(plugin, podWrite(onePod, { subResource: 'status' })), 'allowed');
  const relabelled = { ...onePod, metadata: { ...onePod.metadata, labels: { a: 'b' } } };
  assert.equal(await outcome(plugin, podWrite(relabelled, { operation: 'UPDATE', oldObject: onePod })), 'allowed');
  assert.equal(backend.sent.length, 0);
  const newImage = pod({ containers: [{ name: 'c', image: 'bad' }] });
  assert.match(await outcome(plugin, podWrite(newImage, { operation: 'UPDATE', oldObject: onePod })), /^403 /);
  const debug = pod({ containers: [{ name: 'c', image: 'good' }], ephemeralContainers: [{ name: 'd', image: 'debug' }] });
  assert.match(await outcome(plugin, podWrite(debug, { operation: 'UPDATE', oldObject: onePod, subResource: 'ephemeralcontainers' })), /^403 /);
  assert.deepEqual(backend.sent.map((b) => b.spec.containers), [[{ image: 'bad' }], [{ image: 'debug' }]]);
});

test('reference behaviour (ImagePolicyWebhook): malformed answers are named', () => {
  const table: [string, string][] = [
    ['[]', 'not an ImageReview object'],
    ['{"kind": "Pod"}', 'kind "Pod", not ImageReview'],
    ['{"apiVersion": "v1"}', 'answered in "v1"'],
    ['{"status": {"allowed": true, "auditAnnotations": {"a": 1}}}', 'auditAnnotations that are not a map of strings'],
  ];
  for (const [text, want] of table) assert.throws(() => parseImageReviewAnswer(text), (e: Error) => e.message.includes(want), want);
  assert.deepEqual(parseImageReviewAnswer(answer({ allowed: false, reason: 'r', auditAnnotations: { a: 'b' } })), { allowed: false, reason: 'r', auditAnnotations: { a: 'b' } });
});

test('reference behaviour (ImagePolicyWebhook cache): expired entries are gone; past the bound the least recently used goes', () => {
  const c = new AnswerCache(2);
  c.add('a', { allowed: true }, 100, 0);
  c.add('b', { allowed: true }, 100, 0);
  assert.ok(c.get('a', 50));
  c.add('c', { allowed: false }, 100, 50);
  assert.equal(c.get('b', 50), undefined);
  assert.ok(c.get('a', 99));
  assert.equal(c.get('a', 100), undefined);
});

const KUBECONFIG_FILES: Record<string, string> = {
  '/cfg/backend.yaml': [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: images',
    '  cluster: {server: "https://127.0.0.1:9443/review", certificate-authority: ca.pem}',
    'users:',
    '- name: apiserver',
    '  user: {client-certificate: cert.pem, client-key: key.pem}',
    'contexts:',
    '- name: main',
    '  context: {cluster: images, user: apiserver}',
    'current-context: main',
  ].join('\n'),
  '/cfg/no-context.yaml': `clusters:\n- name: x\n  cluster: {server: "https://b.example/", certificate-authority-data: ${Buffer.from('CA2').toString('base64')}}\nusers:\n- name: u\n  user: {token: t0k}\n`,
  '/cfg/ca.pem': 'CA',
  '/cfg/cert.pem': 'CERT',
  '/cfg/key.pem': 'KEY',
  '/cfg/exec.yaml': 'clusters:\n- name: x\n  cluster: {server: "https://b/"}\nusers:\n- name: u\n  user: {exec: {command: x}}\n',
  '/cfg/two.yaml': 'clusters:\n- name: x\n  cluster: {server: "https://b/"}\n- name: second\n  cluster: {server: "https://c/"}\n',
  '/cfg/ftp.yaml': 'clusters:\n- name: x\n  cluster: {server: "ftp://b/"}\n',
};
const readFake = (p: string) => {
  const t = KUBECONFIG_FILES[p];
  if (t === undefined) throw new Error(`ENOENT: no such file ${p}`);
  return t;
};

test('reference behaviour (ImagePolicyWebhook kubeconfig): the current context, or the only cluster and user; files relative to the kubeconfig', () => {
  const a = loadBackendKubeconfig('/cfg/backend.yaml', readFake);
  assert.deepEqual([a.url.href, a.ca, a.cert, a.key, a.authorization], ['https://127.0.0.1:9443/review', 'CA', 'CERT', 'KEY', undefined]);
  const b = loadBackendKubeconfig('/cfg/no-context.yaml', readFake);
  assert.deepEqual([b.url.href, b.ca, b.authorization], ['https://b.example/', 'CA2', 'Bearer t0k']);
  const table: [string, string][] = [
    ['/cfg/exec.yaml', 'user.exec: not supported'],
    ['/cfg/two.yaml', 'exactly one cluster'],
    ['/cfg/ftp.yaml', 'cluster.server: Invalid value "ftp://b/"'],
    ['/cfg/missing.yaml', 'cannot be read as a kubeconfig: ENOENT'],
  ];
  for (const [file, want] of table) assert.throws(() => loadBackendKubeconfig(file, readFake), (e: Error) => e.message.includes(want), want);
});

test('reference behaviour (ImagePolicyWebhook configuration): defaults, ranges and -1, every bad field named', () => {
  const conf = (section: Record<string, unknown>) => ({ imagePolicy: { kubeConfigFile: '/cfg/backend.yaml', ...section } });
  const s = parseImagePolicyConfiguration(conf({}), readFake);
  assert.deepEqual([s.allowTtlMs, s.denyTtlMs, s.retryBackoffMs, s.defaultAllow], [300_000, 30_000, 500, false]);
  const t = parseImagePolicyConfiguration({ apiVersion: 'any/v1', kind: 'ImagePolicyWebhookConfiguration', ...conf({ allowTTL: 50, denyTTL: -1, retryBackoff: 1000, defaultAllow: true }) }, readFake);
  assert.deepEqual([t.allowTtlMs, t.denyTtlMs, t.retryBackoffMs, t.defaultAllow], [50_000, 0, 1000, true]);
  const table: [unknown, string][] = [
    [undefined, 'no configuration given'],
    [{}, 'imagePolicy: Required value'],
    [conf({ kubeConfigFile: '' }), 'imagePolicy.kubeConfigFile: Required value'],
    [conf({ allowTTL: 3600 }), 'imagePolicy.allowTTL: Invalid value: 3600: must be 1 to 1800 seconds'],
    [conf({ denyTTL: -5 }), 'imagePolicy.denyTTL: Invalid value: -5'],
    [conf({ retryBackoff: 400000 }), 'imagePolicy.retryBackoff: Invalid value: 400000: must be 1 to 300000 milliseconds'],
    [conf({ defaultAllow: 'yes' }), 'imagePolicy.defaultAllow: Invalid value: "yes"'],
    [conf({ allowTtl: 5 }), 'imagePolicy.allowTtl: unknown field'],
    [{ ...conf({}), extra: 1 }, 'extra: unknown field'],
    [conf({ kubeConfigFile: '/cfg/missing.yaml' }), 'imagePolicy.kubeConfigFile (/cfg/missing.yaml): cannot be read'],
  ];
  for (const [raw, want] of table) assert.throws(() => parseImagePolicyConfiguration(raw, readFake), (e: Error) => e.message.includes(want), want);
});
