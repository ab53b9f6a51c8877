import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ADMISSION_CONFIG_GROUP,
  AUTHORIZATION_GROUP,
  CERTIFICATES_GROUP,
  PV_PROTECTION_FINALIZER,
  PVC_PROTECTION_FINALIZER,
  RBAC_GROUP,
  RESOURCE_QUOTA_CONFIG_GROUP,
  STORAGE_GROUP,
} from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { caCertificatePem } from '../src/registry/resources/certificates/testing.js';
import { failsToStart, stopAll, tempDir } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';

const NS = 'plugins-b';
const CLAIMS = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const BUNDLES = `/apis/${CERTIFICATES_GROUP}/v1alpha1/clustertrustbundles`;
const DAVE = 'tok-dave';

const claim = (name: string, storageClassName: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName },
});
const clusterRole = (name: string, rules: object[]) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
const bindToDave = (name: string, role: string) => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'ClusterRoleBinding',
  metadata: { name },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'dave' }],
});

describe('admission plugins set B in a running server (spec 1.6, 2.12)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const grant = async (name: string, rules: object[]) => {
    assert.equal((await call('POST', `/apis/${RBAC_GROUP}/v1/clusterroles`, { body: clusterRole(name, rules) })).status, 201);
    assert.equal((await call('POST', `/apis/${RBAC_GROUP}/v1/clusterrolebindings`, { body: bindToDave(name, name) })).status, 201);
    // The RBAC index follows the watch; wait until the grant is visible to the authorizer.
    const deadline = Date.now() + 5000;
    for (;;) {
      const r = await call('POST', `/apis/${AUTHORIZATION_GROUP}/v1/subjectaccessreviews`, {
        body: { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SubjectAccessReview', spec: { user: 'dave', resourceAttributes: rulesProbe(rules) } },
      });
      if (r.json?.status?.allowed === true) return;
      if (Date.now() > deadline) throw new Error(`grant ${name} not visible: ${r.text}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  /** A check the first rule grants (to know the grant has reached the authorizer). */
  const rulesProbe = (rules: object[]) => {
    const r = rules[0] as { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
    const [resource, subresource] = r.resources[0]!.split('/');
    return { group: r.apiGroups[0], resource, ...(subresource ? { subresource } : {}), verb: r.verbs[0], namespace: NS, ...(r.resourceNames ? { name: r.resourceNames[0] } : {}) };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-admission-b-'));
    writeFileSync(join(dir, 'tokens.csv'), `${DAVE},dave,uid-dave,devs\n`);
    writeFileSync(
      join(dir, 'admission.yaml'),
      [
        `apiVersion: ${ADMISSION_CONFIG_GROUP}/v1`,
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: ResourceQuota',
        '  configuration:',
        `    apiVersion: ${RESOURCE_QUOTA_CONFIG_GROUP}/v1`,
        '    kind: Configuration',
        '    limitedResources:',
        '    - resource: pods',
        '      matchContains: [requests.cpu]',
      ].join('\n'),
    );
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'memory' },
      tokenAuthFile: join(dir, 'tokens.csv'),
      runtimeConfig: `${CERTIFICATES_GROUP}/v1alpha1=true`,
      enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'],
      admissionControlConfigFile: join(dir, 'admission.yaml'),
    });
    call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
    await grant('b-configmaps', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'patch'] }]);
    await grant('b-bundles', [{ apiGroups: [CERTIFICATES_GROUP], resources: ['clustertrustbundles'], verbs: ['create', 'get', 'update'] }]);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour (StorageObjectInUseProtection): new claims and volumes carry the protection finalizers', async () => {
    const pvc = await call('POST', CLAIMS, { body: claim('protected', 'none') });
    assert.equal(pvc.status, 201, pvc.text);
    assert.deepEqual(pvc.json.metadata.finalizers, [PVC_PROTECTION_FINALIZER]);
    const pv = await call('POST', '/api/v1/persistentvolumes', {
      body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-b' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } } },
    });
    assert.equal(pv.status, 201, pv.text);
    assert.deepEqual(pv.json.metadata.finalizers, [PV_PROTECTION_FINALIZER]);
    // Deleting a protected claim only marks it, until something removes the finalizer.
    const del = await call('DELETE', `${CLAIMS}/protected`);
    assert.equal(del.status, 202, del.text);
    assert.ok((await call('GET', `${CLAIMS}/protected`)).json.metadata.deletionTimestamp);
  });

  it('reference behaviour (PersistentVolumeClaimResize): a bound claim grows only when its StorageClass allows expansion', async () => {
    const classes = `/apis/${STORAGE_GROUP}/v1/storageclasses`;
    for (const [name, allow] of [['b-grows', true], ['b-fixed', false]] as const) {
      const r = await call('POST', classes, { body: { apiVersion: `${STORAGE_GROUP}/v1`, kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/p', allowVolumeExpansion: allow } });
      assert.equal(r.status, 201, r.text);
    }
    const grow = (name: string) =>
      call('PATCH', `${CLAIMS}/${name}`, { raw: JSON.stringify({ spec: { resources: { requests: { storage: '2Gi' } } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    for (const [name, cls] of [['c-grows', 'b-grows'], ['c-fixed', 'b-fixed']] as const) {
      const created = await call('POST', CLAIMS, { body: claim(name, cls) });
      assert.equal(created.status, 201, created.text);
      const bound = await call('PUT', `${CLAIMS}/${name}/status`, { body: { ...created.json, status: { phase: 'Bound', capacity: { storage: '1Gi' } } } });
      assert.equal(bound.status, 200, bound.text);
    }
    const ok = await grow('c-grows');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.spec.resources.requests.storage, '2Gi');
    const refused = await grow('c-fixed');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message,
      'persistentvolumeclaims "c-fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  });

  it('reference behaviour (OwnerReferencesPermissionEnforcement): blocking an owner needs its finalizers; changing references needs delete', async () => {
    const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'uid-rs', blockOwnerDeletion: true };
    const cm = (name: string, ownerReferences?: object[]) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(ownerReferences ? { ownerReferences } : {}) } });
    const blocked = await call('POST', CONFIGMAPS, { body: cm('blocking', [owner]), token: DAVE });
    assert.equal(blocked.status, 403, blocked.text);
    assert.match(blocked.json.message, /^configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: /);
    assert.equal((await call('POST', CONFIGMAPS, { body: cm('blocking', [owner]) })).status, 201, 'the administrator may');
    const plain = await call('POST', CONFIGMAPS, { body: cm('plain'), token: DAVE });
    assert.equal(plain.status, 201, plain.text);
    const adopt = () => call('PUT', `${CONFIGMAPS}/plain`, { body: { ...plain.json, metadata: { ...plain.json.metadata, ownerReferences: [{ ...owner, blockOwnerDeletion: false }] } }, token: DAVE });
    const refused = await adopt();
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /^configmaps "plain" is forbidden: cannot set an ownerRef on a resource you can't delete: /);
    await grant('b-delete-configmaps', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }]);
    const adopted = await adopt();
    assert.equal(adopted.status, 200, adopted.text);
    await grant('b-rs-finalizers', [{ apiGroups: ['apps'], resources: ['replicasets/finalizers'], verbs: ['update'], resourceNames: ['rs'] }]);
    const nowBlocking = await call('POST', CONFIGMAPS, { body: cm('blocking-2', [owner]), token: DAVE });
    assert.equal(nowBlocking.status, 201, nowBlocking.text);
  });

  it('reference behaviour (ClusterTrustBundleAttest): a bundle for a signer needs attest on the signer', async () => {
    // A signer's bundle is named `<signerName with ':' for '/'>:<suffix>` and holds real CA certificates.
    const bundle = { apiVersion: `${CERTIFICATES_GROUP}/v1alpha1`, kind: 'ClusterTrustBundle', metadata: { name: 'example.com:signer:one' }, spec: { signerName: 'example.com/signer', trustBundle: await caCertificatePem('signer root') } };
    const refused = await call('POST', BUNDLES, { body: bundle, token: DAVE });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, `clustertrustbundles.${CERTIFICATES_GROUP} "example.com:signer:one" is forbidden: user not permitted to attest for signerName "example.com/signer"`);
    await grant('b-attest', [{ apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], verbs: ['attest'], resourceNames: ['example.com/*'] }]);
    const created = await call('POST', BUNDLES, { body: bundle, token: DAVE });
    assert.equal(created.status, 201, created.text);
  });

  it('spec 2.12 / reference behaviour (ResourceQuota limitedResources): consuming a limited resource needs a covering quota', async () => {
    const pod = (name: string, cpu?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'busybox', ...(cpu ? { resources: { requests: { cpu } } } : {}) }] },
    });
    const PODS = `/api/v1/namespaces/${NS}/pods`;
    const refused = await call('POST', PODS, { body: pod('hungry', '100m') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'pods "hungry" is forbidden: insufficient quota to consume: requests.cpu');
    assert.equal((await call('POST', PODS, { body: pod('modest') })).status, 201, 'a pod requesting no cpu needs no quota');
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'cpu' }, spec: { hard: { 'requests.cpu': '1' } } };
    assert.equal((await call('POST', `/api/v1/namespaces/${NS}/resourcequotas`, { body: quota })).status, 201);
    const deadline = Date.now() + 5000;
    let admitted;
    do admitted = await call('POST', PODS, { body: pod('hungry', '100m') });
    while (admitted.status === 403 && /insufficient quota/.test(admitted.text) && Date.now() < deadline);
    assert.equal(admitted.status, 201, admitted.text);
  });
});

describe('ResourceQuota configuration through the real orch-apiserver (spec 2.12)', () => {
  after(() => stopAll());

  it('spec 2.12: a bad ResourceQuota configuration fails the start with the field path', async () => {
    const dir = tempDir('orch-admission-b-');
    const doc = (entries: string) =>
      [`apiVersion: ${ADMISSION_CONFIG_GROUP}/v1`, 'kind: AdmissionConfiguration', 'plugins:', '- name: ResourceQuota', '  configuration:', `    apiVersion: ${RESOURCE_QUOTA_CONFIG_GROUP}/v1`, '    kind: Configuration', '    limitedResources:', entries].join('\n');
    const table: [string, RegExp][] = [
      ['    - matchContains: [cpu]', /admission plugin ResourceQuota: limitedResources\[0\]\.resource: Required value/],
      ['    - resource: pods\n      matchScopes: [{scopeName: Sometimes, operator: Exists}]', /limitedResources\[0\]\.matchScopes\[0\]\.scopeName: Unsupported value: "Sometimes"/],
    ];
    for (const [entries, want] of table) {
      const file = join(dir, 'rq.yaml');
      writeFileSync(file, doc(entries));
      assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, `--admission-control-config-file=${file}`]), want);
    }
  });
});
