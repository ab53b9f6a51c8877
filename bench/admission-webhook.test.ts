import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMISSION_GROUP } from '../src/api/naming.js';
import { allowAnswer, reviewUid } from './admission-webhook.js';

const review = (request: Record<string, unknown>) => JSON.stringify({ kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/v1`, request });

test('reference behaviour: the benchmark webhook reads the review uid, by its shortcut or a full parse', () => {
  const cases: Array<[string, string, string]> = [
    ['uid first, as the server writes it', review({ uid: 'abc-123', object: { a: 1 } }), 'abc-123'],
    ['uid not first: full parse', review({ kind: {}, uid: 'later' }), 'later'],
    ['escaped characters: full parse', review({ uid: 'a"b\\c' }), 'a"b\\c'],
    ['another layout: full parse', JSON.stringify({ request: { uid: 'x' }, kind: 'AdmissionReview' }), 'x'],
  ];
  for (const [name, body, want] of cases) assert.equal(reviewUid(body), want, name);
  assert.throws(() => reviewUid(JSON.stringify({ request: {} })), /no request\.uid/);
});

test('reference behaviour: the benchmark webhook answers an allowed AdmissionReview v1 echoing the uid', () => {
  assert.deepEqual(JSON.parse(allowAnswer('u"1')), { apiVersion: `${ADMISSION_GROUP}/v1`, kind: 'AdmissionReview', response: { uid: 'u"1', allowed: true } });
});
