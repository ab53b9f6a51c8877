import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError } from '../../../errors/index.js';
import { validateLabelSelector } from '../../validation/index.js';
import { intOrPercentValue, notOver100Percent, semanticallyEqual, validateIntOrPercent } from './workload-validation.js';

const intOrPercentErrors = (v: unknown) => {
  const errs: FieldError[] = [];
  validateIntOrPercent(errs, 'x', v);
  notOver100Percent(errs, 'x', v);
  return errs.map((e) => e.message.replace(/^Invalid value: .*?: /, ''));
};

describe('workload rule helpers (reference behaviour)', () => {
  const limits: [unknown, number, string[]][] = [
    [undefined, 0, []],
    [0, 0, []],
    [3, 3, []],
    ['25%', 25, []],
    ['100%', 100, []],
    ['150%', 150, ['must not be greater than 100%']],
    [-1, -1, ['must be greater than or equal to 0']],
    ['25', 25, ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"]],
    ['abc', 0, ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%' or '93%', regex used for validation is '[0-9]+%')"]],
    [1.5, 1.5, ["must be an integer or percentage (e.g '5%')"]],
  ];
  for (const [v, value, errors] of limits) {
    it(`reference behaviour: int-or-percent ${JSON.stringify(v)} reads ${value} with ${errors.length} error(s)`, () => {
      assert.equal(intOrPercentValue(v), value);
      assert.deepEqual(intOrPercentErrors(v), errors);
    });
  }

  const selectors: [string, unknown, string[]][] = [
    ['labels and expressions', { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] }, []],
    ['Exists with values', { matchExpressions: [{ key: 'c', operator: 'Exists', values: ['x'] }] }, ['s.matchExpressions[0].values']],
    ['bad key', { matchExpressions: [{ key: '-c', operator: 'Exists' }] }, ['s.matchExpressions[0].key']],
    ['bad value', { matchExpressions: [{ key: 'c', operator: 'In', values: ['a b'] }] }, ['s.matchExpressions[0].values[0]']],
    ['bad label value', { matchLabels: { a: 'b c' } }, ['s.matchLabels']],
    ['not an object', 'a=b', ['s']],
  ];
  for (const [title, sel, fields] of selectors) {
    it(`reference behaviour: label selector validation, ${title}`, () => {
      assert.deepEqual(validateLabelSelector(sel, 's').map((e) => e.field), fields);
    });
  }

  it('reference behaviour: semantic equality treats missing, null and empty lists and maps alike', () => {
    assert.ok(semanticallyEqual({ a: [], b: null, c: {} }, {}));
    assert.ok(semanticallyEqual({ matchLabels: { a: 'b' }, matchExpressions: [] }, { matchLabels: { a: 'b' } }));
    assert.ok(!semanticallyEqual({ a: [1] }, { a: [] }));
    assert.ok(!semanticallyEqual({ a: 'x' }, { a: 'y' }));
  });
});
