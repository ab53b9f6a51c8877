import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BETA_STORAGE_CLASS_ANNOTATION, STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { claimClass, NOT_BOUND_MESSAGE, NOT_EXPANDABLE_MESSAGE, PersistentVolumeClaimResizePlugin } from './pvc-resize.js';

const sc = (name: string, allowVolumeExpansion?: boolean): ApiObject => ({
  apiVersion: `${STORAGE_GROUP}/v1`,
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'p',
  ...(allowVolumeExpansion === undefined ? {} : { allowVolumeExpansion }),
});
const objects = fixedObjects({ [`${STORAGE_GROUP}/storageclasses`]: [sc('grows', true), sc('fixed', false), sc('unsaid')] });
const claim = (storage: string | undefined, cls: string | undefined, phase = 'Bound', annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { resources: { requests: storage === undefined ? {} : { storage } }, ...(cls === undefined ? {} : { storageClassName: cls }) },
  status: { phase },
});
const resize = (oldObject: ApiObject, object: ApiObject, subResource = ''): AdmissionRequest =>
  admissionRequest({ operation: 'UPDATE', name: 'c', resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' }, subResource, object, oldObject });

admissionPluginContract('PersistentVolumeClaimResize', {
  make: () => new PersistentVolumeClaimResizePlugin(objects),
  cases: [
    { title: 'growing a claim whose class allows it', request: () => resize(claim('1Gi', 'grows'), claim('2Gi', 'grows')) },
    { title: 'growing a claim whose class does not', request: () => resize(claim('1Gi', 'fixed'), claim('2Gi', 'fixed')) },
    { title: 'growing a pending claim', request: () => resize(claim('1Gi', 'grows', 'Pending'), claim('2Gi', 'grows')) },
  ],
});

async function outcome(req: AdmissionRequest): Promise<string> {
  try {
    await new PersistentVolumeClaimResizePlugin(objects).validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (PersistentVolumeClaimResize): a claim grows only when bound and its unchanged class allows expansion', async () => {
  const notBound = `403 persistentvolumeclaims "c" is forbidden: ${NOT_BOUND_MESSAGE}`;
  const refused = `403 persistentvolumeclaims "c" is forbidden: ${NOT_EXPANDABLE_MESSAGE}`;
  const table: [string, AdmissionRequest, string][] = [
    ['class allows expansion', resize(claim('1Gi', 'grows'), claim('2Gi', 'grows')), 'allowed'],
    ['same size', resize(claim('1Gi', 'fixed'), claim('1Gi', 'fixed')), 'allowed'],
    ['shrinking is left to validation', resize(claim('2Gi', 'fixed'), claim('1Gi', 'fixed')), 'allowed'],
    ['same amount in another notation', resize(claim('1Gi', 'fixed'), claim('1024Mi', 'fixed')), 'allowed'],
    ['class says false', resize(claim('1Gi', 'fixed'), claim('2Gi', 'fixed')), refused],
    ['class says nothing', resize(claim('1Gi', 'unsaid'), claim('2Gi', 'unsaid')), refused],
    ['class missing', resize(claim('1Gi', 'gone'), claim('2Gi', 'gone')), refused],
    ['no class', resize(claim('1Gi', undefined), claim('2Gi', undefined)), refused],
    ['class changed', resize(claim('1Gi', 'fixed'), claim('2Gi', 'grows')), refused],
    ['not bound', resize(claim('1Gi', 'grows', 'Pending'), claim('2Gi', 'grows')), notBound],
    ['no storage before', resize(claim(undefined, 'grows'), claim('2Gi', 'grows')), 'allowed'],
    ['beta annotation names the class', resize(claim('1Gi', 'fixed', 'Bound', { [BETA_STORAGE_CLASS_ANNOTATION]: 'grows' }), claim('2Gi', 'fixed', 'Bound', { [BETA_STORAGE_CLASS_ANNOTATION]: 'grows' })), 'allowed'],
    ['status subresource', resize(claim('1Gi', 'fixed'), claim('2Gi', 'fixed'), 'status'), 'allowed'],
  ];
  for (const [what, req, want] of table) assert.equal(await outcome(req), want, what);
});

test('reference behaviour (PersistentVolumeClaimResize): the beta annotation names the class before spec.storageClassName', () => {
  assert.equal(claimClass(claim('1Gi', 'spec', 'Bound', { [BETA_STORAGE_CLASS_ANNOTATION]: 'beta' })), 'beta');
  assert.equal(claimClass(claim('1Gi', 'spec')), 'spec');
  assert.equal(claimClass(claim('1Gi', undefined)), '');
});
