// Issue 21, "Reference naming, per server": a server started with `naming: 'k8s'` spells every identifier
// as the reference does, so real kubectl's typed commands work; a default server in the same process keeps
// the spec's spellings.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import * as naming from '../src/api/naming.js';
import { namingGraph } from '../src/server/naming-bundle.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';
import { failsToStart, startApiserver, stopAll, targetOf, tempDir } from './helpers/apiserver-process.js';

/** Constants of naming.ts and their reference (1.31) spellings. */
const REFERENCE_SPELLINGS: Record<string, unknown> = {
  GROUP_SUFFIX: 'k8s.io',
  LABEL_DOMAIN: 'kubernetes.io',
  PROTOBUF_MEDIA_TYPE: 'application/vnd.kubernetes.protobuf',
  META_GROUP: 'meta.k8s.io',
  SYSTEM_NAMESPACE: 'kube-system',
  PUBLIC_NAMESPACE: 'kube-public',
  NODE_LEASE_NAMESPACE: 'kube-node-lease',
  RBAC_GROUP: 'rbac.authorization.k8s.io',
  CERTIFICATES_GROUP: 'certificates.k8s.io',
  NAMESPACE_FINALIZER: 'kubernetes',
  EXEC_INFO_ENV: 'KUBERNETES_EXEC_INFO',
  CLIENT_AUTHENTICATION_GROUP: 'client.authentication.k8s.io',
  CLIENT_CONFIG_ENV: 'KUBECONFIG',
  INITIAL_EVENTS_END_ANNOTATION: 'k8s.io/initial-events-end',
  BOOTSTRAPPING_LABEL: 'kubernetes.io/bootstrapping',
  RBAC_AUTOUPDATE_ANNOTATION: 'rbac.authorization.kubernetes.io/autoupdate',
  APF_AUTOUPDATE_ANNOTATION: 'apf.kubernetes.io/autoupdate-spec',
  FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION: 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares',
  BATCH_LABEL_PREFIX: 'batch.kubernetes.io/',
  NAMESPACE_NAME_LABEL: 'kubernetes.io/metadata.name',
  SA_TOKEN_MOUNT_PATH: '/var/run/secrets/kubernetes.io/serviceaccount',
  SA_TOKEN_VOLUME_PREFIX: 'kube-api-access-',
  ROOT_CA_CONFIGMAP: 'kube-root-ca.crt',
  TAINT_NODE_NOT_READY: 'node.kubernetes.io/not-ready',
  LABEL_HOSTNAME: 'kubernetes.io/hostname',
  NAMESPACE_NODE_SELECTOR_ANNOTATION: 'scheduler.alpha.kubernetes.io/node-selector',
  POD_TOLERATION_RESTRICTION_CONFIG_GROUP: 'podtolerationrestriction.admission.k8s.io',
  DEFAULT_SA_ISSUER: 'https://kube-apiserver.kube-system.svc',
  REFERENCE_META_GROUP_ALIAS: 'meta.k8s.io',
  API_SERVICE_PROVIDER: 'kubernetes',
  AUDIT_GROUP: 'audit.k8s.io',
  AUDIT_AUTHZ_DECISION_ANNOTATION: 'authorization.k8s.io/decision',
  AUDIT_DEPRECATED_ANNOTATION: 'k8s.io/deprecated',
  WEBHOOK_FAILED_OPEN_VALIDATING_PREFIX: 'failed-open.validating.webhook.admission.k8s.io',
  POLICY_VALIDATION_FAILURE_ANNOTATION: 'validation.policy.admission.k8s.io/validation_failure',
  ADMISSION_CONFIG_GROUP: 'apiserver.config.k8s.io',
  ADMISSION_CONFIG_LEGACY_GROUP: 'apiserver.k8s.io',
  KUBE_APISERVER_CLIENT_SIGNER: 'kubernetes.io/kube-apiserver-client',
  POD_SECURITY_LABEL_PREFIX: 'pod-security.kubernetes.io/',
  POD_SECURITY_CONFIG_GROUP: 'pod-security.admission.config.k8s.io',
  IMAGE_POLICY_ANNOTATION_MARK: '.image-policy.k8s.io/',
  DEFAULT_STORAGE_CLASS_ANNOTATION: 'storageclass.kubernetes.io/is-default-class',
  PVC_PROTECTION_FINALIZER: 'kubernetes.io/pvc-protection',
  ABAC_GROUP: 'abac.authorization.kubernetes.io',
  NODE_RESTRICTION_LABEL_DOMAIN: 'node-restriction.kubernetes.io',
  KUBELET_LABEL_DOMAINS: ['kubelet.kubernetes.io', 'node.kubernetes.io'],
  ENCRYPTED_VALUE_PREFIX: 'k8s:enc:',
  APF_FLOWSCHEMA_UID_HEADER: 'X-Kubernetes-PF-FlowSchema-UID',
  APF_PRIORITY_LEVEL_UID_HEADER: 'X-Kubernetes-PF-PriorityLevel-UID',
  PROXY_CONFIG_GROUP: 'kubeproxy.config.k8s.io',
  PROXY_CONFIG_KIND: 'KubeProxyConfiguration',
  CONTROLLER_MANAGER_CONFIG_KIND: 'KubeControllerManagerConfiguration',
  CONTROLLER_MANAGER_LEASE_NAME: 'kube-controller-manager',
  SCHEDULER_CONFIG_GROUP: 'kubescheduler.config.k8s.io',
  SCHEDULER_CONFIG_KIND: 'KubeSchedulerConfiguration',
  SCHEDULER_LEASE_NAME: 'kube-scheduler',
  PACKAGE_NAME: 'orch',
};

describe('reference naming: the spellings (issue 21)', () => {
  it('reference behaviour: the k8s graph spells each naming.ts constant as the reference does', async () => {
    const k8s = (await namingGraph('k8s')).naming as unknown as Record<string, unknown>;
    const got = Object.fromEntries(Object.keys(REFERENCE_SPELLINGS).map((k) => [k, k8s[k]]));
    assert.deepEqual(got, REFERENCE_SPELLINGS);
    assert.equal(k8s.NAMING, 'k8s');
  });

  it('spec naming convention: the default graph keeps the orch spellings; the reference aliases differ from them', () => {
    assert.equal(naming.NAMING, 'orch');
    assert.equal(naming.RBAC_GROUP, 'rbac.authorization.orch.io');
    assert.equal(naming.NAMESPACE_NAME_LABEL, 'orch.io/metadata.name');
    assert.equal(naming.SYSTEM_NAMESPACE, 'orch-system');
    assert.equal(naming.ENCRYPTED_VALUE_PREFIX, 'orch:enc:');
    assert.notEqual(naming.REFERENCE_META_GROUP_ALIAS, naming.META_GROUP);
  });

  it('reference behaviour: with k8s naming the reference group aliases are the groups themselves', async () => {
    const k8s = (await namingGraph('k8s')).naming;
    assert.equal(k8s.REFERENCE_META_GROUP_ALIAS, k8s.META_GROUP);
    assert.equal(k8s.REFERENCE_AUTHENTICATION_GROUP_ALIAS, k8s.AUTHENTICATION_GROUP);
  });

  it('spec naming convention: respellGeneratedGroups leaves generated text as it is in the default naming', () => {
    const text = '{"group":"rbac.authorization.orch.io","kind":"Role"}';
    assert.equal(naming.respellGeneratedGroups(text), text);
  });

  it('spec naming convention: an unknown naming is a start-up error naming the option', async () => {
    await assert.rejects(startServer({ naming: 'kube' as never, port: 0, storage: { type: 'memory' } }), /^Error: naming: unknown naming "kube" \(one of: orch, k8s\)/);
  });
});

describe('two servers with different naming in one process (issue 21)', () => {
  let k8s: RunningServer;
  let orch: RunningServer;
  let dir: string;
  let k: ReturnType<typeof kubectl>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-naming-'));
    [k8s, orch] = await Promise.all([
      startServer({ naming: 'k8s', port: 0, dataDir: join(dir, 'k8s'), storage: { type: 'memory' }, writeKubeconfig: true }),
      startServer({ port: 0, storage: { type: 'memory' } }),
    ]);
    k = kubectl(k8s.kubeconfigPath!);
  });
  after(async () => {
    await Promise.all([k8s?.close(), orch?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec naming convention: each server reports its naming (RunningServer.naming)', () => {
    assert.equal(k8s.naming, 'k8s');
    assert.equal(orch.naming, 'orch');
  });

  it('reference behaviour: discovery shows rbac.authorization.k8s.io and apps on one, the orch groups on the other', async () => {
    const [a, b] = await Promise.all([client(k8s)('GET', '/apis'), client(orch)('GET', '/apis')]);
    const names = (r: typeof a) => (r.json.groups as { name: string }[]).map((g) => g.name);
    assert.ok(names(a).includes('rbac.authorization.k8s.io') && names(a).includes('apps'), names(a).join(' '));
    assert.ok(!names(a).some((n) => n.endsWith('.orch.io')), names(a).join(' '));
    assert.ok(names(b).includes('rbac.authorization.orch.io'), names(b).join(' '));
    assert.ok(!names(b).some((n) => n.endsWith('.k8s.io')), names(b).join(' '));
  });

  it('reference behaviour: kube-system, kube-public and kube-node-lease exist, labelled kubernetes.io/metadata.name', async () => {
    const list = (await client(k8s)('GET', '/api/v1/namespaces')).json.items as { metadata: { name: string; labels: Record<string, string> } }[];
    assert.deepEqual(list.map((n) => n.metadata.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    for (const n of list) assert.equal(n.metadata.labels['kubernetes.io/metadata.name'], n.metadata.name);
    const orchList = (await client(orch)('GET', '/api/v1/namespaces')).json.items as { metadata: { name: string } }[];
    assert.deepEqual(orchList.map((n) => n.metadata.name).sort(), ['default', 'orch-node-lease', 'orch-public', 'orch-system']);
  });

  it('reference behaviour: protobuf is served as application/vnd.kubernetes.protobuf, with the flow-control headers', async () => {
    const r = await client(k8s)('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    assert.ok(typeof r.headers['x-kubernetes-pf-flowschema-uid'] === 'string', JSON.stringify(r.headers));
    const o = await client(orch)('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/vnd.orch.protobuf' } });
    assert.equal(o.headers['content-type'], 'application/vnd.orch.protobuf');
    assert.ok(typeof o.headers['x-orch-pf-flowschema-uid'] === 'string', JSON.stringify(o.headers));
  });

  it('reference behaviour: kubectl auth can-i, can-i --list and whoami', async () => {
    assert.equal((await k(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
    assert.match(await k(['auth', 'can-i', '--list']), /selfsubjectaccessreviews\.authorization\.k8s\.io/);
    assert.match(await k(['auth', 'whoami']), /Username\s+orch-admin/);
  });

  it('reference behaviour: kubectl create token for a service account gives a token the server accepts', async () => {
    await k(['create', 'serviceaccount', 'bot']);
    const token = (await k(['create', 'token', 'bot'])).trim();
    const review = await client(k8s)('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(review.json.status?.userInfo?.username, 'system:serviceaccount:default:bot');
  });

  it('reference behaviour: kubectl create role and create clusterrolebinding', async () => {
    assert.match(await k(['create', 'role', 'reader', '--verb=get,list', '--resource=pods']), /role\.rbac\.authorization\.k8s\.io\/reader created/);
    assert.match(await k(['create', 'clusterrolebinding', 'alice-view', '--clusterrole=view', '--user=alice']), /clusterrolebinding\.rbac\.authorization\.k8s\.io\/alice-view created/);
    assert.equal((await k(['auth', 'can-i', 'list', 'configmaps', '--as=alice'])).trim(), 'yes');
  });

  it('reference behaviour: kubectl certificate approve on a CertificateSigningRequest', async () => {
    const key = join(dir, 'alice.key');
    const csr = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-subj', '/CN=alice'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const file = join(dir, 'csr.yaml');
    writeFileSync(file, `apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata: {name: alice}\nspec:\n  request: ${csr.toString('base64')}\n  signerName: kubernetes.io/kube-apiserver-client\n  usages: [client auth]\n`);
    assert.match(await k(['create', '-f', file]), /certificatesigningrequest\.certificates\.k8s\.io\/alice created/);
    assert.match(await k(['certificate', 'approve', 'alice']), /alice approved/);
    const got = parse(await k(['get', 'csr', 'alice', '-o', 'yaml']));
    assert.deepEqual(got.status.conditions.map((c: { type: string }) => c.type), ['Approved']);
  });

  it('reference behaviour: kubectl create deployment and get all', async () => {
    assert.match(await k(['create', 'deployment', 'web', '--image=nginx']), /deployment\.apps\/web created/);
    const all = await k(['get', 'all']);
    assert.match(all, /service\/kubernetes/);
    assert.match(all, /deployment\.apps\/web/);
  });
});

describe('orch-apiserver --naming (issue 21)', () => {
  after(() => stopAll());

  it('spec naming convention: an unknown --naming is a start-up error naming the flag', async () => {
    assert.match(await failsToStart(['--naming=kube', '--storage-backend=memory']), /--naming: unknown naming "kube" \(one of: orch, k8s\)/);
  });

  it('reference behaviour: --naming=k8s --workers=2 serves the reference spellings from every worker', async () => {
    const dataDir = tempDir('orch-naming-bin-');
    const s = await startApiserver([`--data-dir=${dataDir}`, '--naming=k8s', '--workers=2']);
    const k = kubectl(s.kubeconfig);
    await s.stderrLine(/all 2 workers serving/, 30_000);
    const target = targetOf(s.kubeconfig);
    // Several requests on fresh connections reach both workers (round-robin).
    for (let i = 0; i < 4; i++) {
      const groups = ((await client(target)('GET', '/apis')).json.groups as { name: string }[]).map((g) => g.name);
      assert.ok(groups.includes('rbac.authorization.k8s.io'), groups.join(' '));
    }
    assert.match(await k(['get', 'namespaces', '-o', 'name']), /namespace\/kube-system/);
  });
});
