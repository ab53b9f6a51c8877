import assert from 'node:assert/strict';
import { test } from 'node:test';
import { certificateChainProblem, certificateRequestProblem, decodeBytes, pemBlocks } from './pem.js';
import { certificatePem, certificateRequestPem } from './testing.js';

const CERT = await certificatePem('chain');
const REQUEST = await certificateRequestPem('req');

test('reference behaviour, CSR status.certificate: CERTIFICATE blocks without headers, each parsing', () => {
  const withHeaders = CERT.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n');
  const table: [string, string | undefined][] = [
    [CERT, undefined],
    [`${CERT}${CERT}`, undefined],
    ['', 'must contain at least one CERTIFICATE PEM block'],
    [REQUEST, 'only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"'],
    [withHeaders, 'no PEM block headers are permitted'],
    ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'x509: malformed certificate'],
    ['-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n', 'found CERTIFICATE PEM block containing 0 certificates'],
    // Go's decoder passes over a block whose body is not base64, so only the valid block is seen.
    [`-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----\n${CERT}`, undefined],
  ];
  for (const [pem, want] of table) assert.equal(certificateChainProblem(pem), want, pem.slice(0, 40));
});

test('reference behaviour, CSR spec.request: only the first block counts and must be a parsable request', () => {
  assert.equal(certificateRequestProblem(`${REQUEST}${CERT}`), undefined);
  assert.equal(certificateRequestProblem(`${CERT}${REQUEST}`), 'PEM block type must be CERTIFICATE REQUEST');
  assert.equal(certificateRequestProblem('-----BEGIN CERTIFICATE REQUEST-----\nMAMCAQA=\n-----END CERTIFICATE REQUEST-----\n'), 'x509: malformed certificate request');
});

test('reference behaviour, CSR byte fields: base64 decoding and PEM block splitting', () => {
  assert.equal(decodeBytes(Buffer.from('hi').toString('base64'))?.toString(), 'hi');
  assert.equal(decodeBytes('%%%'), undefined);
  assert.equal(decodeBytes('abc'), undefined, 'a length that is not a multiple of 4');
  assert.deepEqual(pemBlocks(`junk\n${CERT}between\n${REQUEST}`).map((b) => [b.type, b.headers]), [['CERTIFICATE', false], ['CERTIFICATE REQUEST', false]]);
  assert.deepEqual(pemBlocks('-----BEGIN weird type-----\nAAAA\n-----END weird type-----\n').map((b) => b.type), ['weird type'], 'any type text, as Go reads it');
});
