import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as x509 from '@peculiar/x509';
import { parse as parseYaml } from 'yaml';
import { CERTIFICATES_GROUP, LABEL_DOMAIN, RBAC_GROUP } from '../src/api/naming.js';
import { Client, type KubeObject } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import { startServer, type TestServer } from '../src/index.js';
import { ensureServingCerts, issueClientCert } from '../src/server/tls.js';
import { kubectlProcess, orchctl } from './orchctl-create-helpers.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** A PKCS#10 request of a fresh P-256 key. */
async function requestPem(subject: string): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg })).toString('pem');
}

/**
 * kubectl's generated object, respelled to this naming, without the nulls its Go types print for fields
 * never set (`creationTimestamp: null`, `rules: null` of an aggregated role).
 */
function respelled(text: string): KubeObject {
  const obj = JSON.parse(text.replaceAll('rbac.authorization.k8s.io', RBAC_GROUP).replaceAll('kubernetes.io/', `${LABEL_DOMAIN}/`)) as KubeObject;
  delete obj.metadata.creationTimestamp;
  for (const [k, v] of Object.entries(obj)) if (v === null) delete obj[k];
  return obj;
}

describe('orchctl create <kind> and certificate approve|deny against a server (reference behaviour)', () => {
  let server: TestServer;
  let kc: string;
  let admin: Client;
  let dir: string;
  before(async () => {
    server = await startServer();
    kc = server.writeKubeconfig();
    admin = new Client(connectionForServer(server));
    dir = mkdtempSync(join(tmpdir(), 'orchctl-create-'));
    await admin.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  });
  after(async () => {
    admin.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lines: [string, string[], string][] = [
    ['namespace', ['create', 'namespace', 'made-ns'], 'namespace/made-ns created\n'],
    ['configmap', ['create', 'configmap', 'cm1', '-n', 'team', '--from-literal=a=1'], 'configmap/cm1 created\n'],
    ['generic secret', ['create', 'secret', 'generic', 's1', '-n', 'team', '--from-literal=p=x'], 'secret/s1 created\n'],
    ['serviceaccount', ['create', 'serviceaccount', 'robot', '-n', 'team'], 'serviceaccount/robot created\n'],
    ['role', ['create', 'role', 'reader', '-n', 'team', '--verb=get,list', '--resource=pods,deploy.apps'], `role.${RBAC_GROUP}/reader created\n`],
    ['rolebinding (subject --user after the command)', ['create', 'rolebinding', 'rb', '-n', 'team', '--role=reader', '--user', 'alice', '--user=bob'], `rolebinding.${RBAC_GROUP}/rb created\n`],
    ['clusterrole', ['create', 'clusterrole', 'probe', '--verb=get', '--non-resource-url=/healthz'], `clusterrole.${RBAC_GROUP}/probe created\n`],
    ['clusterrolebinding', ['create', 'clusterrolebinding', 'crb', '--clusterrole=probe', '--group=devs'], `clusterrolebinding.${RBAC_GROUP}/crb created\n`],
    ['server dry run', ['create', 'configmap', 'dry', '-n', 'team', '--dry-run=server'], 'configmap/dry created (server dry run)\n'],
    ['client dry run', ['create', 'namespace', 'dry', '--dry-run=client'], 'namespace/dry created (dry run)\n'],
    ['-o name', ['create', 'configmap', 'named', '-n', 'team', '-o', 'name'], 'configmap/named\n'],
  ];
  for (const [title, args, want] of lines) {
    it(`reference behaviour: create ${title} prints "${want.trim()}" and exits 0`, async () => {
      const r = await orchctl(kc, args);
      assert.deepEqual(r, { code: 0, stdout: want, stderr: '' });
    });
  }

  it('reference behaviour: the stored objects are what the generators built (binding subjects, role rules, dry runs not stored)', async () => {
    const rb = await admin.resource({ group: RBAC_GROUP, version: 'v1', plural: 'rolebindings' }, 'team').get('rb');
    assert.deepEqual(rb.subjects, [
      { kind: 'User', apiGroup: RBAC_GROUP, name: 'alice' },
      { kind: 'User', apiGroup: RBAC_GROUP, name: 'bob' },
    ]);
    const role = await admin.resource({ group: RBAC_GROUP, version: 'v1', plural: 'roles' }, 'team').get('reader');
    assert.deepEqual(role.rules, [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] },
    ]);
    const cms = await admin.resource({ group: '', version: 'v1', plural: 'configmaps' }, 'team').list();
    assert.deepEqual(cms.items.map((c) => c.metadata.name).filter((n) => n !== 'orch-root-ca.crt' && !n?.endsWith('root-ca.crt')).sort(), ['cm1', 'named']);
  });

  it('reference behaviour: a global --user before the command still selects the kubeconfig user', async () => {
    const r = await orchctl(kc, ['--user', 'nobody-in-this-file', 'create', 'clusterrolebinding', 'x', '--clusterrole=view', '--user=carol']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /nobody-in-this-file/);
  });

  const rbacKinds: [string, string[]][] = [
    ['role', ['role', 'r', '--verb=get', '--verb=watch', '--resource=pods/log,configmaps', '--resource-name=a']],
    ['clusterrole with URLs', ['clusterrole', 'c', '--verb=get', '--resource=deploy.apps', '--non-resource-url=/logs/*']],
    ['clusterrole with an aggregation rule', ['clusterrole', 'agg', '--aggregation-rule=x=true']],
  ];
  for (const [title, args] of rbacKinds) {
    it(`reference behaviour: create ${title} -o json --dry-run=client matches kubectl on the same server`, async () => {
      const ours = await orchctl(kc, ['create', ...args, '--dry-run=client', '-o', 'json']);
      const theirs = await kubectlProcess(kc, ['create', ...args, '--dry-run=client', '-o', 'json']);
      assert.equal(theirs.code, 0, theirs.stderr);
      assert.equal(ours.code, 0, ours.stderr);
      assert.deepEqual(JSON.parse(ours.stdout), respelled(theirs.stdout));
    });
  }

  const refusals: [string, string[], RegExp][] = [
    ['an unknown resource', ['create', 'role', 'r', '--verb=get', '--resource=nothings'], /error: the server doesn't have a resource type "nothings"/],
    ['a role binding without a role', ['create', 'rolebinding', 'b'], /error: exactly one of --clusterrole or --role must be given/],
    ['--from-env-file with --from-literal', ['create', 'configmap', 'c', '--from-env-file=x', '--from-literal=a=b'], /error: --from-env-file cannot be combined/],
    ['a bad --dry-run', ['create', 'namespace', 'n', '--dry-run=maybe'], /--dry-run/],
    ['an existing object', ['create', 'namespace', 'team'], /Error from server \(AlreadyExists\): namespaces "team" already exists/],
    ['a missing name', ['create', 'configmap'], /missing required argument/],
  ];
  for (const [title, args, want] of refusals) {
    it(`reference behaviour: create refuses ${title} with exit code 1`, async () => {
      const r = await orchctl(kc, args);
      assert.equal(r.code, 1);
      assert.match(r.stderr, want);
      assert.equal(r.stdout, '');
    });
  }

  it('reference behaviour: create secret tls stores the pair under tls.crt and tls.key and refuses a key of another certificate', async () => {
    const ca = await ensureServingCerts(join(dir, 'ca'), { hosts: [] });
    const one = await issueClientCert(ca, { commonName: 'one' });
    const two = await issueClientCert(ca, { commonName: 'two' });
    writeFileSync(join(dir, 'one.crt'), one.certPem);
    writeFileSync(join(dir, 'one.key'), one.keyPem);
    writeFileSync(join(dir, 'two.key'), two.keyPem);
    const ok = await orchctl(kc, ['create', 'secret', 'tls', 'web-tls', '-n', 'team', `--cert=${join(dir, 'one.crt')}`, `--key=${join(dir, 'one.key')}`, '-o', 'yaml']);
    assert.equal(ok.code, 0, ok.stderr);
    const stored = parseYaml(ok.stdout) as KubeObject;
    assert.equal(stored.type, `${LABEL_DOMAIN}/tls`);
    assert.equal(Buffer.from((stored.data as Record<string, string>)['tls.crt']!, 'base64').toString(), one.certPem);
    const bad = await orchctl(kc, ['create', 'secret', 'tls', 'bad', '-n', 'team', `--cert=${join(dir, 'one.crt')}`, `--key=${join(dir, 'two.key')}`]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /failed to load key pair: the private key does not match the certificate/);
  });

  describe('certificate approve and deny', () => {
    const csr = async (name: string) => {
      const csrPem = await requestPem(`CN=${name}`);
      await admin.resource({ group: CERTIFICATES_GROUP, version: 'v1', plural: 'certificatesigningrequests' }).create({
        apiVersion: `${CERTIFICATES_GROUP}/v1`,
        kind: 'CertificateSigningRequest',
        metadata: { name },
        spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'example.com/signer', usages: ['client auth'] },
      });
    };
    const conditions = async (name: string) =>
      (((await admin.resource({ group: CERTIFICATES_GROUP, version: 'v1', plural: 'certificatesigningrequests' }).get(name)).status as { conditions?: { type: string; reason: string }[] } | undefined)?.conditions ?? []).map((c) => `${c.type}/${c.reason}`);

    it('reference behaviour: approve adds Approved once, prints "<resource>/<name> approved", and deny of it then fails', async () => {
      await csr('csr-a');
      const first = await orchctl(kc, ['certificate', 'approve', 'csr-a']);
      assert.deepEqual(first, { code: 0, stdout: `certificatesigningrequest.${CERTIFICATES_GROUP}/csr-a approved\n`, stderr: '' });
      const again = await orchctl(kc, ['certificate', 'approve', 'csr-a']);
      assert.equal(again.code, 0);
      assert.deepEqual(await conditions('csr-a'), ['Approved/OrchctlApprove']);
      const deny = await orchctl(kc, ['certificate', 'deny', 'csr-a']);
      assert.equal(deny.code, 1);
      assert.match(deny.stderr, /certificate signing request "csr-a" is already Approved/);
    });

    it('reference behaviour: deny adds Denied; a missing request is a NotFound error while the others are still decided', async () => {
      await csr('csr-d');
      const r = await orchctl(kc, ['certificate', 'deny', 'missing', 'csr-d']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /Error from server \(NotFound\): .*"missing" not found/);
      assert.equal(r.stdout, `certificatesigningrequest.${CERTIFICATES_GROUP}/csr-d denied\n`);
      assert.deepEqual(await conditions('csr-d'), ['Denied/OrchctlDeny']);
    });
  });
});
