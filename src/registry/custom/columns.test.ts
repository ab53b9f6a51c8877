import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnCell, printerColumns, selectableFieldsOf } from './columns.js';

describe('custom resource printer columns and selectable fields (spec 2.6, reference behaviour)', () => {
  const now = Date.parse('2024-01-01T01:00:00Z');
  const cases: [string, unknown, unknown][] = [
    ['integer', 3, 3],
    ['integer', 3.7, 3],
    ['integer', 'x', null],
    ['number', 1.5, 1.5],
    ['boolean', true, true],
    ['boolean', 'true', null],
    ['string', 'a', 'a'],
    ['string', 5, '5'],
    ['string', { a: 1 }, '{"a":1}'],
    ['date', '2024-01-01T00:00:00Z', '60m'],
    ['date', 'nonsense', '<invalid>'],
    ['string', undefined, null],
  ];
  for (const [type, value, want] of cases) {
    it(`spec 2.6: a ${type} column shows ${JSON.stringify(value)} as ${JSON.stringify(want)}`, () => assert.deepEqual(columnCell(type, value, now), want));
  }

  it('spec 2.6: columns keep their name, type, priority and evaluate their JSON path', () => {
    const [c] = printerColumns([{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 }]);
    assert.deepEqual([c?.name, c?.type, c?.priority], ['Replicas', 'integer', 1]);
    assert.equal(c?.value({ spec: { replicas: 4 } }), 4);
    assert.equal(c?.value({}), null);
  });

  it('reference behaviour: selectable fields are named without the leading dot, and every one is present', () => {
    const f = selectableFieldsOf([{ jsonPath: '.spec.color' }, { jsonPath: '.spec.size' }]);
    assert.deepEqual(f?.({ spec: { color: 'red', size: 3 } }), { 'spec.color': 'red', 'spec.size': '3' });
    assert.deepEqual(f?.({ metadata: {} }), { 'spec.color': '', 'spec.size': '' });
    assert.equal(selectableFieldsOf([]), undefined);
  });
});
