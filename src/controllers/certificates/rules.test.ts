import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER, KUBE_APISERVER_CLIENT_SIGNER, KUBELET_SERVING_SIGNER } from '../../api/naming.js';
import { BUILT_IN_SIGNERS, approvalPermissions, certificateDurationMs, mapUsages, validityWindow, type RequestFacts } from './rules.js';

const node = (over: Partial<RequestFacts> = {}): RequestFacts => ({
  commonName: 'system:node:n1',
  organizations: ['system:nodes'],
  dnsNames: [],
  ipAddresses: [],
  emailAddresses: [],
  uris: [],
  ...over,
});
const CLIENT = ['digital signature', 'key encipherment', 'client auth'];
const SERVING = ['digital signature', 'key encipherment', 'server auth'];

describe('certificate request rules', () => {
  it('reference behaviour: node client requests are recognized for selfnodeclient (own node) and nodeclient', () => {
    const cases: [string, string, string, RequestFacts, string[], string[]][] = [
      ['own node', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'system:node:n1', node(), CLIENT, ['selfnodeclient', 'nodeclient']],
      ['bootstrap user', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'system:bootstrap:abcdef', node(), CLIENT, ['nodeclient']],
      ['no key encipherment', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node(), ['client auth', 'digital signature'], ['nodeclient']],
      ['other signer', KUBE_APISERVER_CLIENT_SIGNER, 'system:node:n1', node(), CLIENT, []],
      ['wrong organization', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node({ organizations: ['system:masters'] }), CLIENT, []],
      ['two organizations', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node({ organizations: ['system:nodes', 'x'] }), CLIENT, []],
      ['DNS name', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node({ dnsNames: ['n1'] }), CLIENT, []],
      ['IP address', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node({ ipAddresses: ['10.0.0.1'] }), CLIENT, []],
      ['common name', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node({ commonName: 'n1' }), CLIENT, []],
      ['server usage', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, 'u', node(), [...CLIENT, 'server auth'], []],
    ];
    for (const [title, signer, user, facts, usages, want] of cases) assert.deepEqual(approvalPermissions(signer, user, facts, usages), want, title);
  });

  it('reference behaviour: each built-in signer accepts its own kind of request and names what is wrong otherwise', () => {
    const check = (signer: string, facts: RequestFacts, usages: string[]) => (BUILT_IN_SIGNERS.get(signer) as (r: RequestFacts, u: string[]) => string | undefined)(facts, usages);
    const cases: [string, string, RequestFacts, string[], string | undefined][] = [
      ['api client', KUBE_APISERVER_CLIENT_SIGNER, node({ commonName: 'alice', organizations: [] }), ['client auth'], undefined],
      ['api client server usage', KUBE_APISERVER_CLIENT_SIGNER, node(), ['client auth', 'server auth'], 'invalid usage for client certificate: server auth'],
      ['api client without client auth', KUBE_APISERVER_CLIENT_SIGNER, node(), ['digital signature'], 'missing required usage for client certificate: client auth'],
      ['kubelet client', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, node(), CLIENT, undefined],
      ['kubelet client bad org', KUBE_APISERVER_CLIENT_KUBELET_SIGNER, node({ organizations: [] }), CLIENT, 'subject organization is not system:nodes'],
      ['kubelet serving', KUBELET_SERVING_SIGNER, node({ dnsNames: ['n1.example'] }), SERVING, undefined],
      ['kubelet serving no SAN', KUBELET_SERVING_SIGNER, node(), SERVING, 'DNS or IP subjectAltName is required'],
      ['kubelet serving email', KUBELET_SERVING_SIGNER, node({ ipAddresses: ['10.0.0.1'], emailAddresses: ['a@b'] }), SERVING, 'Email subjectAltNames are not allowed'],
      ['kubelet serving client usage', KUBELET_SERVING_SIGNER, node({ ipAddresses: ['10.0.0.1'] }), CLIENT, 'usages did not match [digital signature key encipherment server auth]'],
    ];
    for (const [title, signer, facts, usages, want] of cases) assert.equal(check(signer, facts, usages), want, title);
    assert.equal(BUILT_IN_SIGNERS.has(`${KUBE_APISERVER_CLIENT_SIGNER.split('/')[0]}/legacy-unknown`), false);
  });

  it('reference behaviour: usages map to key usage bits and extended key usage OIDs; unknown ones are refused', () => {
    assert.deepEqual(mapUsages(CLIENT), { keyUsage: 1 | 4, extKeyUsages: ['1.3.6.1.5.5.7.3.2'] });
    assert.deepEqual(mapUsages(['signing', 'cert sign', 'server auth', 's/mime', 'email protection']), { keyUsage: 1 | 32, extKeyUsages: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.4'] });
    assert.throws(() => mapUsages(['flying']), /unrecognized usage: flying/);
  });

  it('reference behaviour: duration is the shorter of the request and the signer, at least 10 minutes; NotAfter stops at the CA', () => {
    const year = 365 * 24 * 3600_000;
    assert.equal(certificateDurationMs(year, undefined), year);
    assert.equal(certificateDurationMs(year, 3600), 3600_000);
    assert.equal(certificateDurationMs(year, 10 * year), year);
    assert.equal(certificateDurationMs(year, 60), 600_000);
    const now = Date.parse('2030-01-01T00:00:00Z');
    assert.deepEqual(validityWindow(now, 3600_000, now + year), { notBefore: now - 300_000, notAfter: now + 3600_000 });
    assert.deepEqual(validityWindow(now, 24 * 3600_000, now + year), { notBefore: now - 300_000, notAfter: now - 300_000 + 24 * 3600_000 });
    assert.deepEqual(validityWindow(now, year, now + 1000), { notBefore: now - 300_000, notAfter: now + 1000 });
    assert.throws(() => validityWindow(now, year, now), /has expired/);
  });
});
