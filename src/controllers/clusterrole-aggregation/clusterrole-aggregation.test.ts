import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregatedRole } from './controller.js';

const rule = (r: string) => ({ apiGroups: [''], resources: [r], verbs: ['get'] });
const role = (name: string, labels: Record<string, string>, rules: ReturnType<typeof rule>[], aggregate?: Record<string, string>) => ({
  metadata: { name, labels, resourceVersion: '3' },
  rules,
  ...(aggregate ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregate }] } } : {}),
});

describe('ClusterRole aggregation decisions (spec 5.8)', () => {
  const sources = [role('b', { x: '1' }, [rule('pods'), rule('secrets')]), role('a', { x: '1' }, [rule('pods')]), role('c', { x: '2' }, [rule('nodes')])];
  it('spec 5.8: an aggregated role gets the union of matching roles, by role name, without duplicates', () => {
    const agg = role('agg', {}, [], { x: '1' });
    assert.deepEqual(aggregatedRole(agg, [agg, ...sources])?.rules, [rule('pods'), rule('secrets')]);
    assert.equal(aggregatedRole(agg, [agg, ...sources])?.metadata.resourceVersion, '3');
  });
  it('spec 5.8: no write when the rules are already right, or for a role without aggregationRule', () => {
    const done = role('agg', {}, [rule('pods'), rule('secrets')], { x: '1' });
    assert.equal(aggregatedRole(done, [done, ...sources]), undefined);
    assert.equal(aggregatedRole(sources[0] as ReturnType<typeof role>, sources), undefined);
  });
});
