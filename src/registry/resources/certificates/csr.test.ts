import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CERTIFICATES_GROUP, LEGACY_UNKNOWN_SIGNER } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { certificateSigningRequests as csrType, csrCondition } from './csr.js';
import { pemBlocks } from './pem.js';
import { b64, certificatePem, certificateRequestPem } from './testing.js';
import { validateSignerName } from './validation.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const s = csrType.strategy;
const REQUEST = b64(await certificateRequestPem('alice'));
const CERT = b64(await certificatePem('alice'));
const spec = (extra: Record<string, unknown> = {}) => ({ request: REQUEST, signerName: 'example.com/client', usages: ['client auth', 'digital signature'], ...extra });
const csr = (specBody: unknown, status?: unknown): ApiObject => ({
  apiVersion: `${CERTIFICATES_GROUP}/v1`,
  kind: 'CertificateSigningRequest',
  metadata: { name: 'alice' },
  spec: specBody,
  ...(status === undefined ? {} : { status }),
});
const approved = (extra: object = {}) => ({ type: 'Approved', status: 'True', reason: 'OK', ...extra });

/** A request whose signature no longer matches its content. */
function tampered(pemB64: string): string {
  const block = pemBlocks(Buffer.from(pemB64, 'base64').toString())[0];
  assert.ok(block);
  const der = Buffer.from(block.der);
  der[der.length - 2] = (der[der.length - 2] ?? 0) ^ 1;
  return b64(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`);
}

test('reference behaviour, CSR validation: requests signed with ECDSA, RSA and Ed25519 keys are accepted', async () => {
  for (const kind of ['ecdsa', 'rsa', 'ed25519'] as const) {
    assert.deepEqual(s.validate(csr(spec({ request: b64(await certificateRequestPem('bob', kind)) }))), [], kind);
  }
});

const cases: { name: string; o: ApiObject; want: string[] }[] = [
  { name: 'a complete request with an expiration', o: csr(spec({ expirationSeconds: 600 })), want: [] },
  { name: 'an issued, approved request', o: csr(spec(), { conditions: [approved()], certificate: CERT }), want: [] },
  { name: 'no request', o: csr(spec({ request: undefined })), want: ['FieldValueInvalid spec.request'] },
  { name: 'a request that is not base64', o: csr(spec({ request: 'not base64!' })), want: ['FieldValueInvalid spec.request'] },
  { name: 'a request whose signature does not verify', o: csr(spec({ request: tampered(REQUEST) })), want: ['FieldValueInvalid spec.request'] },
  { name: 'a certificate instead of a request', o: csr(spec({ request: CERT })), want: ['FieldValueInvalid spec.request'] },
  { name: 'no usages', o: csr(spec({ usages: [] })), want: ['FieldValueRequired spec.usages'] },
  { name: 'an unknown and a repeated usage', o: csr(spec({ usages: ['client auth', 'flying', 'client auth'] })), want: ['FieldValueNotSupported spec.usages[1]', 'FieldValueDuplicate spec.usages[2]'] },
  { name: 'no signerName', o: csr(spec({ signerName: undefined })), want: ['FieldValueRequired spec.signerName'] },
  { name: 'an expiration under ten minutes', o: csr(spec({ expirationSeconds: 599 })), want: ['FieldValueInvalid spec.expirationSeconds'] },
  {
    name: 'conditions without type, with a bad status, a false approval, and a repeat',
    o: csr(spec(), { conditions: [{ status: 'True' }, { type: 'Failed', status: 'Maybe' }, approved({ status: 'False' }), { type: 'Failed', status: 'True' }] }),
    want: ['FieldValueRequired status.conditions[0].type', 'FieldValueNotSupported status.conditions[1].status', 'FieldValueNotSupported status.conditions[2].status', 'FieldValueDuplicate status.conditions[3].type'],
  },
  { name: 'both Approved and Denied (the later one is reported)', o: csr(spec(), { conditions: [approved(), { type: 'Denied', status: 'True' }] }), want: ['FieldValueInvalid status.conditions[1].type'] },
  { name: 'a Failed condition that is not True', o: csr(spec(), { conditions: [{ type: 'Failed', status: 'False' }] }), want: ['FieldValueNotSupported status.conditions[0].status'] },
  { name: 'a condition of another type may be False or Unknown', o: csr(spec(), { conditions: [{ type: 'Custom', status: 'Unknown' }, { type: 'Other', status: 'False' }] }), want: [] },
  { name: 'a condition without status', o: csr(spec(), { conditions: [{ type: 'Custom', status: '' }] }), want: ['FieldValueRequired status.conditions[0].status'] },
  { name: 'the legacy signer', o: csr(spec({ signerName: LEGACY_UNKNOWN_SIGNER })), want: ['FieldValueInvalid spec.signerName'] },
  { name: 'an empty CERTIFICATE block as the issued certificate', o: csr(spec(), { conditions: [approved()], certificate: b64('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n') }), want: ['FieldValueInvalid status.certificate'] },
  { name: 'a certificate that is not PEM', o: csr(spec(), { certificate: b64('junk') }), want: ['FieldValueInvalid status.certificate'] },
  { name: 'a certificate that is a request', o: csr(spec(), { certificate: REQUEST }), want: ['FieldValueInvalid status.certificate'] },
];

for (const c of cases) {
  test(`reference behaviour, CSR validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(c.o)), c.want);
  });
}

test('reference behaviour, CSR validation: messages of the request and expiration rules', () => {
  const msg = (o: ApiObject) => s.validate(o)[0]?.message ?? '';
  assert.match(msg(csr(spec({ request: CERT }))), /PEM block type must be CERTIFICATE REQUEST$/);
  assert.match(msg(csr(spec({ request: tampered(REQUEST) }))), /ECDSA verification failure$/);
  assert.equal(msg(csr(spec({ expirationSeconds: 1 }))), 'Invalid value: 1: may not specify a duration less than 600 seconds (10 minutes)');
  assert.equal(msg(csr(spec({ signerName: LEGACY_UNKNOWN_SIGNER }))), `Invalid value: "${LEGACY_UNKNOWN_SIGNER}": the legacy signerName is not allowed via this API version`);
  assert.equal(msg(csr(spec(), { conditions: [{ type: 'Denied', status: 'True' }, approved()] })), 'Invalid value: "Approved": Approved and Denied conditions are mutually exclusive');
  assert.equal(
    msg(csr(spec(), { conditions: [approved(), { type: 'Denied', status: 'True' }], certificate: b64('-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n') })),
    'Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
  );
});

test('reference behaviour, CSR signerName: a domain of two or more labels, then a path of subdomain components', () => {
  const table: [string, string[]][] = [
    ['example.com/signer', []],
    ['example.com/a.b-c', []],
    ['example.com', ['FieldValueInvalid']],
    ['example.com/a/b', ['FieldValueInvalid']],
    ['example/signer', ['FieldValueInvalid']],
    ['Example.com/signer', ['FieldValueInvalid']],
    ['example.com/Signer', ['FieldValueInvalid']],
    [`${`${'a'.repeat(63)}.`.repeat(4)}com/x`, ['FieldValueTooLong']],
    // A full-length domain and a `<namespace>.<name>` path: 253 + 1 + 63 + 1 + 253 = 571 characters.
    [`${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(61)}/${'n'.repeat(63)}.${'r'.repeat(63)}.${'r'.repeat(63)}.${'r'.repeat(63)}.${'r'.repeat(61)}`, []],
    [`example.com/${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}.${'p'.repeat(63)}`, ['FieldValueTooLong']],
  ];
  for (const [name, want] of table) assert.deepEqual(validateSignerName('f', name).map((e) => e.type), want, name);
  assert.equal(validateSignerName('f', 'example/x')[0]?.message, 'Invalid value: "example": should be a domain with at least two segments separated by dots');
  assert.match(validateSignerName('f', 'example.com/a_b')[0]?.message ?? '', /^Invalid value: "a_b": validating label "a_b": a lowercase RFC 1123 subdomain/);
  assert.equal(validateSignerName('f', 'example.com/a/b')[0]?.message, "Invalid value: \"example.com/a/b\": must be a fully qualified domain and path of the form 'example.com/signer-name'");
});

test('reference behaviour, CSR create: the requester comes from the request user, status starts empty', () => {
  const o = csr(spec({ username: 'mallory', uid: 'u', groups: ['system:masters'], extra: { a: ['b'] } }), { conditions: [approved()] });
  s.prepareForCreate?.(o, { user: { username: 'alice', uid: 'uid-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['x'] } } });
  assert.deepEqual(o.spec, { ...spec(), username: 'alice', uid: 'uid-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['x'] } });
  assert.deepEqual(o.status, {});
  const anonymous = csr(spec({ username: 'mallory' }));
  s.prepareForCreate?.(anonymous);
  assert.deepEqual(anonymous.spec, spec(), 'without a user nothing is recorded');
});

test('reference behaviour, CSR update rules per writer (main, status, approval)', () => {
  const base = csr(spec(), {});
  const withApproval = csr(spec(), { conditions: [approved()] });
  const issued = csr(spec(), { conditions: [approved()], certificate: CERT });
  const table: { writer: 'main' | 'status' | 'approval'; from: ApiObject; to: ApiObject; want: string[] }[] = [
    { writer: 'approval', from: base, to: withApproval, want: [] },
    { writer: 'status', from: base, to: withApproval, want: ['FieldValueForbidden status.conditions'] },
    { writer: 'status', from: withApproval, to: csr(spec(), { conditions: [approved({ reason: 'Other' })] }), want: ['FieldValueForbidden status.conditions'] },
    { writer: 'approval', from: withApproval, to: base, want: ['FieldValueForbidden status.conditions'] },
    { writer: 'status', from: withApproval, to: issued, want: [] },
    { writer: 'status', from: withApproval, to: csr(spec(), { conditions: [approved(), { type: 'Failed', status: 'True' }] }), want: [] },
    { writer: 'status', from: issued, to: csr(spec(), { conditions: [approved()], certificate: b64('other') }), want: ['FieldValueForbidden status.certificate'] },
    { writer: 'approval', from: withApproval, to: issued, want: ['FieldValueForbidden status.certificate'] },
  ];
  const validate = csrType.strategy;
  for (const { writer, from, to, want } of table) {
    const errs = writer === 'approval' ? validate.subresourceWrites?.approval?.validateUpdate?.(to, from) : validate.validateUpdate?.(to, from);
    assert.deepEqual(summary(errs ?? []), want, `${writer}: ${JSON.stringify(to.status)}`);
  }
});

test('reference behaviour, CSR main-resource writes keep the stored spec and status', () => {
  const stored = csr(spec({ username: 'alice' }), { conditions: [approved()] });
  const o = csr(spec({ username: 'mallory', usages: ['any'] }), {});
  s.prepareForUpdate?.(o, stored);
  assert.deepEqual([o.spec, o.status], [stored.spec, stored.status]);
});

test('reference behaviour, CSR approval writes change only status.conditions, stamping new ones', () => {
  const stored = csr(spec({ username: 'alice' }), { certificate: CERT });
  const o = csr(spec({ username: 'mallory' }), { conditions: [approved({ status: undefined })], certificate: '' });
  s.subresourceWrites?.approval?.prepare(o, stored);
  assert.deepEqual(o.spec, stored.spec);
  const status = o.status as { certificate: string; conditions: Record<string, unknown>[] };
  assert.equal(status.certificate, CERT);
  assert.equal(status.conditions[0]?.status, 'True', 'a condition status defaults to True');
  assert.equal(typeof status.conditions[0]?.lastUpdateTime, 'string');
  assert.equal(status.conditions[0]?.lastTransitionTime, status.conditions[0]?.lastUpdateTime);
});

test('reference behaviour, CSR status writes keep the stored approval conditions and earlier transition times', () => {
  const stored = csr(spec(), { conditions: [approved({ lastUpdateTime: '2024-01-01T00:00:00Z', lastTransitionTime: '2024-01-01T00:00:00Z' })] });
  const o = csr(spec({ usages: ['any'] }), { conditions: [approved({ reason: 'Echoed' }), { type: 'Failed', status: 'True' }], certificate: CERT });
  s.prepareForStatusUpdate?.(o, stored);
  assert.deepEqual(o.spec, stored.spec, 'the spec is the stored one');
  const conds = (o.status as { conditions: Record<string, unknown>[] }).conditions;
  assert.deepEqual(conds[0], (stored.status as { conditions: unknown[] }).conditions[0]);
  assert.equal(conds[1]?.type, 'Failed');
  assert.equal(typeof conds[1]?.lastTransitionTime, 'string');
  assert.deepEqual(s.validateUpdate?.(o, stored), []);
});

test('reference behaviour, CSR table: AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION, CONDITION; short name csr; approval and status subresources', () => {
  assert.deepEqual(csrType.shortNames, ['csr']);
  assert.deepEqual(csrType.subresources, ['approval', 'status']);
  assert.deepEqual(csrType.tableColumns.map((c) => c.name), ['Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
  const cells = (o: ApiObject) => csrType.tableColumns.slice(1).map((c) => c.value(o));
  assert.deepEqual(cells(csr(spec({ username: 'alice', expirationSeconds: 86400 }))), ['example.com/client', 'alice', '24h', 'Pending']);
  assert.deepEqual(cells(csr({ usages: [] })), ['<none>', '', '<none>', 'Pending']);
  const ageMs = 90_000;
  assert.equal(csrType.tableColumns[0]?.value({ ...csr(spec()), metadata: { name: 'a', creationTimestamp: new Date(Date.now() - ageMs).toISOString() } }), '90s');
  const condition: [unknown, string][] = [
    [{ conditions: [approved()] }, 'Approved'],
    [{ conditions: [approved()], certificate: CERT }, 'Approved,Issued'],
    [{ conditions: [{ type: 'Denied', status: 'True' }] }, 'Denied'],
    [{ conditions: [approved(), { type: 'Failed', status: 'True' }] }, 'Approved,Failed'],
    [{}, 'Pending'],
  ];
  for (const [status, want] of condition) assert.equal(csrCondition(csr(spec(), status)), want);
});

test('reference behaviour, CSR field selector spec.signerName', () => {
  assert.deepEqual(csrType.selectableFields?.(csr(spec())), { 'spec.signerName': 'example.com/client' });
});
