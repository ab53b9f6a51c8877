/**
 * ClusterTrustBundle and CertificateSigningRequest validation through a running server (reference
 * behaviour of the certificates group; spec 2.1 for the 422 Status with field causes).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CERTIFICATES_GROUP, LEGACY_UNKNOWN_SIGNER, META_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { b64, caCertificatePem, certificatePem, certificateRequestPem } from '../src/registry/resources/certificates/testing.js';
import { client, type Response } from './helpers/client.js';

const BUNDLES = `/apis/${CERTIFICATES_GROUP}/v1alpha1/clustertrustbundles`;
const CSRS = `/apis/${CERTIFICATES_GROUP}/v1/certificatesigningrequests`;
const TABLE = `application/json;as=Table;v=v1;g=${META_GROUP}`;

const bundle = (metadata: Record<string, unknown>, spec: Record<string, unknown>) => ({ apiVersion: `${CERTIFICATES_GROUP}/v1alpha1`, kind: 'ClusterTrustBundle', metadata, spec });
const causes = (r: Response) => (r.json?.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);

describe('certificates validation in a running server (reference behaviour)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  let CA1: string;
  let CA2: string;
  let LEAF: string;
  let REQUEST: string;
  before(async () => {
    [CA1, CA2, LEAF, REQUEST] = await Promise.all([caCertificatePem('one'), caCertificatePem('two'), caCertificatePem('leaf', false), certificateRequestPem('node')]);
    server = await startServer({ port: 0, storage: { type: 'memory' }, runtimeConfig: `${CERTIFICATES_GROUP}/v1alpha1=true` });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour (ClusterTrustBundle): a signer bundle named <signer with ":">:<suffix> is stored and addressable', async () => {
    const made = await call('POST', BUNDLES, { body: bundle({ name: 'example.com:signer:abc' }, { signerName: 'example.com/signer', trustBundle: `${CA1}${CA2}` }) });
    assert.equal(made.status, 201, made.text);
    const got = await call('GET', `${BUNDLES}/example.com:signer:abc`);
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.spec.trustBundle, `${CA1}${CA2}`);
    const generated = await call('POST', BUNDLES, { body: bundle({ generateName: 'example.com:signer:gen-' }, { signerName: 'example.com/signer', trustBundle: CA1 }) });
    assert.equal(generated.status, 201, generated.text);
    assert.match(generated.json.metadata.name, /^example\.com:signer:gen-[a-z0-9]{5}$/);
    const plain = await call('POST', BUNDLES, { body: bundle({ name: 'plain-roots' }, { trustBundle: CA2 }) });
    assert.equal(plain.status, 201, plain.text);
  });

  it('reference behaviour (ClusterTrustBundle): name, signer and bundle problems are 422 with field causes', async () => {
    const table: [string, ReturnType<typeof bundle>, string[]][] = [
      ['no signer prefix', bundle({ name: 'no-prefix' }, { signerName: 'example.com/signer', trustBundle: CA1 }), ['metadata.name: Invalid value: "no-prefix": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:']],
      ['a colon without signer', bundle({ name: 'example.com:x' }, { trustBundle: CA1 }), ['metadata.name: Invalid value: "example.com:x": ClusterTrustBundle without signer name must not have ":" in its name']],
      ['a bad signer name', bundle({ name: 'invalid:x' }, { signerName: 'invalid', trustBundle: CA1 }), ["spec.signerName: Invalid value: \"invalid\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
      ['no trust bundle', bundle({ name: 'empty' }, {}), ['spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided']],
      ['a certificate that is not a CA', bundle({ name: 'leaf' }, { trustBundle: LEAF }), ['spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set']],
      ['a request block', bundle({ name: 'req' }, { trustBundle: `${CA1}${REQUEST}` }), ['spec.trustBundle: Invalid value: "<value omitted>": entry 1 has bad block type: CERTIFICATE REQUEST']],
      ['a repeated anchor', bundle({ name: 'twice' }, { trustBundle: `${CA1}${CA1}` }), ['spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 1])']],
    ];
    for (const [name, body, want] of table) {
      const r = await call('POST', BUNDLES, { body });
      assert.equal(r.status, 422, `${name}: ${r.text}`);
      assert.equal(r.json.reason, 'Invalid', name);
      assert.deepEqual(causes(r), want, name);
    }
  });

  it('reference behaviour (ClusterTrustBundle): signerName is immutable; the bundle text may change', async () => {
    const path = `${BUNDLES}/example.com:signer:abc`;
    const cur = (await call('GET', path)).json;
    const rotated = await call('PUT', path, { body: { ...cur, spec: { ...cur.spec, trustBundle: CA2 } } });
    assert.equal(rotated.status, 200, rotated.text);
    const moved = await call('PUT', path, { body: { ...rotated.json, spec: { ...rotated.json.spec, signerName: 'example.com/other' } } });
    assert.equal(moved.status, 422, moved.text);
    assert.deepEqual(causes(moved), [
      'metadata.name: Invalid value: "example.com:signer:abc": ClusterTrustBundle for signerName example.com/other must be named with prefix example.com:other:',
      'spec.signerName: Invalid value: "example.com/other": field is immutable',
    ]);
    const broken = await call('PATCH', path, { body: { spec: { trustBundle: LEAF } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(broken.status, 422, broken.text);
    assert.equal((await call('GET', path)).json.spec.trustBundle, CA2, 'nothing was written');
  });

  it('reference behaviour (ClusterTrustBundle): field selector spec.signerName and the SIGNERNAME column', async () => {
    const selected = await call('GET', `${BUNDLES}?fieldSelector=${encodeURIComponent('spec.signerName=example.com/signer')}`);
    assert.equal(selected.status, 200, selected.text);
    assert.ok(selected.json.items.length >= 2);
    assert.ok(selected.json.items.every((i: { spec: { signerName: string } }) => i.spec.signerName === 'example.com/signer'));
    const table = await call('GET', `${BUNDLES}/plain-roots`, { headers: { accept: TABLE } });
    assert.equal(table.status, 200, table.text);
    assert.deepEqual(table.json.columnDefinitions.slice(0, 2).map((c: { name: string }) => c.name), ['Name', 'SignerName']);
    assert.deepEqual(table.json.rows[0].cells.slice(0, 2), ['plain-roots', '<none>']);
  });

  it('reference behaviour (CertificateSigningRequest): any addressable name, like the kubelet node-csr-<base64url> names', async () => {
    const spec = { request: b64(REQUEST), signerName: 'example.com/client', usages: ['client auth'] };
    const name = 'node-csr-AbC_dEf-123';
    const made = await call('POST', CSRS, { body: { apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec } });
    assert.equal(made.status, 201, made.text);
    assert.equal((await call('GET', `${CSRS}/${name}`)).status, 200);
  });

  it('reference behaviour (CertificateSigningRequest): legacy signer, long signer, unknown usage and a bad request are 422', async () => {
    const csr = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${CERTIFICATES_GROUP}/v1`, kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: b64(REQUEST), signerName: 'example.com/client', usages: ['client auth'], ...spec } });
    const table: [string, Record<string, unknown>, string[]][] = [
      ['legacy', { signerName: LEGACY_UNKNOWN_SIGNER }, [`spec.signerName: Invalid value: "${LEGACY_UNKNOWN_SIGNER}": the legacy signerName is not allowed via this API version`]],
      ['long', { signerName: `example.com/${Array.from({ length: 9 }, () => 'p'.repeat(63)).join('.')}` }, ['spec.signerName: Too long: may not be more than 571 bytes']],
      ['usage', { usages: ['client auth', 'flying'] }, ['spec.usages[1]: Unsupported value: "flying"']],
      ['request', { request: b64(await certificatePem('not-a-request')) }, ['spec.request: Invalid value: ']],
    ];
    for (const [name, spec, want] of table) {
      const r = await call('POST', CSRS, { body: csr(`bad-${name}`, spec) });
      assert.equal(r.status, 422, `${name}: ${r.text}`);
      const got: string[] = causes(r);
      assert.equal(got.length, want.length, `${name}: ${got.join(' | ')}`);
      want.forEach((w, i) => assert.ok(got[i]?.startsWith(w), `${name}: ${got[i]}`));
    }
  });

  it('reference behaviour (CertificateSigningRequest): Failed is True-only; Approved and Denied exclude each other at the later index', async () => {
    const name = 'node-csr-AbC_dEf-123';
    const cur = (await call('GET', `${CSRS}/${name}`)).json;
    const failedFalse = await call('PUT', `${CSRS}/${name}/status`, { body: { ...cur, status: { conditions: [{ type: 'Failed', status: 'False', reason: 'R' }] } } });
    assert.equal(failedFalse.status, 422, failedFalse.text);
    assert.deepEqual(causes(failedFalse), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']);
    const both = await call('PUT', `${CSRS}/${name}/approval`, {
      body: { ...cur, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'A' }, { type: 'Denied', status: 'True', reason: 'D' }] } },
    });
    assert.equal(both.status, 422, both.text);
    assert.deepEqual(causes(both), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
  });
});
