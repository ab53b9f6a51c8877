import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { componentStatuses, componentStatusObject } from './component-statuses.js';

const cells = (o: ReturnType<typeof componentStatusObject>) => componentStatuses.tableColumns.map((c) => c.value(o));

describe('componentstatuses: computed objects and table', () => {
  it('reference behaviour: short name cs, cluster-scoped, get and list only', () => {
    assert.deepEqual(componentStatuses.shortNames, ['cs']);
    assert.equal(componentStatuses.namespaced, false);
    assert.deepEqual(componentStatuses.verbs, ['get', 'list']);
  });

  const cases = [
    { probe: { result: 'success', message: 'ok', error: '' }, condition: { type: 'Healthy', status: 'True', message: 'ok' }, row: ['Healthy', 'ok', ''] },
    { probe: { result: 'failure', message: 'refused', error: '' }, condition: { type: 'Healthy', status: 'False', message: 'refused' }, row: ['Unhealthy', 'refused', ''] },
    { probe: { result: 'unknown', message: '', error: 'no probe' }, condition: { type: 'Healthy', status: 'Unknown', error: 'no probe' }, row: ['Unhealthy', '', 'no probe'] },
  ] as const;
  for (const c of cases) {
    it(`reference behaviour: a ${c.probe.result} probe is one Healthy condition and table row ${c.row[0]}`, () => {
      const o = componentStatusObject('etcd-0', c.probe);
      assert.equal(o.kind, 'ComponentStatus');
      assert.equal(o.metadata?.name, 'etcd-0');
      assert.deepEqual(o.conditions, [c.condition]);
      assert.deepEqual(cells(o), c.row);
    });
  }

  it('reference behaviour: without a Healthy condition the status is Unknown', () => {
    assert.deepEqual(cells({ kind: 'ComponentStatus', metadata: { name: 'x' }, conditions: [] }), ['Unknown', '', '']);
  });
});
