import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { serviceaccounts } from './index.js';

const s = serviceaccounts.strategy;
const sa = (extra: ApiObject = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'default' }, ...extra });

describe('serviceaccounts', () => {
  it('API reference: identity and schema', () => {
    assert.equal(serviceaccounts.kind, 'ServiceAccount');
    assert.equal(serviceaccounts.listKind, 'ServiceAccountList');
    assert.deepEqual(serviceaccounts.shortNames, ['sa']);
    assert.equal(serviceaccounts.namespaced, true);
    assert.equal(serviceaccounts.storageKey, 'core/serviceaccounts');
    assert.equal(s.nameRule, 'subdomain');
    assert.equal(serviceaccounts.schema.properties?.secrets?.['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(serviceaccounts.selectableFields, undefined);
  });

  it('API reference: secret references with names are valid', () => {
    assert.deepEqual(s.validate(sa()), []);
    assert.deepEqual(s.validate(sa({ secrets: [{ name: 'tok' }], imagePullSecrets: [{ name: 'pull' }], automountServiceAccountToken: false })), []);
  });

  it('API reference: secrets and imagePullSecrets entries need a name', () => {
    const errs = s.validate(sa({ secrets: [{ name: 'a' }, {}], imagePullSecrets: [{ name: '' }] }));
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [
      ['secrets[1].name', 'FieldValueRequired'],
      ['imagePullSecrets[0].name', 'FieldValueRequired'],
    ]);
  });

  it('API reference: wrong field types are reported', () => {
    const errs = s.validate(sa({ secrets: 'x', automountServiceAccountToken: 'yes' }));
    assert.deepEqual(errs.map((e) => [e.field, e.type]), [
      ['secrets', 'FieldValueTypeInvalid'],
      ['automountServiceAccountToken', 'FieldValueTypeInvalid'],
    ]);
  });

  it('API reference: table shows the number of secrets', () => {
    assert.deepEqual(serviceaccounts.tableColumns.map((c) => c.name), ['Secrets']);
    assert.equal(serviceaccounts.tableColumns[0]?.value(sa({ secrets: [{ name: 'a' }, { name: 'b' }] })), 2);
    assert.equal(serviceaccounts.tableColumns[0]?.value(sa()), 0);
  });
});
