import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMISSION_GROUP } from '../../api/naming.js';
import type { AdmissionRequest } from '../types.js';
import { reviewBody, reviewFieldsText, reviewRequest, type Invocation } from './review.js';

const pods = { group: '', version: 'v1', resource: 'pods' };
const podKind = { group: '', version: 'v1', kind: 'Pod' };
const base: AdmissionRequest = {
  uid: 'request-uid',
  operation: 'UPDATE',
  kind: podKind,
  resource: pods,
  subResource: '',
  requestKind: podKind,
  requestResource: pods,
  requestSubResource: '',
  namespace: 'team',
  name: 'p1',
  object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', labels: { 'a"b': 'ü' } } },
  oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1' } },
  options: { fieldManager: 'm' },
  dryRun: true,
  user: { username: 'alice', groups: [] },
  warn: () => undefined,
  annotate: () => undefined,
};
const plain: Invocation = { kind: podKind, resource: pods, subResource: '' };
const status: Invocation = { kind: podKind, resource: pods, subResource: 'status' };
const converted: Invocation = {
  kind: { ...podKind, version: 'v2' },
  resource: { ...pods, version: 'v2' },
  subResource: '',
  converted: { object: { apiVersion: 'v2', kind: 'Pod' }, oldObject: undefined, toRequestVersion: (o) => o },
};

test('spec 2.11: the review text built from a uid and the shared fields is the AdmissionReview of the request, for each shape', () => {
  const cases: Array<[string, AdmissionRequest, Invocation, 'v1' | 'v1beta1']> = [
    ['an update', base, plain, 'v1'],
    ['a subresource', { ...base, requestSubResource: 'status', subResource: 'status' }, status, 'v1'],
    ['a converted object', base, converted, 'v1'],
    ['no options, no objects, v1beta1', { ...base, options: undefined, object: undefined, oldObject: undefined, operation: 'DELETE' }, plain, 'v1beta1'],
  ];
  for (const [name, req, inv, version] of cases) {
    const text = reviewBody('u-"1', reviewFieldsText(req, inv), version);
    const want = { kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/${version}`, request: { ...reviewRequest(req, inv), uid: 'u-"1' } };
    assert.deepEqual(JSON.parse(text), want, name);
    assert.ok(text.startsWith(`{"kind":"AdmissionReview","apiVersion":"${ADMISSION_GROUP}/${version}","request":{"uid":`), `${name}: the uid comes first`);
  }
});

test('reference behaviour: validating webhooks share one review text per resource; a converted invocation is never shared', () => {
  const shared = new Map<string, string>();
  const first = reviewFieldsText(base, plain, shared);
  assert.equal(reviewFieldsText(base, plain, shared), first);
  assert.equal(shared.size, 1);
  assert.notEqual(reviewFieldsText(base, status, shared), first, 'another subresource is another text');
  reviewFieldsText(base, converted, shared);
  assert.equal(shared.size, 2, 'converted objects are not cached');
});
