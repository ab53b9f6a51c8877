import assert from 'node:assert/strict';
import { X509Certificate, webcrypto } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as x509 from '@peculiar/x509';
import { CERTIFICATES_GROUP, KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER, RBAC_GROUP } from '../src/api/naming.js';
import { Client } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import { csrApprovingController, csrSigningController } from '../src/controllers/certificates/index.js';
import { startServer, type TestServer } from '../src/index.js';
import { eventually, gvr, runController, type KubeObject } from './controllers-misc-harness.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const CSRS = gvr(CERTIFICATES_GROUP, 'v1', 'certificatesigningrequests');
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];
const DAY = 24 * 3600_000;

const newKeys = () => webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

async function makeCa(): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test-cluster-signer',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 30 * DAY),
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return { certPem: cert.toString('pem'), keyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join('\n')}\n-----END PRIVATE KEY-----\n` };
}

async function requestPem(subject: string, dns: string[] = []): Promise<string> {
  const extensions = dns.length > 0 ? [new x509.SubjectAlternativeNameExtension(dns.map((value) => ({ type: 'dns' as const, value })))] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: await newKeys(), signingAlgorithm: EC, extensions });
  return csr.toString('pem');
}

function csrObject(name: string, pem: string, signerName: string, usages: string[], expirationSeconds?: number): KubeObject {
  const spec: Record<string, unknown> = { request: Buffer.from(pem).toString('base64'), signerName, usages };
  if (expirationSeconds !== undefined) spec.expirationSeconds = expirationSeconds;
  return { apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec };
}

const conditions = (csr: KubeObject) => ((csr.status as { conditions?: { type: string; reason?: string; message?: string }[] } | undefined)?.conditions ?? []);

let server: TestServer;
let admin: Client;
before(async () => {
  server = await startServer({ controllers: [], users: [{ name: 'joiner' }, { name: 'system:node:n1', groups: ['system:nodes'] }] });
  admin = new Client(connectionForServer(server));
  // Both may create requests; only the node may ask for its own client certificate.
  const rules = [{ apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] }];
  await server.apply([
    { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'csr-create' }, rules },
    { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name: 'csr-self' }, rules: [{ apiGroups: [CERTIFICATES_GROUP], resources: ['certificatesigningrequests/selfnodeclient'], verbs: ['create'] }] },
    { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'csr-create' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'csr-create' }, subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'joiner' }, { apiGroup: RBAC_GROUP, kind: 'User', name: 'system:node:n1' }] },
    { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'csr-self' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'csr-self' }, subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'system:node:n1' }] },
  ]);
});
after(async () => {
  admin.close();
  await server.close();
});

function clientAs(user: string): Client {
  return new Client(connectionForServer({ ...server, adminToken: server.tokens[user] as string }));
}

describe('certificatesigningrequest-approving-controller', () => {
  it('reference behaviour: approves node client requests the requester may make (nodeclient, selfnodeclient), and no others', async () => {
    const running = runController(server, csrApprovingController);
    const joiner = clientAs('joiner');
    const node = clientAs('system:node:n1');
    try {
      const nodeSubject = 'CN=system:node:n1, O=system:nodes';
      await admin.resource(CSRS).create(csrObject('by-admin', await requestPem(nodeSubject), KUBE_APISERVER_CLIENT_KUBELET_SIGNER, CLIENT_USAGES));
      await node.resource(CSRS).create(csrObject('by-node', await requestPem(nodeSubject), KUBE_APISERVER_CLIENT_KUBELET_SIGNER, ['digital signature', 'client auth']));
      await joiner.resource(CSRS).create(csrObject('by-joiner', await requestPem(nodeSubject), KUBE_APISERVER_CLIENT_KUBELET_SIGNER, CLIENT_USAGES));
      await admin.resource(CSRS).create(csrObject('other-signer', await requestPem(nodeSubject), KUBE_APISERVER_CLIENT_SIGNER, CLIENT_USAGES));
      await admin.resource(CSRS).create(csrObject('with-dns', await requestPem(nodeSubject, ['n1.example']), KUBE_APISERVER_CLIENT_KUBELET_SIGNER, CLIENT_USAGES));

      for (const [name, message] of [['by-admin', /node client certificates/], ['by-node', /its own client certificate/]] as const) {
        const approved = await eventually(`${name} approved`, async () => {
          const csr = await admin.resource(CSRS).get(name);
          return conditions(csr).length > 0 ? csr : undefined;
        });
        const [c] = conditions(approved);
        assert.equal(c?.type, 'Approved', name);
        assert.equal(c?.reason, 'AutoApproved', name);
        assert.match(c?.message ?? '', message, name);
      }
      await new Promise((r) => setTimeout(r, 500));
      for (const name of ['by-joiner', 'other-signer', 'with-dns']) assert.deepEqual(conditions(await admin.resource(CSRS).get(name)), [], name);
    } finally {
      joiner.close();
      node.close();
      await running.stop();
    }
  });
});

describe('certificatesigningrequest-signing-controller', () => {
  it('reference behaviour: signs approved requests of the built-in signers with the cluster CA (chain, usages, NotAfter) and fails refused ones', async () => {
    const ca = await makeCa();
    const caCert = new X509Certificate(ca.certPem);
    const running = runController(server, csrSigningController, { clusterSigning: ca, clusterSigningDurationMs: 2 * DAY });
    try {
      const approve = async (name: string) => {
        const csr = await admin.resource(CSRS).get(name);
        await admin.resource(CSRS).update({ ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } }, { subresource: 'approval' });
      };
      const started = Date.now();
      const create = (o: KubeObject) => admin.resource(CSRS).create(o);
      await create(csrObject('client', await requestPem('CN=system:node:n1, O=system:nodes'), KUBE_APISERVER_CLIENT_KUBELET_SIGNER, CLIENT_USAGES, 3600));
      await create(csrObject('serving', await requestPem('CN=system:node:n1, O=system:nodes', ['n1.example']), KUBELET_SERVING_SIGNER, ['digital signature', 'server auth']));
      await create(csrObject('refused', await requestPem('CN=alice'), KUBE_APISERVER_CLIENT_SIGNER, ['client auth', 'server auth']));
      await create(csrObject('unapproved', await requestPem('CN=bob'), KUBE_APISERVER_CLIENT_SIGNER, ['client auth']));
      await create(csrObject('custom', await requestPem('CN=carol'), 'example.com/custom', ['client auth']));
      for (const name of ['client', 'serving', 'refused', 'custom']) await approve(name);

      const issued = async (name: string) => {
        const csr = await eventually(`${name} issued`, async () => {
          const o = await admin.resource(CSRS).get(name);
          return (o.status as { certificate?: string } | undefined)?.certificate ? o : undefined;
        });
        return new X509Certificate(Buffer.from((csr.status as { certificate: string }).certificate, 'base64'));
      };
      const client = await issued('client');
      assert.equal(client.checkIssued(caCert), true);
      assert.equal(client.verify(caCert.publicKey), true);
      assert.match(client.subject, /CN=system:node:n1/);
      assert.match(client.subject, /O=system:nodes/);
      assert.deepEqual(client.keyUsage, ['1.3.6.1.5.5.7.3.2']);
      const clientKu = new x509.X509Certificate(client.raw).getExtension(x509.KeyUsagesExtension);
      assert.equal(clientKu?.usages, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
      assert.equal(client.ca, false);
      // expirationSeconds (1 h) is shorter than the signer's 2 days, and short lifetimes are not backdated at the end.
      const clientEnd = Date.parse(client.validTo);
      assert.ok(Math.abs(clientEnd - (started + 3600_000)) < 60_000, `NotAfter ${client.validTo} is about one hour from now`);

      const serving = await issued('serving');
      assert.equal(serving.verify(caCert.publicKey), true);
      assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1']);
      assert.equal(serving.subjectAltName, 'DNS:n1.example');
      const servingLife = Date.parse(serving.validTo) - Date.parse(serving.validFrom);
      assert.ok(Math.abs(servingLife - 2 * DAY) < 2000, 'the signer duration when none is requested');

      const refused = await eventually('refused failed', async () => {
        const o = await admin.resource(CSRS).get('refused');
        return conditions(o).some((c) => c.type === 'Failed') ? o : undefined;
      });
      const failed = conditions(refused).find((c) => c.type === 'Failed');
      assert.equal(failed?.reason, 'SignerValidationFailure');
      assert.equal(failed?.message, 'invalid usage for client certificate: server auth');
      for (const name of ['unapproved', 'custom']) {
        const o = await admin.resource(CSRS).get(name);
        assert.equal((o.status as { certificate?: string } | undefined)?.certificate, undefined, name);
      }
    } finally {
      await running.stop();
    }
  });

  it('reference behaviour: without signing files the controller signs nothing, says so once, and stops on abort', async () => {
    const running = runController(server, csrSigningController);
    await admin.resource(CSRS).create(csrObject('no-signer', await requestPem('CN=dave'), KUBE_APISERVER_CLIENT_SIGNER, ['client auth']));
    const csr = await admin.resource(CSRS).get('no-signer');
    await admin.resource(CSRS).update({ ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'x' }] } }, { subresource: 'approval' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(((await admin.resource(CSRS).get('no-signer')).status as { certificate?: string }).certificate, undefined);
    await running.stop();
    assert.equal(running.logs.length, 1);
    assert.match(running.logs[0] ?? '', /no cluster signing certificate/);
  });
});
