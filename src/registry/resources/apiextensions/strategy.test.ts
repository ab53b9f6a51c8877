import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CRD_CLEANUP_FINALIZER } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { renderTable } from '../../../encoding/index.js';
import type { FieldError } from '../../../errors/index.js';
import { ensureServingCerts } from '../../../server/tls.js';
import { customResourceDefinitions as crds } from './index.js';
import { widgetCRD } from './fixtures.js';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const s = crds.strategy;
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const create = (o: Any = widgetCRD()): Any => {
  s.prepareForCreate?.(o);
  return o;
};
/** An update as the store runs it: the status hook, then validation against the stored object. */
const update = (old: Any, change: (o: Any) => void, status = false): { o: Any; errs: string[] } => {
  const o = structuredClone(old);
  change(o);
  if (status) s.prepareForStatusUpdate?.(o, old);
  else s.prepareForUpdate?.(o, old);
  return { o, errs: summary([...s.validate(o), ...(s.validateUpdate?.(o, old) ?? [])]) };
};
const established = (o: Any): Any => ({ ...structuredClone(o), status: { ...structuredClone(o.status), conditions: [{ type: 'Established', status: 'True' }] } });
const v2 = (o: Any, storage: boolean) => ({ ...structuredClone(o.spec.versions[0]), name: 'v2', storage });

test('reference behaviour, CRD defaults: singular and listKind from the kind, conversion None, served/storage written out', () => {
  const o = widgetCRD() as Any;
  delete o.spec.names.singular;
  delete o.spec.names.listKind;
  o.spec.versions[0].served = undefined;
  create(o);
  assert.equal(o.spec.names.singular, 'widget');
  assert.equal(o.spec.names.listKind, 'WidgetList');
  assert.deepEqual(o.spec.conversion, { strategy: 'None' });
  assert.equal(o.spec.versions[0].served, false);
  assert.deepEqual(summary(s.validate(o)), []);
  const withService = create({ ...widgetCRD(), spec: { ...(widgetCRD().spec as object), conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'c', namespace: 'n' } }, conversionReviewVersions: ['v1'] } } } });
  assert.equal(withService.spec.conversion.webhook.clientConfig.service.port, 443);
});

test('reference behaviour, CRD status on create: only the storage version recorded, empty accepted names, user status dropped', () => {
  const o = widgetCRD() as Any;
  o.status = { conditions: [{ type: 'Established', status: 'True' }], storedVersions: ['v0'], acceptedNames: { plural: 'x', kind: 'X' } };
  create(o);
  assert.deepEqual(o.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
});

test('spec 9.6, CRD update: status is kept, a new storage version is added to storedVersions, the stored object is untouched', () => {
  const old = create();
  const { o, errs } = update(old, (n) => {
    n.spec.versions[0].storage = false;
    n.spec.versions.push(v2(n, true));
    n.status = { storedVersions: [] };
  });
  assert.deepEqual(errs, []);
  assert.deepEqual(o.status.storedVersions, ['v1', 'v2']);
  assert.deepEqual(old.status.storedVersions, ['v1']);
});

test('spec 9.6, CRD update: a version listed in status.storedVersions cannot be removed from spec.versions', () => {
  const old = create();
  const twoVersions = update(old, (n) => {
    n.spec.versions[0].storage = false;
    n.spec.versions.push(v2(n, true));
  }).o;
  const { errs } = update(twoVersions, (n) => n.spec.versions.shift());
  assert.deepEqual(errs, ['FieldValueInvalid status.storedVersions[0]']);
  const [err] = s.validate(update(twoVersions, (n) => n.spec.versions.shift()).o);
  assert.match(err?.message ?? '', /v1 was previously a storage version, and must remain in spec\.versions/);
});

test('spec 9.6, CRD update: group and plural are immutable; scope and kind only once established', () => {
  const old = create();
  const rename = (n: Any) => {
    n.spec.group = 'other.example.com';
    n.spec.names.plural = 'gadgets';
    n.metadata.name = 'gadgets.other.example.com';
  };
  assert.deepEqual(update(old, rename).errs, ['FieldValueInvalid spec.group', 'FieldValueInvalid spec.names.plural']);
  const rescope = (n: Any) => {
    n.spec.scope = 'Cluster';
    n.spec.names.kind = 'Gadget';
    n.spec.names.listKind = 'GadgetList';
  };
  assert.deepEqual(update(old, rescope).errs, []);
  assert.deepEqual(update(established(old), rescope).errs, ['FieldValueInvalid spec.scope', 'FieldValueInvalid spec.names.kind']);
});

test('reference behaviour, CRD conversion caBundle: accepted unparsed before the CRD is established, checked after', async () => {
  const withCA = (ca: string) => (n: Any) =>
    (n.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://conv.example/c', caBundle: ca }, conversionReviewVersions: ['v1'] } });
  const junk = Buffer.from('no certificate here').toString('base64');
  const old = create();
  assert.deepEqual(update(old, withCA(junk)).errs, []);
  assert.deepEqual(update(established(old), withCA(junk)).errs, ['FieldValueInvalid spec.conversion.webhook.clientConfig.caBundle']);
  const storedJunk = established(update(old, withCA(junk)).o);
  assert.deepEqual(update(storedJunk, withCA(Buffer.from('still junk').toString('base64'))).errs, []);
  const dir = mkdtempSync(join(tmpdir(), 'orch-crd-ca-'));
  try {
    const { caCertPem } = await ensureServingCerts(dir, { hosts: [] });
    assert.deepEqual(update(established(old), withCA(Buffer.from(caCertPem).toString('base64'))).errs, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('reference behaviour, CRD status write: spec kept from the stored object, status validated', () => {
  const old = create();
  const { o, errs } = update(old, (n) => {
    n.spec.scope = 'Cluster';
    n.status.acceptedNames = { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' };
    n.status.conditions = [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', lastTransitionTime: '2024-01-01T00:00:00Z' }];
  }, true);
  assert.deepEqual(errs, []);
  assert.equal(o.spec.scope, 'Namespaced');
  assert.equal(o.status.acceptedNames.kind, 'Widget');
  const bad = update(old, (n) => (n.status.acceptedNames = { plural: 'Bad_Plural', kind: 'W' }), true);
  assert.deepEqual(bad.errs, ['FieldValueInvalid status.acceptedNames.plural']);
});

test('reference behaviour, CRD type: cluster-scoped, status subresource, short names crd/crds, category api-extensions, default table', () => {
  assert.equal(crds.namespaced, false);
  assert.deepEqual(crds.subresources, ['status']);
  assert.deepEqual(crds.shortNames, ['crd', 'crds']);
  assert.deepEqual(crds.categories, ['api-extensions']);
  assert.equal(crds.selectableFields, undefined);
  const o: ApiObject = create();
  o.metadata = { ...o.metadata, creationTimestamp: '2024-01-02T03:04:05Z' };
  const table = renderTable(crds, [o]);
  assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'Created At']);
  assert.deepEqual(table.rows[0]?.cells, ['widgets.example.com', '2024-01-02T03:04:05Z']);
});

test('reference behaviour, CRD create: the cleanup finalizer is there from the start (once), so no delete can skip the instances', () => {
  const o = create();
  assert.deepEqual(o.metadata.finalizers, [CRD_CLEANUP_FINALIZER]);
  const again = widgetCRD() as Any;
  again.metadata.finalizers = ['example.com/keep', CRD_CLEANUP_FINALIZER];
  assert.deepEqual(create(again).metadata.finalizers, ['example.com/keep', CRD_CLEANUP_FINALIZER]);
});
