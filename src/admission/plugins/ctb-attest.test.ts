import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CERTIFICATES_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest, AuthorizationCheck } from '../types.js';
import { ClusterTrustBundleAttestPlugin, clusterTrustBundleAttestPlugin } from './ctb-attest.js';

const RESOURCE = { group: CERTIFICATES_GROUP, version: 'v1alpha1', resource: 'clustertrustbundles' };
const bundle = (signerName: string | undefined, pem = 'PEM'): ApiObject => ({
  apiVersion: `${CERTIFICATES_GROUP}/v1alpha1`,
  kind: 'ClusterTrustBundle',
  metadata: { name: 'b' },
  spec: { trustBundle: pem, ...(signerName === undefined ? {} : { signerName }) },
});
const write = (object: ApiObject, oldObject?: ApiObject): AdmissionRequest =>
  admissionRequest({ operation: oldObject ? 'UPDATE' : 'CREATE', namespace: '', name: 'b', resource: RESOURCE, object, ...(oldObject ? { oldObject } : {}) });

/** Grants `attest` on the signer names listed; records every check. */
function authority(names: string[]) {
  const asked: string[] = [];
  const authorize = async (_u: unknown, c: AuthorizationCheck) => {
    asked.push(`${c.verb} ${c.resource}.${c.group} ${c.name}`);
    return c.verb === 'attest' && c.resource === 'signers' && c.group === CERTIFICATES_GROUP && names.includes(c.name ?? '');
  };
  return { authorize, asked };
}

admissionPluginContract('ClusterTrustBundleAttest', {
  make: () => new ClusterTrustBundleAttestPlugin(authority(['example.com/one']).authorize),
  cases: [
    { title: 'a bundle for a signer the user may attest', request: () => write(bundle('example.com/one')) },
    { title: 'a bundle for another signer', request: () => write(bundle('example.com/two')) },
    { title: 'a bundle moved to another signer', request: () => write(bundle('example.com/two'), bundle('example.com/one')) },
  ],
});

async function outcome(names: string[], req: AdmissionRequest): Promise<{ result: string; asked: string[] }> {
  const a = authority(names);
  try {
    await new ClusterTrustBundleAttestPlugin(a.authorize).validate(req);
    return { result: 'allowed', asked: a.asked };
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return { result: `${e.code} ${e.message}`, asked: a.asked };
  }
}

test('reference behaviour (ClusterTrustBundleAttest): a bundle naming a signer needs attest on it (or on its domain); updates may not move it', async () => {
  const prefix = `403 clustertrustbundles.${CERTIFICATES_GROUP} "b" is forbidden: `;
  const table: [string, string[], AdmissionRequest, string, number][] = [
    ['no signer needs nothing', [], write(bundle(undefined)), 'allowed', 0],
    ['attest on the signer', ['example.com/one'], write(bundle('example.com/one')), 'allowed', 1],
    ['attest on the domain', ['example.com/*'], write(bundle('example.com/one')), 'allowed', 2],
    ['no attest', [], write(bundle('example.com/one')), `${prefix}user not permitted to attest for signerName "example.com/one"`, 2],
    ['an update changing the bundle is checked', [], write(bundle('example.com/one', 'NEW'), bundle('example.com/one')), `${prefix}user not permitted to attest for signerName "example.com/one"`, 2],
    ['an update changing nothing is not', [], write(bundle('example.com/one'), bundle('example.com/one')), 'allowed', 0],
    ['moving to another signer', ['example.com/one', 'example.com/two'], write(bundle('example.com/two'), bundle('example.com/one')), `${prefix}changing signerName is forbidden`, 0],
  ];
  for (const [what, names, req, want, checks] of table) {
    const got = await outcome(names, req);
    assert.equal(got.result, want, what);
    assert.equal(got.asked.length, checks, what);
  }
});

test('reference behaviour (ClusterTrustBundleAttest): other resources pass untouched; the plugin needs the authorizer', async () => {
  const other = admissionRequest({ operation: 'CREATE', name: 'x', object: bundle('example.com/one') });
  assert.equal((await outcome([], other)).result, 'allowed');
  const deps = { objects: { get: async () => undefined, list: async () => [] }, equivalentResources: () => [], kindOf: () => undefined, log: () => undefined };
  assert.throws(() => clusterTrustBundleAttestPlugin(deps, undefined), /needs the server's authorizer/);
  assert.throws(() => clusterTrustBundleAttestPlugin({ ...deps, authorize: authority([]).authorize }, { x: 1 }), /takes no configuration/);
});
