import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import * as x509 from '@peculiar/x509';
import { CERTIFICATES_GROUP, KUBE_APISERVER_CLIENT_SIGNER } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionDeps, AdmissionPlugin, AdmissionRequest, AuthorizationCheck } from '../types.js';
import {
  certificateApprovalPlugin,
  CertificateApprovalPlugin,
  CertificateSigningPlugin,
  CertificateSubjectRestrictionPlugin,
  changesSignerFields,
  signerPermissionNames,
} from './certificates.js';
import { certificateRequestDer, requestedOrganizations, subjectOrganizations } from './csr-subject.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

async function requestFor(subject: string): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg });
  return Buffer.from(csr.toString('pem')).toString('base64');
}

const MASTERS = await requestFor('CN=mallory, O=system:masters');
const PLAIN = await requestFor('CN=alice, O=devs, O=ops');

/** Allows exactly the `<verb> <name>` pairs given, and records every check asked. */
function grants(...allowed: string[]) {
  const asked: AuthorizationCheck[] = [];
  const authorize = async (_u: unknown, c: AuthorizationCheck) => {
    asked.push(c);
    return allowed.includes(`${c.verb} ${c.name}`);
  };
  return { authorize, asked };
}

const csr = (signerName: string, status: Record<string, unknown> = {}, request = PLAIN): ApiObject => ({
  apiVersion: `${CERTIFICATES_GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name: 'req' },
  spec: { signerName, request, usages: ['client auth'] },
  status,
});
const write = (operation: 'CREATE' | 'UPDATE', subResource: string, object: ApiObject, oldObject?: ApiObject): AdmissionRequest =>
  admissionRequest({
    operation,
    subResource,
    namespace: '',
    name: 'req',
    resource: { group: CERTIFICATES_GROUP, version: 'v1', resource: 'certificatesigningrequests' },
    kind: { group: CERTIFICATES_GROUP, version: 'v1', kind: 'CertificateSigningRequest' },
    object,
    ...(oldObject ? { oldObject } : {}),
  });
const APPROVED = { conditions: [{ type: 'Approved', status: 'True', reason: 'OK' }] };

async function outcome(plugin: AdmissionPlugin, req: AdmissionRequest): Promise<string> {
  try {
    await plugin.validate!(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

admissionPluginContract('CertificateApproval', {
  make: () => new CertificateApprovalPlugin(grants('approve example.com/*').authorize),
  cases: [
    { title: 'an allowed approval', request: () => write('UPDATE', 'approval', csr('example.com/a', APPROVED), csr('example.com/a')) },
    { title: 'a refused approval', request: () => write('UPDATE', 'approval', csr('other.io/a', APPROVED), csr('other.io/a')) },
  ],
});
admissionPluginContract('CertificateSigning', {
  make: () => new CertificateSigningPlugin(grants('sign example.com/a').authorize),
  cases: [
    { title: 'an allowed signature', request: () => write('UPDATE', 'status', csr('example.com/a', { certificate: 'Y2VydA==' }), csr('example.com/a')) },
    { title: 'a refused signature', request: () => write('UPDATE', 'status', csr('other.io/a', { certificate: 'Y2VydA==' }), csr('other.io/a')) },
  ],
});
admissionPluginContract('CertificateSubjectRestriction', {
  make: () => new CertificateSubjectRestrictionPlugin(),
  cases: [
    { title: 'a plain client request', request: () => write('CREATE', '', csr(KUBE_APISERVER_CLIENT_SIGNER)) },
    { title: 'a superuser client request', request: () => write('CREATE', '', csr(KUBE_APISERVER_CLIENT_SIGNER, {}, MASTERS)) },
  ],
});

test('reference behaviour (CertificateApproval): approving needs approve on the signer name or on <domain>/*', async () => {
  const table: [string, string[], string, string][] = [
    ['the exact signer', ['approve example.com/a'], 'example.com/a', 'allowed'],
    ['the domain wildcard', ['approve example.com/*'], 'example.com/a', 'allowed'],
    ['sign is not approve', ['sign example.com/a'], 'example.com/a', '403 certificatesigningrequests.' + CERTIFICATES_GROUP + ' "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"'],
    ['another domain', ['approve example.org/*'], 'example.com/a', '403 certificatesigningrequests.' + CERTIFICATES_GROUP + ' "req" is forbidden: user not permitted to approve requests with signerName "example.com/a"'],
  ];
  for (const [what, allowed, signer, want] of table) {
    const plugin = new CertificateApprovalPlugin(grants(...allowed).authorize);
    assert.equal(await outcome(plugin, write('UPDATE', 'approval', csr(signer, APPROVED), csr(signer))), want, what);
  }
});

test('reference behaviour (CertificateApproval): the check asks for verb approve on resource signers of the certificates group, any version', async () => {
  const g = grants();
  await outcome(new CertificateApprovalPlugin(g.authorize), write('UPDATE', 'approval', csr('example.com/a/b', APPROVED), csr('example.com/a/b')));
  assert.deepEqual(g.asked, [
    { verb: 'approve', group: CERTIFICATES_GROUP, version: '*', resource: 'signers', name: 'example.com/a/b' },
    { verb: 'approve', group: CERTIFICATES_GROUP, version: '*', resource: 'signers', name: 'example.com/*' },
  ]);
  assert.deepEqual(signerPermissionNames('x.io/y'), ['x.io/y', 'x.io/*']);
});

test('reference behaviour (CertificateApproval, CertificateSigning): other writes of a CSR and other resources are not checked', async () => {
  const none = grants();
  const approval = new CertificateApprovalPlugin(none.authorize);
  const signing = new CertificateSigningPlugin(none.authorize);
  assert.equal(await outcome(approval, write('UPDATE', '', csr('a.io/b', APPROVED), csr('a.io/b'))), 'allowed');
  assert.equal(await outcome(approval, write('UPDATE', 'status', csr('a.io/b', APPROVED), csr('a.io/b'))), 'allowed');
  assert.equal(await outcome(signing, write('UPDATE', 'approval', csr('a.io/b', { certificate: 'eA==' }), csr('a.io/b'))), 'allowed');
  assert.equal(await outcome(approval, admissionRequest({ operation: 'UPDATE', subResource: 'approval', object: { metadata: { name: 'x' } } })), 'allowed');
  assert.deepEqual(none.asked, []);
});

test('reference behaviour (CertificateSigning): changing the certificate or conditions through status needs sign on the stored signer', async () => {
  const forbid = (s: string) => `403 certificatesigningrequests.${CERTIFICATES_GROUP} "req" is forbidden: user not permitted to sign requests with signerName "${s}"`;
  const table: [string, string[], ApiObject, ApiObject, string][] = [
    ['certificate with sign on the signer', ['sign example.com/a'], csr('example.com/a', { ...APPROVED, certificate: 'eA==' }), csr('example.com/a', APPROVED), 'allowed'],
    ['certificate with sign on the domain', ['sign example.com/*'], csr('example.com/a', { certificate: 'eA==' }), csr('example.com/a'), 'allowed'],
    ['certificate without sign', ['approve example.com/a'], csr('example.com/a', { certificate: 'eA==' }), csr('example.com/a'), forbid('example.com/a')],
    ['a Failed condition without sign', [], csr('example.com/a', { conditions: [{ type: 'Failed', status: 'True' }] }), csr('example.com/a'), forbid('example.com/a')],
    ['the stored signer decides', ['sign example.com/*'], csr('other.io/x', { certificate: 'eA==' }), csr('other.io/x'), forbid('other.io/x')],
    ['nothing a signer owns changed', [], csr('example.com/a', APPROVED), csr('example.com/a', APPROVED), 'allowed'],
  ];
  for (const [what, allowed, obj, old, want] of table) {
    assert.equal(await outcome(new CertificateSigningPlugin(grants(...allowed).authorize), write('UPDATE', 'status', obj, old)), want, what);
  }
  assert.equal(changesSignerFields(csr('a/b', { certificate: '' }), csr('a/b')), false);
});

test('reference behaviour (CertificateSubjectRestriction): the API server client signer refuses the system:masters organization', async () => {
  const plugin = new CertificateSubjectRestrictionPlugin();
  const table: [string, AdmissionRequest, string][] = [
    ['masters to the client signer', write('CREATE', '', csr(KUBE_APISERVER_CLIENT_SIGNER, {}, MASTERS)),
      `403 certificatesigningrequests.${CERTIFICATES_GROUP} "req" is forbidden: use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`],
    ['other organizations to the client signer', write('CREATE', '', csr(KUBE_APISERVER_CLIENT_SIGNER)), 'allowed'],
    ['masters to another signer', write('CREATE', '', csr('example.com/a', {}, MASTERS)), 'allowed'],
    ['an unreadable request', write('CREATE', '', csr(KUBE_APISERVER_CLIENT_SIGNER, {}, 'bm90IGEgcmVxdWVzdA==')), '400 failed to parse CSR: spec.request is not a PEM certificate request'],
  ];
  for (const [what, req, want] of table) assert.equal(await outcome(plugin, req), want, what);
});

test('reference behaviour (CertificateSubjectRestriction): subject organizations are read in order from the request', () => {
  assert.deepEqual(requestedOrganizations(PLAIN), ['devs', 'ops']);
  assert.deepEqual(requestedOrganizations(MASTERS), ['system:masters']);
  assert.equal(requestedOrganizations(42), undefined);
  assert.equal(certificateRequestDer('no pem here'), undefined);
  assert.throws(() => subjectOrganizations(Buffer.from([0x30, 0x05, 0x01])));
});

test('reference behaviour (CertificateApproval): the plugin refuses to start without the server authorizer', () => {
  const deps: AdmissionDeps = { objects: { get: async () => undefined, list: async () => [] }, equivalentResources: (r) => [r], kindOf: () => undefined, log: () => undefined };
  assert.throws(() => certificateApprovalPlugin(deps, undefined), /needs the server's authorizer/);
  assert.ok(certificateApprovalPlugin({ ...deps, authorize: async () => true }, undefined));
});
