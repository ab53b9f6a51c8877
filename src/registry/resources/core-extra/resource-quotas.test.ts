import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { renderTable } from '../../../encoding/index.js';
import { quotaCell, resourceQuotas, validateResourceQuota } from './resource-quotas.js';

type Obj = Record<string, unknown>;
const quota = (spec: Obj, status?: Obj): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q', namespace: 'ns', creationTimestamp: new Date(Date.now() - 5000).toISOString() },
  spec,
  ...(status ? { status } : {}),
});
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type, x.message.replace(/^.*: /, '')]);

describe('resourcequotas: validation', () => {
  const cases: { name: string; spec: Obj; want: [string, string, string][] }[] = [
    { name: 'standard names and quantities', spec: { hard: { pods: '10', 'requests.cpu': '500m', 'limits.memory': '2Gi', 'count/deployments.apps': '3', 'requests.example.com/gpu': '1' } }, want: [] },
    { name: 'unknown unqualified name', spec: { hard: { bananas: '1' } }, want: [['spec.hard[bananas]', 'FieldValueInvalid', 'must be a standard resource type or fully qualified'], ['spec.hard[bananas]', 'FieldValueInvalid', 'must be a standard resource for quota']] },
    { name: 'negative amount', spec: { hard: { cpu: '-1' } }, want: [['spec.hard[cpu]', 'FieldValueInvalid', 'must be greater than or equal to 0']] },
    { name: 'object counts are whole', spec: { hard: { pods: '1.5' } }, want: [['spec.hard[pods]', 'FieldValueInvalid', 'must be an integer']] },
    { name: 'quantity must parse', spec: { hard: { memory: 'big' } }, want: [['spec.hard[memory]', 'FieldValueInvalid', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]] },
    { name: 'known scope', spec: { hard: { pods: '1' }, scopes: ['Sometimes'] }, want: [['spec.scopes', 'FieldValueInvalid', 'unsupported scope']] },
    { name: 'scope must track the resource', spec: { hard: { secrets: '1' }, scopes: ['BestEffort'] }, want: [['spec.scopes', 'FieldValueInvalid', 'unsupported scope applied to resource']] },
    { name: 'conflicting scopes', spec: { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }, want: [['spec.scopes', 'FieldValueInvalid', 'conflicting scopes']] },
    { name: 'scope selector In needs values', spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }, want: [['spec.scopeSelector.matchExpressions[0].values', 'FieldValueRequired', "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"]] },
    { name: 'scope selector Exists only', spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'DoesNotExist' }] } }, want: [['spec.scopeSelector.matchExpressions[0].operator', 'FieldValueInvalid', "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"]] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => assert.deepEqual(pairs(validateResourceQuota(quota(c.spec))), c.want));
  }

  it('reference behaviour: status amounts follow the same rules', () => {
    assert.deepEqual(pairs(validateResourceQuota(quota({}, { used: { pods: '-1' } }))), [['status.used[pods]', 'FieldValueInvalid', 'must be greater than or equal to 0']]);
  });
});

describe('resourcequotas: type and table', () => {
  it('reference behaviour: short name quota, status subresource', () => {
    assert.deepEqual(resourceQuotas.shortNames, ['quota']);
    assert.deepEqual(resourceQuotas.subresources, ['status']);
  });

  it('reference behaviour: kubectl get quota shows NAME AGE REQUEST LIMIT', () => {
    const o = quota({ hard: { pods: '10' } }, { hard: { pods: '10', 'limits.cpu': '2', 'requests.cpu': '1' }, used: { pods: '3', 'requests.cpu': '500m' } });
    const table = renderTable(resourceQuotas, [o]) as unknown as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    assert.deepEqual(table.columnDefinitions.map((c) => c.name), ['Name', 'Age', 'Request', 'Limit']);
    assert.deepEqual(table.rows[0]?.cells, ['q', '5s', 'pods: 3/10, requests.cpu: 500m/1', 'limits.cpu: 0/2']);
  });

  it('reference behaviour: an uncounted quota (no status yet) shows empty cells', () => {
    assert.equal(quotaCell(quota({ hard: { pods: '1' } }), false), '');
    assert.equal(quotaCell(quota({ hard: { pods: '1' } }), true), '');
  });
});
