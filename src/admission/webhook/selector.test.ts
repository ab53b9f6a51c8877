import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileLabelSelector } from './selector.js';

test('reference behaviour: namespace and object selectors match labels with matchLabels and each operator', () => {
  const cases: [string, unknown, Record<string, string>, boolean][] = [
    ['empty matches all', {}, {}, true],
    ['matchLabels', { matchLabels: { a: 'b' } }, { a: 'b', c: 'd' }, true],
    ['matchLabels other value', { matchLabels: { a: 'b' } }, { a: 'x' }, false],
    ['In', { matchExpressions: [{ key: 'a', operator: 'In', values: ['b', 'c'] }] }, { a: 'c' }, true],
    ['In absent', { matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] }, {}, false],
    ['NotIn absent', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['b'] }] }, {}, true],
    ['NotIn listed', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['b'] }] }, { a: 'b' }, false],
    ['Exists', { matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' }, false],
    ['all requirements', { matchLabels: { x: 'y' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '1' }, false],
  ];
  for (const [name, sel, labels, want] of cases) assert.equal(compileLabelSelector(sel, 's').matches(labels), want, name);
  assert.equal(compileLabelSelector({}, 's').empty, true);
  assert.equal(compileLabelSelector({ matchLabels: { a: 'b' } }, 's').empty, false);
});

test('reference behaviour: a selector that cannot be compiled names its field', () => {
  assert.throws(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] }, 'webhooks[0].objectSelector'), /webhooks\[0\]\.objectSelector\.matchExpressions\[0\]\.operator/);
  assert.throws(() => compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, 's'), /s\.matchExpressions\[0\]\.values/);
});
