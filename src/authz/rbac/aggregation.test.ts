import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateRules, sameRules } from './aggregation.js';
import type { ClusterRole, Rule } from './types.js';

const rule = (resource: string, verbs = ['get']): Rule => ({ apiGroups: [''], resources: [resource], verbs });
const cr = (name: string, labels: Record<string, string>, rules: Rule[], selectors?: Record<string, string>[]): ClusterRole => ({
  metadata: { name, labels },
  rules,
  ...(selectors ? { aggregationRule: { clusterRoleSelectors: selectors.map((matchLabels) => ({ matchLabels })) } } : {}),
});

describe('aggregateRules (spec 2.7 aggregation)', () => {
  it('spec 2.7: unions matching roles by name then rule order, deduplicated, excluding itself', () => {
    const agg = cr('agg', { a: 'true' }, [rule('stale')], [{ a: 'true' }, { b: 'true' }]);
    const all = [
      agg,
      cr('zeta', { a: 'true' }, [rule('z'), rule('shared')]),
      cr('alpha', { b: 'true' }, [rule('a1'), rule('shared'), rule('a2')]),
      cr('unrelated', { c: 'true' }, [rule('nope')]),
      cr('both', { a: 'true', b: 'true' }, [rule('a1')]),
    ];
    assert.deepEqual(aggregateRules(agg, all), [rule('a1'), rule('shared'), rule('a2'), rule('z')]);
  });

  it('spec 2.7: a newly labelled ClusterRole adds its rules', () => {
    const agg = cr('view', {}, [], [{ 'x/aggregate-to-view': 'true' }]);
    const before = aggregateRules(agg, [agg]);
    assert.deepEqual(before, []);
    const after = aggregateRules(agg, [agg, cr('extra', { 'x/aggregate-to-view': 'true' }, [rule('widgets', ['list'])])]);
    assert.deepEqual(after, [rule('widgets', ['list'])]);
    assert.equal(sameRules(before ?? [], after ?? []), false);
  });

  it('is undefined without an aggregationRule; an invalid selector selects nothing', () => {
    assert.equal(aggregateRules(cr('plain', {}, [rule('x')]), []), undefined);
    const bad: ClusterRole = { metadata: { name: 'bad' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'bad key!': 'v' } }] } };
    assert.deepEqual(aggregateRules(bad, [cr('other', { 'bad key!': 'v' }, [rule('x')])]), []);
  });
});
