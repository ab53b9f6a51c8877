import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BETA_DEFAULT_STORAGE_CLASS_ANNOTATION,
  BETA_STORAGE_CLASS_ANNOTATION,
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  DEFAULT_STORAGE_CLASS_ANNOTATION,
  LEGACY_INGRESS_CLASS_ANNOTATION,
  NETWORKING_GROUP,
  STORAGE_GROUP,
} from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps, AdmissionRequest } from '../types.js';
import { defaultIngressClassPlugin, defaultStorageClassPlugin, isDefaultStorageClass, newestDefault } from './default-class.js';

type Obj = Record<string, unknown>;
const cls = (name: string, created: string, annotations: Record<string, string> = {}): ApiObject => ({ metadata: { name, creationTimestamp: created, annotations } });
const dflt = (key: string) => ({ [key]: 'true' });

const storageClasses = [
  cls('old-default', '2024-01-01T00:00:00Z', dflt(DEFAULT_STORAGE_CLASS_ANNOTATION)),
  cls('new-default', '2024-06-01T00:00:00Z', dflt(BETA_DEFAULT_STORAGE_CLASS_ANNOTATION)),
  cls('newest-plain', '2024-09-01T00:00:00Z', { [DEFAULT_STORAGE_CLASS_ANNOTATION]: 'false' }),
];
const ingressClasses = [cls('nginx', '2024-01-01T00:00:00Z', dflt(DEFAULT_INGRESS_CLASS_ANNOTATION)), cls('other', '2024-02-01T00:00:00Z')];
const deps = (objects: Record<string, ApiObject[]>): AdmissionDeps => ({
  objects: fixedObjects(objects),
  equivalentResources: (r) => [r],
  kindOf: () => undefined,
  log: () => {},
});
const withClasses = deps({ [`${STORAGE_GROUP}/storageclasses`]: storageClasses, [`${NETWORKING_GROUP}/ingressclasses`]: ingressClasses });
const withoutClasses = deps({});

const claim = (spec: Obj = {}, annotations?: Record<string, string>, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionRequest =>
  admissionRequest({
    operation,
    name: 'c',
    resource: { group: '', version: 'v1', resource: 'persistentvolumeclaims' },
    kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    object: { metadata: { name: 'c', ...(annotations ? { annotations } : {}) }, spec: { accessModes: ['ReadWriteOnce'], ...spec } },
  });
const ingress = (spec: Obj = {}, annotations?: Record<string, string>): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    name: 'i',
    resource: { group: NETWORKING_GROUP, version: 'v1', resource: 'ingresses' },
    kind: { group: NETWORKING_GROUP, version: 'v1', kind: 'Ingress' },
    object: { metadata: { name: 'i', ...(annotations ? { annotations } : {}) }, spec },
  });

admissionPluginContract('DefaultStorageClass', {
  make: () => defaultStorageClassPlugin(withClasses, undefined),
  cases: [
    { title: 'a claim without a class', request: () => claim() },
    { title: 'a claim naming a class', request: () => claim({ storageClassName: 'fast' }) },
  ],
});

admissionPluginContract('DefaultIngressClass', {
  make: () => defaultIngressClassPlugin(withClasses, undefined),
  cases: [
    { title: 'an ingress without a class', request: () => ingress() },
    { title: 'an ingress naming a class', request: () => ingress({ ingressClassName: 'x' }) },
  ],
});

test('reference behaviour (DefaultStorageClass, DefaultIngressClass): the newest default wins, ties go to the first name', () => {
  assert.equal(newestDefault(storageClasses, isDefaultStorageClass)?.metadata?.name, 'new-default');
  const tie = [cls('b', '2024-01-01T00:00:00Z', dflt(DEFAULT_STORAGE_CLASS_ANNOTATION)), cls('a', '2024-01-01T00:00:00Z', dflt(DEFAULT_STORAGE_CLASS_ANNOTATION))];
  assert.equal(newestDefault(tie, isDefaultStorageClass)?.metadata?.name, 'a');
  assert.equal(newestDefault([cls('x', '2024-01-01T00:00:00Z', { [DEFAULT_STORAGE_CLASS_ANNOTATION]: 'True' })], isDefaultStorageClass), undefined, 'only "true" counts');
});

test('reference behaviour (DefaultStorageClass): a new claim without a class gets the default; a stated class, even empty, is kept', async () => {
  const table: [string, AdmissionRequest, AdmissionDeps, unknown][] = [
    ['no class', claim(), withClasses, 'new-default'],
    ['a class', claim({ storageClassName: 'fast' }), withClasses, 'fast'],
    ['the empty class means none', claim({ storageClassName: '' }), withClasses, ''],
    ['the beta annotation names one', claim({}, { [BETA_STORAGE_CLASS_ANNOTATION]: 'slow' }), withClasses, undefined],
    ['no default exists', claim(), withoutClasses, undefined],
    ['updates are left alone', claim({}, undefined, 'UPDATE'), withClasses, undefined],
  ];
  for (const [what, req, d, want] of table) {
    const plugin = defaultStorageClassPlugin(d, undefined);
    if (plugin.handles(req.operation)) await plugin.admit!(req);
    assert.equal((req.object!.spec as Obj).storageClassName, want, what);
  }
});

test('reference behaviour (DefaultIngressClass): a new ingress without a class or the legacy annotation gets the default', async () => {
  const table: [string, AdmissionRequest, AdmissionDeps, unknown][] = [
    ['no class', ingress(), withClasses, 'nginx'],
    ['a class', ingress({ ingressClassName: 'traefik' }), withClasses, 'traefik'],
    ['the legacy annotation', ingress({}, { [LEGACY_INGRESS_CLASS_ANNOTATION]: 'haproxy' }), withClasses, undefined],
    ['no default exists', ingress(), withoutClasses, undefined],
  ];
  for (const [what, req, d, want] of table) {
    await defaultIngressClassPlugin(d, undefined).admit!(req);
    assert.equal((req.object!.spec as Obj).ingressClassName, want, what);
  }
});

test('reference behaviour (DefaultStorageClass, DefaultIngressClass): neither takes a configuration', () => {
  assert.throws(() => defaultStorageClassPlugin(withClasses, { a: 1 }), /plugin DefaultStorageClass takes no configuration/);
  assert.throws(() => defaultIngressClassPlugin(withClasses, { a: 1 }), /plugin DefaultIngressClass takes no configuration/);
});
