import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { disruptionsAllowed, disruptionStatus, podDisruptionBudgets, scaledValue } from './index.js';
import { validatePodDisruptionBudget } from './validation.js';

type Obj = Record<string, any>;
const pairs = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const selector = { matchLabels: { app: 'web' } };
const pdb = (spec: Obj, status?: Obj): ApiObject => ({ metadata: { name: 'web', namespace: 'default' }, spec: { selector, ...spec }, ...(status ? { status } : {}) });

const NOW = Date.parse('2024-01-01T12:00:00Z');
/** A pod of the default namespace; `ready` sets its Ready condition. */
function pod(name: string, ready: boolean, extra: Obj = {}): ApiObject {
  return {
    metadata: { name, namespace: 'default', labels: { app: 'web' }, ...extra.metadata },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}
const threeReady = () => [pod('a', true), pod('b', true), pod('c', true)];

describe('PodDisruptionBudget validation (reference behaviour)', () => {
  const cases: [string, Obj, string[]][] = [
    ['minAvailable as an integer', { minAvailable: 2 }, []],
    ['maxUnavailable as a percent', { maxUnavailable: '25%' }, []],
    ['neither is set (the reference allows it)', {}, []],
    ['both set', { minAvailable: 1, maxUnavailable: 1 }, ['FieldValueInvalid spec']],
    ['a negative integer', { minAvailable: -1 }, ['FieldValueInvalid spec.minAvailable']],
    ['a percent above 100', { maxUnavailable: '101%' }, ['FieldValueInvalid spec.maxUnavailable']],
    ['a string that is not a percent', { minAvailable: 'half' }, ['FieldValueInvalid spec.minAvailable']],
    ['an unknown unhealthy pod eviction policy', { minAvailable: 1, unhealthyPodEvictionPolicy: 'Sometimes' }, ['FieldValueNotSupported spec.unhealthyPodEvictionPolicy']],
    ['known eviction policies', { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' }, []],
    ['a bad selector', { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }, ['FieldValueRequired spec.selector.matchExpressions[0].values']],
    ['a bad selector operator', { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] } }, ['FieldValueInvalid spec.selector.matchExpressions[0].operator']],
  ];
  for (const [title, spec, want] of cases) {
    it(title, () => assert.deepEqual(pairs(validatePodDisruptionBudget(pdb(spec))), want));
  }

  it('the error for a bad percent names the expected form', () => {
    assert.match(validatePodDisruptionBudget(pdb({ minAvailable: '5 %' }))[0]?.message ?? '', /a valid percent string must be a numeric string followed by an ending '%'/);
  });

  it('table: MIN AVAILABLE, MAX UNAVAILABLE (N/A when unset), ALLOWED DISRUPTIONS', () => {
    const row = podDisruptionBudgets.tableColumns.map((c) => c.value(pdb({ maxUnavailable: '50%' }, { disruptionsAllowed: 2 })));
    assert.deepEqual(row, ['N/A', '50%', 2]);
    assert.deepEqual(podDisruptionBudgets.shortNames, ['pdb']);
  });
});

describe('disruptionsAllowed: the disruption controller arithmetic (reference behaviour)', () => {
  const cases: [string, Obj, ApiObject[], number, Obj?][] = [
    ['minAvailable 2 of 3 ready pods: 1', { minAvailable: 2 }, threeReady(), 1],
    ['minAvailable 3 of 3 ready pods: 0', { minAvailable: 3 }, threeReady(), 0],
    ['minAvailable above the healthy count never goes negative', { minAvailable: 5 }, threeReady(), 0],
    ['minAvailable 0 allows all healthy pods', { minAvailable: 0 }, threeReady(), 3],
    ['minAvailable 50% rounds up: 2 of 3 needed', { minAvailable: '50%' }, threeReady(), 1],
    ['maxUnavailable 1 of 3', { maxUnavailable: 1 }, threeReady(), 1],
    ['maxUnavailable 1 with one pod already unready: 0', { maxUnavailable: 1 }, [pod('a', true), pod('b', true), pod('c', false)], 0],
    ['maxUnavailable 34% of 3 rounds up to 2', { maxUnavailable: '34%' }, threeReady(), 2],
    ['maxUnavailable 100% allows every healthy pod', { maxUnavailable: '100%' }, threeReady(), 3],
    ['terminating pods are not healthy', { minAvailable: 1 }, [pod('a', true, { metadata: { deletionTimestamp: '2024-01-01T11:59:00Z' } }), pod('b', true)], 0],
    ['pods evicted within two minutes are not healthy', { minAvailable: 1 }, threeReady(), 1, { disruptedPods: { a: '2024-01-01T11:59:00Z' } }],
    ['an eviction older than two minutes no longer counts', { minAvailable: 1 }, threeReady(), 2, { disruptedPods: { a: '2024-01-01T11:57:00Z' } }],
    ['no matching pods: 0', { minAvailable: 0 }, [], 0],
    ['neither minAvailable nor maxUnavailable: 0', {}, threeReady(), 0],
    ['a malformed percent: 0', { maxUnavailable: 'lots' }, threeReady(), 0],
    ['pods of other namespaces or labels do not count', { minAvailable: 1 }, [pod('a', true), { ...pod('x', true), metadata: { name: 'x', namespace: 'other', labels: { app: 'web' } } }, { ...pod('y', true), metadata: { name: 'y', namespace: 'default', labels: { app: 'db' } } }], 0],
  ];
  for (const [title, spec, pods, want, status] of cases) {
    it(title, () => assert.equal(disruptionsAllowed(pdb(spec, status), pods, { now: NOW }), want));
  }

  it('an empty selector covers every pod of the namespace; a missing one covers none', () => {
    assert.equal(disruptionsAllowed(pdb({ minAvailable: 1, selector: {} }), threeReady(), { now: NOW }), 2);
    const noSelector: ApiObject = { metadata: { name: 'x', namespace: 'default' }, spec: { minAvailable: 0 } };
    assert.equal(disruptionsAllowed(noSelector, threeReady(), { now: NOW }), 0);
  });

  it('percentages use the expected pod count when the caller knows the controllers scale', () => {
    // 4 replicas wanted, 3 exist and are ready: 50% of 4 = 2 must stay, so 1 may go.
    assert.deepEqual(disruptionStatus(pdb({ minAvailable: '50%' }), threeReady(), { now: NOW, expectedPods: 4 }), {
      expectedPods: 4,
      currentHealthy: 3,
      desiredHealthy: 2,
      disruptionsAllowed: 1,
    });
  });

  it('scaledValue rounds percentages up and refuses other strings', () => {
    assert.equal(scaledValue(3, 10), 3);
    assert.equal(scaledValue('25%', 10), 3);
    assert.equal(scaledValue('0%', 10), 0);
    assert.equal(scaledValue('3', 10), undefined);
  });
});
