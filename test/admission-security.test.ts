import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as x509 from '@peculiar/x509';
import { ADMISSION_CONFIG_GROUP, CERTIFICATES_GROUP, KUBE_APISERVER_CLIENT_SIGNER, POD_SECURITY_CONFIG_GROUP, POD_SECURITY_LABEL_PREFIX as P, RBAC_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { b64, certificatePem } from '../src/registry/resources/certificates/testing.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

async function requestPem(subject: string): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg })).toString('pem');
}

const PRIVILEGED = { hostNetwork: true, containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }] };
const PLAIN = { containers: [{ name: 'c', image: 'busybox' }] };
const podBody = (name: string, spec: object) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const warningsOf = (h: string | string[] | undefined): string => (Array.isArray(h) ? h.join('\n') : (h ?? ''));
const MERGE = { 'content-type': 'application/merge-patch+json' };
const CSRS = `/apis/${CERTIFICATES_GROUP}/v1/certificatesigningrequests`;

describe('PodSecurity and the certificate plugins in a running server (spec 1.6, reference behaviour)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-admission-security-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-carol,carol,uid-carol,"approvers"\ntok-exempt,ci-bot,uid-ci,"bots"\n');
    writeFileSync(join(dir, 'admission.yaml'), [
      `apiVersion: ${ADMISSION_CONFIG_GROUP}/v1`,
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: PodSecurity',
      '  configuration:',
      `    apiVersion: ${POD_SECURITY_CONFIG_GROUP}/v1`,
      '    kind: PodSecurityConfiguration',
      '    exemptions: {usernames: [ci-bot]}',
    ].join('\n'));
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, tokenAuthFile: join(dir, 'tokens.csv'), admissionControlConfigFile: join(dir, 'admission.yaml'), writeKubeconfig: true });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const namespace = async (name: string, labels: Record<string, string>) => {
    const r = await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
    assert.equal(r.status, 201, r.text);
  };

  it('reference behaviour (PodSecurity): enforce refuses a violating pod with 403 and stores nothing; warn answers a Warning header', async () => {
    await namespace('secure', { [`${P}enforce`]: 'baseline', [`${P}warn`]: 'restricted' });
    const denied = await call('POST', '/api/v1/namespaces/secure/pods', { body: podBody('bad', PRIVILEGED) });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.reason, 'Forbidden');
    assert.equal(denied.json.message, 'pods "bad" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)');
    assert.equal((await call('GET', '/api/v1/namespaces/secure/pods/bad')).status, 404);
    const warned = await call('POST', '/api/v1/namespaces/secure/pods', { body: podBody('plain', PLAIN) });
    assert.equal(warned.status, 201, warned.text);
    assert.match(warningsOf(warned.headers.warning), /299 - "would violate PodSecurity \\"restricted:latest\\": allowPrivilegeEscalation != false/);
  });

  it('reference behaviour (PodSecurity): a Deployment with a violating template is created with a warning, not refused; exempt users pass', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: PRIVILEGED } } };
    const r = await call('POST', '/apis/apps/v1/namespaces/secure/deployments', { body: deployment });
    assert.equal(r.status, 201, r.text);
    assert.match(warningsOf(r.headers.warning), /would violate PodSecurity \\"restricted:latest\\": host namespaces \(hostNetwork=true\)/);
    const exempt = await call('POST', '/api/v1/namespaces/secure/pods', { body: podBody('exempt', PRIVILEGED), token: 'tok-exempt' });
    assert.equal(exempt.status, 403, 'ci-bot has no RBAC permission to create pods: authorization comes first');
    const bind = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'RoleBinding', metadata: { name: 'bot-edit', namespace: 'secure' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'User', name: 'ci-bot', apiGroup: RBAC_GROUP }] };
    assert.equal((await call('POST', `/apis/${RBAC_GROUP}/v1/namespaces/secure/rolebindings`, { body: bind })).status, 201);
    const allowed = await call('POST', '/api/v1/namespaces/secure/pods', { body: podBody('exempt', PRIVILEGED), token: 'tok-exempt' });
    assert.equal(allowed.status, 201, allowed.text);
  });

  it('reference behaviour (PodSecurity): bad namespace labels are 422 naming the label; raising enforce warns about existing pods', async () => {
    const bad = await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'typo', labels: { [`${P}enforce`]: 'strict' } } } });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json.message, `namespaces "typo" is invalid: metadata.labels[${P}enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`);
    assert.equal((await call('GET', '/api/v1/namespaces/typo')).status, 404);
    await namespace('legacy', {});
    assert.equal((await call('POST', '/api/v1/namespaces/legacy/pods', { body: podBody('old', PRIVILEGED) })).status, 201);
    const raise = await call('PATCH', '/api/v1/namespaces/legacy', { raw: JSON.stringify({ metadata: { labels: { [`${P}enforce`]: 'baseline' } } }), headers: MERGE });
    assert.equal(raise.status, 200, raise.text);
    const w = warningsOf(raise.headers.warning);
    assert.match(w, /existing pods in namespace \\"legacy\\" violate the new PodSecurity enforce level \\"baseline:latest\\"/);
    assert.match(w, /old: host namespaces, privileged/);
    const badVersion = await call('PATCH', '/api/v1/namespaces/legacy', { raw: JSON.stringify({ metadata: { labels: { [`${P}enforce-version`]: 'v2' } } }), headers: MERGE });
    assert.equal(badVersion.status, 422, badVersion.text);
    assert.match(badVersion.json.message, /enforce-version\]: Invalid value: "v2": must be "latest" or "v1\.x"/);
  });

  it('reference behaviour (PodSecurity): real kubectl shows the refusal and the warning', async () => {
    const k = kubectl(server.kubeconfigPath!);
    await assert.rejects(k(['run', 'root', '-n', 'secure', '--image=busybox', '--overrides={"spec":{"hostPID":true}}']), /pods "root" is forbidden: violates PodSecurity "baseline:latest": host namespaces \(hostPID=true\)/);
    const { execFile } = await import('node:child_process');
    const stderr = await new Promise<string>((resolve, reject) =>
      execFile('kubectl', ['--kubeconfig', server.kubeconfigPath!, 'run', 'ok', '-n', 'secure', '--image=busybox'], (e, _out, err) => (e ? reject(new Error(err)) : resolve(err))));
    assert.match(stderr, /Warning: would violate PodSecurity "restricted:latest"/);
  });

  it('reference behaviour (CertificateApproval, CertificateSigning): approve and sign need those verbs on the signer', async () => {
    const role = (name: string, rules: object[]) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules });
    const bind = (name: string) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name }, subjects: [{ kind: 'User', name: 'carol', apiGroup: RBAC_GROUP }] });
    const CR = `/apis/${RBAC_GROUP}/v1/clusterroles`;
    const CRB = `/apis/${RBAC_GROUP}/v1/clusterrolebindings`;
    assert.equal((await call('POST', CR, { body: role('csr-writer', [{ apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status'], verbs: ['get', 'update', 'patch'] }]) })).status, 201);
    assert.equal((await call('POST', CRB, { body: bind('csr-writer') })).status, 201);
    const csr = { apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'web' }, spec: { signerName: 'example.com/web', request: b64(await requestPem('CN=web')), usages: ['server auth'] } };
    const created = await call('POST', CSRS, { body: csr });
    assert.equal(created.status, 201, created.text);
    const approve = (obj: any) => ({ ...obj, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'ByCarol', message: 'ok' }] } });
    const refused = await call('PUT', `${CSRS}/web/approval`, { body: approve(created.json), token: 'tok-carol' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, `certificatesigningrequests.${CERTIFICATES_GROUP} "web" is forbidden: user not permitted to approve requests with signerName "example.com/web"`);
    assert.equal((await call('GET', `${CSRS}/web`)).json.status?.conditions, undefined, 'nothing was stored');
    assert.equal((await call('POST', CR, { body: role('signer-approver', [{ apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }]) })).status, 201);
    assert.equal((await call('POST', CRB, { body: bind('signer-approver') })).status, 201);
    const approved = await call('PUT', `${CSRS}/web/approval`, { body: approve(created.json), token: 'tok-carol' });
    assert.equal(approved.status, 200, approved.text);
    const signed = { ...approved.json, status: { ...approved.json.status, certificate: b64(await certificatePem('web')) } };
    const noSign = await call('PUT', `${CSRS}/web/status`, { body: signed, token: 'tok-carol' });
    assert.equal(noSign.status, 403, noSign.text);
    assert.equal(noSign.json.message, `certificatesigningrequests.${CERTIFICATES_GROUP} "web" is forbidden: user not permitted to sign requests with signerName "example.com/web"`);
    assert.equal((await call('POST', CR, { body: role('signer-signer', [{ apiGroups: [CERTIFICATES_GROUP], resources: ['signers'], resourceNames: ['example.com/web'], verbs: ['sign'] }]) })).status, 201);
    assert.equal((await call('POST', CRB, { body: bind('signer-signer') })).status, 201);
    const ok = await call('PUT', `${CSRS}/web/status`, { body: signed, token: 'tok-carol' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.status.certificate, signed.status.certificate);
  });

  it('reference behaviour (CertificateSubjectRestriction): a client-signer CSR asking for system:masters is 403; other organizations pass', async () => {
    const csr = async (name: string, subject: string) => ({ apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec: { signerName: KUBE_APISERVER_CLIENT_SIGNER, request: b64(await requestPem(subject)), usages: ['client auth'] } });
    const masters = await call('POST', CSRS, { body: await csr('root', 'CN=mallory, O=system:masters') });
    assert.equal(masters.status, 403, masters.text);
    assert.equal(masters.json.message, `certificatesigningrequests.${CERTIFICATES_GROUP} "root" is forbidden: use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
    assert.equal((await call('GET', `${CSRS}/root`)).status, 404);
    assert.equal((await call('POST', CSRS, { body: await csr('dev', 'CN=dev, O=developers') })).status, 201);
  });
});
