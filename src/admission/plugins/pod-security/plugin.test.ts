import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POD_SECURITY_CONFIG_GROUP, POD_SECURITY_LABEL_PREFIX as P } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { StatusError } from '../../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../../testing/contract.js';
import type { AdmissionRequest, GroupVersionResource } from '../../types.js';
import { parsePodSecurityConfig } from './policy.js';
import { AUDIT_VIOLATIONS_ANNOTATION, ENFORCE_POLICY_ANNOTATION, existingPodWarnings, EXEMPT_ANNOTATION, PodSecurityPlugin, significantPodUpdate } from './plugin.js';

const ns = (name: string, labels: Record<string, string>): ApiObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
const PRIV_SPEC = { hostNetwork: true, containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] };
const PLAIN_SPEC = { containers: [{ name: 'c', image: 'i' }] };
const pod = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'x', ...meta }, spec });
const objects = (withPeek = true) =>
  fixedObjects({
    '/namespaces': [
      ns('enforced', { [`${P}enforce`]: 'baseline', [`${P}warn`]: 'restricted', [`${P}audit`]: 'restricted' }),
      ns('open', {}),
      ns('warned', { [`${P}warn`]: 'baseline', [`${P}warn-version`]: 'v1.30' }),
    ],
    '/pods': [pod('b', PRIV_SPEC), pod('a', PRIV_SPEC), pod('z', { hostPID: true, containers: [] }), pod('fine', PLAIN_SPEC)].map((p) => ({ ...p, metadata: { ...p.metadata, namespace: 'target' } })),
  }, withPeek);

type Seen = { warnings: string[]; annotations: Record<string, string> };
function request(over: Partial<AdmissionRequest> & { operation: AdmissionRequest['operation'] }, resource: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' }): AdmissionRequest & Seen {
  const seen: Seen = { warnings: [], annotations: {} };
  const req = admissionRequest({ resource, warn: (m) => void seen.warnings.push(m), annotate: (k, v) => void (seen.annotations[k] = v), ...over });
  return Object.assign(req, seen);
}
const podWrite = (namespace: string, obj: ApiObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldObject?: ApiObject) =>
  request({ operation, namespace, name: String(obj.metadata?.name), object: obj, ...(oldObject ? { oldObject } : {}) });

async function run(plugin: PodSecurityPlugin, req: AdmissionRequest & Seen): Promise<string> {
  try {
    await plugin.validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}
const make = (config?: unknown, withPeek = true) => new PodSecurityPlugin(objects(withPeek), parsePodSecurityConfig(config));

admissionPluginContract('PodSecurity', {
  make: () => make(),
  cases: [
    { title: 'a privileged pod in an enforcing namespace', request: () => podWrite('enforced', pod('p', PRIV_SPEC)) },
    { title: 'a plain pod in an enforcing namespace', request: () => podWrite('enforced', pod('p', PLAIN_SPEC)) },
    { title: 'a deployment template', request: () => request({ operation: 'CREATE', namespace: 'enforced', name: 'd', object: { metadata: { name: 'd' }, spec: { template: { spec: PRIV_SPEC } } } }, { group: 'apps', version: 'v1', resource: 'deployments' }) },
    { title: 'a namespace with a bad label', request: () => request({ operation: 'CREATE', namespace: '', name: 'n', object: ns('n', { [`${P}enforce`]: 'bogus' }) }, { group: '', version: 'v1', resource: 'namespaces' }) },
  ],
});

test('reference behaviour (PodSecurity): enforce refuses with the reference message; audit and warn are recorded on allowed pods', async () => {
  for (const withPeek of [true, false]) {
    const plugin = make(undefined, withPeek);
    const denied = podWrite('enforced', pod('bad', PRIV_SPEC));
    assert.equal(await run(plugin, denied),
      '403 pods "bad" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)');
    assert.match(denied.annotations[AUDIT_VIOLATIONS_ANNOTATION] ?? '', /^would violate PodSecurity "restricted:latest": host namespaces/);
    assert.deepEqual(denied.warnings, [], 'no warning on a refused pod');
    const allowed = podWrite('enforced', pod('ok', PLAIN_SPEC));
    assert.equal(await run(plugin, allowed), 'allowed');
    assert.equal(allowed.annotations[ENFORCE_POLICY_ANNOTATION], 'baseline:latest');
    assert.equal(allowed.warnings.length, 1);
    assert.match(allowed.warnings[0]!, /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "c" must set/);
    const warned = podWrite('warned', pod('w', PRIV_SPEC));
    assert.equal(await run(plugin, warned), 'allowed');
    assert.deepEqual(warned.warnings, ['would violate PodSecurity "baseline:v1.30": host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)']);
    const open = podWrite('open', pod('o', PRIV_SPEC));
    assert.equal(await run(plugin, open), 'allowed');
    assert.deepEqual([open.warnings, open.annotations], [[], {}]);
  }
});

test('reference behaviour (PodSecurity): exempt users, namespaces and runtime classes; configured defaults apply to unlabelled namespaces', async () => {
  const config = { apiVersion: `${POD_SECURITY_CONFIG_GROUP}/v1`, kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline' }, exemptions: { usernames: ['alice'], namespaces: ['enforced'], runtimeClasses: ['kata'] } };
  const plugin = make(config);
  const byNamespace = podWrite('enforced', pod('p', PRIV_SPEC));
  assert.equal(await run(plugin, byNamespace), 'allowed');
  assert.equal(byNamespace.annotations[EXEMPT_ANNOTATION], 'namespace');
  const byUser = podWrite('open', pod('p', PRIV_SPEC));
  assert.equal(await run(plugin, byUser), 'allowed', 'the default test user is alice');
  assert.equal(byUser.annotations[EXEMPT_ANNOTATION], 'user');
  const bob = { user: { username: 'bob', groups: [] } };
  const byClass = Object.assign(podWrite('open', pod('p', { ...PRIV_SPEC, runtimeClassName: 'kata' })), bob);
  assert.equal(await run(plugin, byClass), 'allowed');
  assert.equal(byClass.annotations[EXEMPT_ANNOTATION], 'runtimeClass');
  assert.match(await run(plugin, Object.assign(podWrite('open', pod('p', PRIV_SPEC)), bob)), /^403 pods "p" is forbidden: violates PodSecurity "baseline:latest"/);
});

test('reference behaviour (PodSecurity): pod updates are checked only when images, containers or seccomp annotations change', async () => {
  const plugin = make();
  const old = pod('p', PRIV_SPEC);
  assert.equal(await run(plugin, podWrite('enforced', pod('p', PRIV_SPEC, { labels: { a: 'b' } }), 'UPDATE', old)), 'allowed');
  const newImage = pod('p', { ...PRIV_SPEC, containers: [{ ...PRIV_SPEC.containers[0], image: 'j' }] });
  assert.match(await run(plugin, podWrite('enforced', newImage, 'UPDATE', old)), /^403 /);
  assert.equal(significantPodUpdate(pod('p', { ...PLAIN_SPEC, ephemeralContainers: [{ name: 'e', image: 'i' }] }), pod('p', PLAIN_SPEC)), true);
  assert.equal(significantPodUpdate(pod('p', PLAIN_SPEC, { annotations: { x: '1' } }), pod('p', PLAIN_SPEC)), false);
});

test('reference behaviour (PodSecurity): pod controller templates are warned and audited, never refused', async () => {
  const plugin = make();
  const table: [GroupVersionResource, Record<string, unknown>][] = [
    [{ group: 'apps', version: 'v1', resource: 'deployments' }, { spec: { template: { spec: PRIV_SPEC } } }],
    [{ group: 'batch', version: 'v1', resource: 'cronjobs' }, { spec: { jobTemplate: { spec: { template: { spec: PRIV_SPEC } } } } }],
    [{ group: '', version: 'v1', resource: 'podtemplates' }, { template: { spec: PRIV_SPEC } }],
  ];
  for (const [resource, body] of table) {
    const req = request({ operation: 'CREATE', namespace: 'enforced', name: 'w', object: { metadata: { name: 'w' }, ...body } }, resource);
    assert.equal(await run(plugin, req), 'allowed', resource.resource);
    assert.match(req.warnings[0] ?? '', /^would violate PodSecurity "restricted:latest": host namespaces \(hostNetwork=true\)/, resource.resource);
    assert.match(req.annotations[AUDIT_VIOLATIONS_ANNOTATION] ?? '', /^would violate PodSecurity "restricted:latest"/, resource.resource);
  }
  const same = { metadata: { name: 'w' }, spec: { replicas: 2, template: { spec: PRIV_SPEC } } };
  const scaled = request({ operation: 'UPDATE', namespace: 'enforced', name: 'w', object: same, oldObject: { ...same, spec: { ...same.spec, replicas: 1 } } }, table[0]![0]);
  assert.equal(await run(plugin, scaled), 'allowed');
  assert.deepEqual(scaled.warnings, [], 'an update that keeps the template is not checked');
});

test('reference behaviour (PodSecurity): namespace labels are validated (422), and raising enforce warns about existing pods', async () => {
  const plugin = make();
  const nsWrite = (operation: 'CREATE' | 'UPDATE', obj: ApiObject, oldObject?: ApiObject) =>
    request({ operation, namespace: '', name: String(obj.metadata?.name), object: obj, ...(oldObject ? { oldObject } : {}) }, { group: '', version: 'v1', resource: 'namespaces' });
  assert.equal(await run(plugin, nsWrite('CREATE', ns('n', { [`${P}enforce`]: 'bogus' }))),
    `422 namespaces "n" is invalid: metadata.labels[${P}enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted`);
  assert.equal(await run(plugin, nsWrite('CREATE', ns('n', { [`${P}enforce`]: 'restricted', [`${P}enforce-version`]: 'v1.31' }))), 'allowed');
  const bad = ns('target', { [`${P}enforce-version`]: 'v9' });
  assert.match(await run(plugin, nsWrite('UPDATE', bad, ns('target', {}))), /^422 namespaces "target" is invalid: metadata\.labels\[.*enforce-version\]: Invalid value: "v9": must be "latest" or "v1\.x"/);
  assert.equal(await run(plugin, nsWrite('UPDATE', { ...bad, metadata: { ...bad.metadata, annotations: { a: 'b' } } }, bad)), 'allowed', 'an error already stored is not a new one');
  const raised = nsWrite('UPDATE', ns('target', { [`${P}enforce`]: 'baseline' }), ns('target', {}));
  assert.equal(await run(plugin, raised), 'allowed');
  assert.deepEqual(raised.warnings, [
    'existing pods in namespace "target" violate the new PodSecurity enforce level "baseline:latest"',
    'a (and 1 other pod): host namespaces, privileged',
    'z: host namespaces',
  ]);
  const relaxed = nsWrite('UPDATE', ns('target', { [`${P}enforce`]: 'baseline' }), ns('target', { [`${P}enforce`]: 'restricted' }));
  assert.equal(await run(plugin, relaxed), 'allowed');
  assert.deepEqual(relaxed.warnings, []);
  assert.deepEqual(existingPodWarnings('n', { level: 'baseline', minor: undefined }, [pod('a', PRIV_SPEC), pod('b', PRIV_SPEC), pod('c', PRIV_SPEC)], 5), [
    'new PodSecurity enforce level only checked against the first 3 of 5 existing pods',
    'existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"',
    'a (and 2 other pods): host namespaces, privileged',
  ]);
});
