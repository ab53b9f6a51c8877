import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CERTIFICATES_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { certificateRequestPem, caCertificatePem, certificatePem } from './testing.js';
import { basicConstraintsOf, MAX_TRUST_BUNDLE_SIZE, trustBundleProblems } from './trust-anchors.js';
import { clusterTrustBundleNameProblems, clusterTrustBundles as ctb, validateClusterTrustBundle, validateClusterTrustBundleUpdate } from './trust-bundle.js';
import { pemBlocks } from './pem.js';

const CA1 = await caCertificatePem('root-one');
const CA2 = await caCertificatePem('root-two');
const LEAF_NOT_CA = await caCertificatePem('leaf', false);
const NO_EXTENSIONS = await certificatePem('plain');
const REQUEST = await certificateRequestPem('req');
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

const bundle = (name: string, spec: Record<string, unknown>): ApiObject => ({
  apiVersion: `${CERTIFICATES_GROUP}/v1alpha1`,
  kind: 'ClusterTrustBundle',
  metadata: { name },
  spec,
});

test('reference behaviour, ClusterTrustBundle names: a prefix from the signer, else no colon; the rest a DNS subdomain', () => {
  const table: [string, string, boolean, string[]][] = [
    ['', 'roots', false, []],
    ['', 'k8s.io:bar:foo', false, ['ClusterTrustBundle without signer name must not have ":" in its name']],
    ['', 'Roots', false, ['a lowercase RFC 1123 subdomain']],
    ['example.com/signer', 'example.com:signer:abc', false, []],
    ['example.com/signer', 'look-ma-no-prefix', false, ['ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:']],
    ['example.com/signer', 'example.com:signer:', false, ['a lowercase RFC 1123 subdomain']],
    ['example.com/signer', 'example.com:signer:Abc', false, ['a lowercase RFC 1123 subdomain']],
    // generateName: the suffix still follows, so a trailing '-' is fine and the prefix must be complete.
    ['example.com/signer', 'example.com:signer:gen-', true, []],
    ['example.com/signer', 'example.com:sig', true, ['ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:']],
  ];
  for (const [signer, name, prefix, want] of table) {
    const got = clusterTrustBundleNameProblems(signer, name, prefix);
    assert.equal(got.length, want.length, `${signer} ${name}: ${got.join('; ')}`);
    want.forEach((w, i) => assert.ok(got[i]?.startsWith(w), `${name}: ${got[i]}`));
  }
});

test('reference behaviour, ClusterTrustBundle trustBundle: CA certificates only, per-entry messages', () => {
  const pkcs10 = REQUEST;
  const withHeaders = CA1.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n');
  const junk = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const table: [string, string, string[]][] = [
    ['one CA', CA1, []],
    ['two CAs with text around and between them', `garbage\n${CA1}\nmore garbage\n${CA2}`, []],
    ['empty', '', ['at least one trust anchor must be provided']],
    ['text without blocks', 'hello', ['at least one trust anchor must be provided']],
    ['a block whose body is not base64 is skipped, as Go does', '-----BEGIN CERTIFICATE-----\n%%%%\n-----END CERTIFICATE-----\n', ['at least one trust anchor must be provided']],
    ['a request block', `${CA1}${pkcs10}`, ['entry 1 has bad block type: CERTIFICATE REQUEST']],
    ['headers', withHeaders, ['entry 0 has PEM block headers']],
    ['bytes that are not a certificate', junk, ['entry 0 does not parse as X.509']],
    ['a certificate whose basicConstraints say it is no CA', LEAF_NOT_CA, ['entry 0 does not have the CA bit set']],
    ['a certificate without basicConstraints', NO_EXTENSIONS, ['entry 0 does not have the CA bit set']],
    ['the same anchor three times', `${CA1}${CA2}${CA1}${CA1}`, ['duplicate trust anchor (indices [0 2 3])']],
    ['a malformed block hides the duplicate report', `${CA1}${CA1}${junk}`, ['entry 2 does not parse as X.509']],
  ];
  for (const [name, text, want] of table) assert.deepEqual(trustBundleProblems(text), { tooLong: false, problems: want }, name);
  assert.deepEqual(trustBundleProblems('x'.repeat(MAX_TRUST_BUNDLE_SIZE + 1)), { tooLong: true, problems: [] });
  assert.deepEqual(trustBundleProblems(`${CA1}${' '.repeat(MAX_TRUST_BUNDLE_SIZE - CA1.length)}`), { tooLong: false, problems: [] }, 'exactly at the limit');
});

test('reference behaviour, basicConstraints read from the DER: present with cA, present without, absent', () => {
  const der = (pem: string) => pemBlocks(pem)[0]?.der ?? Buffer.alloc(0);
  assert.deepEqual(basicConstraintsOf(der(CA1)), { present: true, isCA: true });
  assert.deepEqual(basicConstraintsOf(der(LEAF_NOT_CA)), { present: true, isCA: false });
  assert.deepEqual(basicConstraintsOf(der(NO_EXTENSIONS)), { present: false, isCA: false });
  assert.throws(() => basicConstraintsOf(Buffer.from([0x30, 0x05, 0x01])));
});

const cases: { name: string; o: ApiObject; want: string[] }[] = [
  { name: 'valid without a signer', o: bundle('roots', { trustBundle: CA1 }), want: [] },
  { name: 'valid with a signer', o: bundle('example.com:signer:abc', { signerName: 'example.com/signer', trustBundle: CA1 }), want: [] },
  { name: 'no trustBundle', o: bundle('roots', {}), want: ['FieldValueInvalid spec.trustBundle'] },
  { name: 'no spec', o: { apiVersion: `${CERTIFICATES_GROUP}/v1alpha1`, kind: 'ClusterTrustBundle', metadata: { name: 'roots' } }, want: ['FieldValueInvalid spec.trustBundle'] },
  { name: 'a bad signer name (the name prefix follows it)', o: bundle('invalid:foo', { signerName: 'invalid', trustBundle: CA1 }), want: ['FieldValueInvalid spec.signerName'] },
  { name: 'a name without the signer prefix', o: bundle('look-ma-no-prefix', { signerName: 'example.com/signer', trustBundle: CA1 }), want: ['FieldValueInvalid metadata.name'] },
  { name: 'a colon without a signer', o: bundle('a:b', { trustBundle: CA1 }), want: ['FieldValueInvalid metadata.name'] },
  { name: 'a name the store already refused is not reported twice', o: bundle('a/b', { trustBundle: CA1 }), want: [] },
  { name: 'a generateName without the signer prefix', o: { ...bundle('example.com:signer:x', { signerName: 'example.com/signer', trustBundle: CA1 }), metadata: { name: 'example.com:signer:x', generateName: 'roots-' } }, want: ['FieldValueInvalid metadata.generateName'] },
  { name: 'a trustBundle that is not a string', o: bundle('roots', { trustBundle: 5 }), want: ['FieldValueTypeInvalid spec.trustBundle', 'FieldValueInvalid spec.trustBundle'] },
  { name: 'a bundle over 1 MiB', o: bundle('roots', { trustBundle: `${CA1}${'#'.repeat(MAX_TRUST_BUNDLE_SIZE)}` }), want: ['FieldValueTooLong spec.trustBundle'] },
];

for (const c of cases) {
  test(`reference behaviour, ClusterTrustBundle validation: ${c.name}`, () => {
    assert.deepEqual(summary(validateClusterTrustBundle(c.o)), c.want);
  });
}

test('reference behaviour, ClusterTrustBundle messages: prefix rule, omitted bundle value, size limit', () => {
  const msgs = (o: ApiObject) => validateClusterTrustBundle(o).map((e) => e.message);
  assert.deepEqual(msgs(bundle('look-ma-no-prefix', { signerName: 'example.com/signer', trustBundle: CA1 })), [
    'Invalid value: "look-ma-no-prefix": ClusterTrustBundle for signerName example.com/signer must be named with prefix example.com:signer:',
  ]);
  assert.deepEqual(msgs(bundle('roots', { trustBundle: LEAF_NOT_CA })), ['Invalid value: "<value omitted>": entry 0 does not have the CA bit set']);
  assert.deepEqual(msgs(bundle('roots', { trustBundle: 'x'.repeat(MAX_TRUST_BUNDLE_SIZE + 1) })), ['Too long: may not be more than 1048576 bytes']);
});

test('reference behaviour, ClusterTrustBundle update: signerName is immutable', () => {
  const old = bundle('example.com:signer:abc', { signerName: 'example.com/signer', trustBundle: CA1 });
  assert.deepEqual(validateClusterTrustBundleUpdate(bundle('example.com:signer:abc', { signerName: 'example.com/signer', trustBundle: CA2 }), old), []);
  const moved = bundle('example.com:signer:abc', { signerName: 'example.com/other', trustBundle: CA1 });
  assert.deepEqual(validateClusterTrustBundleUpdate(moved, old).map((e) => [e.field, e.message]), [['spec.signerName', 'Invalid value: "example.com/other": field is immutable']]);
  // Together with the object rules the name prefix no longer matches either, as on the reference.
  assert.deepEqual(summary(validateClusterTrustBundle(moved)), ['FieldValueInvalid metadata.name']);
  const dropped = bundle('example.com:signer:abc', { trustBundle: CA1 });
  assert.deepEqual(summary([...validateClusterTrustBundle(dropped), ...validateClusterTrustBundleUpdate(dropped, old)]), ['FieldValueInvalid metadata.name', 'FieldValueInvalid spec.signerName']);
});

test('reference behaviour, ClusterTrustBundle table and field selector: SIGNERNAME, spec.signerName', () => {
  assert.deepEqual(ctb.tableColumns.map((c) => c.name), ['SignerName']);
  assert.equal(ctb.tableColumns[0]?.value(bundle('roots', { trustBundle: CA1 })), '<none>');
  assert.equal(ctb.tableColumns[0]?.value(bundle('example.com:signer:a', { signerName: 'example.com/signer' })), 'example.com/signer');
  assert.deepEqual(ctb.selectableFields?.(bundle('example.com:signer:a', { signerName: 'example.com/signer' })), { 'spec.signerName': 'example.com/signer' });
  assert.deepEqual(ctb.selectableFields?.(bundle('roots', {})), { 'spec.signerName': '' });
  assert.equal(ctb.strategy.nameRule, 'path-segment', 'colons pass the store; the bundle rule does the rest');
});
