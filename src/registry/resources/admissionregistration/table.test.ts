import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { TableColumn } from '../../types.js';
import { mutatingWebhookConfigurations, validatingAdmissionPolicies, validatingAdmissionPolicyBindings, validatingWebhookConfigurations } from './index.js';

const cells = (columns: TableColumn[], o: ApiObject) => columns.map((c) => c.value(o));
const headers = (columns: TableColumn[]) => columns.map((c) => c.name);

test('reference behaviour: webhook configurations show the number of webhooks', () => {
  for (const t of [validatingWebhookConfigurations, mutatingWebhookConfigurations]) {
    assert.deepEqual(headers(t.tableColumns), ['Webhooks']);
    assert.deepEqual(cells(t.tableColumns, { kind: t.kind, webhooks: [{}, {}] }), [2]);
    assert.deepEqual(cells(t.tableColumns, { kind: t.kind }), [0]);
  }
});

test('reference behaviour: policies show VALIDATIONS and PARAMKIND (apiVersion/kind or <unset>)', () => {
  const cols = validatingAdmissionPolicies.tableColumns;
  assert.deepEqual(headers(cols), ['Validations', 'ParamKind']);
  assert.deepEqual(cells(cols, { kind: 'ValidatingAdmissionPolicy', spec: { validations: [{}, {}, {}], paramKind: { apiVersion: 'example.com/v1', kind: 'Limit' } } }), [3, 'example.com/v1/Limit']);
  assert.deepEqual(cells(cols, { kind: 'ValidatingAdmissionPolicy', spec: {} }), [0, '<unset>']);
});

test('reference behaviour: bindings show POLICYNAME and PARAMREF (ns/name, */name, selector or <unset>)', () => {
  const cols = validatingAdmissionPolicyBindings.tableColumns;
  assert.deepEqual(headers(cols), ['PolicyName', 'ParamRef']);
  const cases: [Record<string, unknown> | undefined, string][] = [
    [undefined, '<unset>'],
    [{ name: 'limits', namespace: 'team-a' }, 'team-a/limits'],
    [{ name: 'limits' }, '*/limits'],
    [{ selector: { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] } }, 'env in (dev,prod),tier=gold'],
  ];
  for (const [paramRef, want] of cases) {
    const o: ApiObject = { kind: 'ValidatingAdmissionPolicyBinding', spec: { policyName: 'p', ...(paramRef ? { paramRef } : {}) } };
    assert.deepEqual(cells(cols, o), ['p', want]);
  }
});
