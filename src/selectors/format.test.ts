import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLabelMap, formatLabelSelector, labelMapString, labelSelectorString } from './format.js';

describe('workload selector strings (reference behaviour: labels.Selector.String)', () => {
  const cases: [string, unknown, string | undefined][] = [
    ['missing selector', undefined, ''],
    ['empty selector', {}, ''],
    ['one label', { matchLabels: { app: 'web' } }, 'app=web'],
    ['labels sorted by key', { matchLabels: { tier: 'fe', app: 'web' } }, 'app=web,tier=fe'],
    ['In with sorted values', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, 'tier in (a,b)'],
    ['In with one value keeps the parentheses', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] }, 'tier in (a)'],
    ['NotIn', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, 'env notin (prod)'],
    ['Exists', { matchExpressions: [{ key: 'canary', operator: 'Exists' }] }, 'canary'],
    ['DoesNotExist', { matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }, '!canary'],
    [
      'labels and expressions merged and sorted by key',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'a', operator: 'Exists' }] },
      'a,app=web,tier in (a,b)',
    ],
    ['unknown operator does not convert', { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, undefined],
  ];
  for (const [title, selector, want] of cases) {
    it(`reference behaviour: ${title}`, () => assert.equal(labelSelectorString(selector), want));
  }

  it('reference behaviour: table form prints <none> for empty and <error> for unconvertible selectors', () => {
    assert.equal(formatLabelSelector(undefined), '<none>');
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' } }), 'app=web');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
  });

  it('reference behaviour: label maps print sorted k=v pairs, <none> when empty in tables', () => {
    assert.equal(labelMapString({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(labelMapString(undefined), '');
    assert.equal(formatLabelMap({}), '<none>');
    assert.equal(formatLabelMap({ disk: 'ssd' }), 'disk=ssd');
  });
});
