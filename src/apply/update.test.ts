import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/types.js';
import { apply } from './apply.js';
import { leaves } from './fieldset.js';
import { decodeManagedFields, type ManagedFieldsEntry } from './managed.js';
import { recordUpdate } from './update.js';
import { deployment, deploymentSchema, T0, T1, T2 } from './testing.js';

const record = (live: ApiObject | undefined, updated: ApiObject, manager = 'kubectl', subresource?: string) =>
  recordUpdate({ live, updated, schema: deploymentSchema, manager, apiVersion: 'apps/v1', subresource, now: T2 });

/** Owned paths per entry, readable: `{ 'ci/Apply': ['f:spec f:paused'] }`. */
function owners(entries: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of decodeManagedFields(entries)) out[`${e.manager}/${e.operation}`] = leaves(e.set).map((p) => p.join(' '));
  return out;
}

const withManaged = (o: ApiObject, managedFields: unknown): ApiObject => ({
  ...o,
  metadata: { ...o.metadata, managedFields: managedFields as Record<string, unknown>[] },
});

// Live: applied by "ci" (replicas, paused), then "hpa" took over replicas through an update.
const applied = apply({
  live: undefined,
  applied: deployment({ replicas: 2, paused: true }, { labels: { app: 'web' } }),
  schema: deploymentSchema,
  manager: 'ci',
  force: false,
  apiVersion: 'apps/v1',
  now: T0,
}).object;
const live = withManaged(
  deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }),
  recordUpdate({ live: applied, updated: deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }), schema: deploymentSchema, manager: 'hpa', apiVersion: 'apps/v1', now: T1 }),
);

describe('spec 7: updates move ownership without conflicts', () => {
  const cases: { title: string; live: ApiObject | undefined; updated: ApiObject; manager?: string; subresource?: string; want: Record<string, string[]> }[] = [
    {
      title: 'a create owns every field it sets',
      live: undefined,
      updated: deployment({ replicas: 1 }, { labels: { a: 'b' } }),
      want: { 'kubectl/Update': ['f:metadata f:labels f:a', 'f:spec f:replicas'] },
    },
    {
      title: 'a changed field moves to the writer, from an Apply owner too',
      live,
      updated: withManaged(deployment({ replicas: 3, paused: false }, { labels: { app: 'web' } }), live.metadata?.managedFields),
      want: { 'ci/Apply': ['f:metadata f:labels f:app'], 'hpa/Update': ['f:spec f:replicas'], 'kubectl/Update': ['f:spec f:paused'] },
    },
    {
      title: 'a removed field leaves every set',
      live,
      updated: deployment({ replicas: 3, paused: true }),
      want: { 'ci/Apply': ['f:spec f:paused'], 'hpa/Update': ['f:spec f:replicas'] },
    },
    {
      title: "the same manager's updates merge into one entry",
      live,
      updated: deployment({ replicas: 4, paused: false }, { labels: { app: 'web' } }),
      manager: 'hpa',
      want: { 'ci/Apply': ['f:metadata f:labels f:app'], 'hpa/Update': ['f:spec f:paused', 'f:spec f:replicas'] },
    },
    {
      title: 'spec 4.3: [{}] resets, then the writer owns what this request changed',
      live,
      updated: withManaged(deployment({ replicas: 5, paused: true }, { labels: { app: 'web' } }), [{}]),
      want: { 'kubectl/Update': ['f:spec f:replicas'] },
    },
    {
      title: 'spec 4.3: [{}] with no other change drops every entry',
      live,
      updated: withManaged(deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }), [{}]),
      want: {},
    },
    {
      title: 'spec 4.3: [] is not a reset, live entries stay',
      live,
      updated: withManaged(deployment({ replicas: 5, paused: true }, { labels: { app: 'web' } }), []),
      want: { 'ci/Apply': ['f:metadata f:labels f:app', 'f:spec f:paused'], 'kubectl/Update': ['f:spec f:replicas'] },
    },
    {
      title: 'spec 4.3: another valid list replaces the live one',
      live,
      updated: withManaged(deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }), [
        { manager: 'mine', operation: 'Update', apiVersion: 'apps/v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } },
      ]),
      want: { 'mine/Update': ['f:spec f:paused'] },
    },
    {
      title: 'spec 4.3: an undecodable list is ignored (live entries stay)',
      live,
      updated: withManaged(deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }), [{ manager: 'x', operation: 'Nope' }]),
      want: { 'ci/Apply': ['f:metadata f:labels f:app', 'f:spec f:paused'], 'hpa/Update': ['f:spec f:replicas'] },
    },
    {
      title: 'spec 4.3: a subresource write never resets',
      live,
      updated: { ...withManaged(deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } }), [{}]), status: { replicas: 3 } },
      manager: 'ctl',
      subresource: 'status',
      want: { 'ci/Apply': ['f:metadata f:labels f:app', 'f:spec f:paused'], 'hpa/Update': ['f:spec f:replicas'], 'ctl/Update': ['f:status f:replicas'] },
    },
  ];
  it('the starting point: ci applied, then hpa took replicas by an update', () => {
    assert.deepEqual(owners(live.metadata?.managedFields), { 'ci/Apply': ['f:metadata f:labels f:app', 'f:spec f:paused'], 'hpa/Update': ['f:spec f:replicas'] });
  });

  for (const c of cases) {
    it(c.title, () => {
      assert.deepEqual(owners(record(c.live, c.updated, c.manager, c.subresource)), c.want);
    });
  }

  it('the writer entry records version, time and subresource', () => {
    const entries = record(live, { ...live, status: { replicas: 3 } }, 'ctl', 'status');
    const mine = entries.find((e) => e.manager === 'ctl') as ManagedFieldsEntry;
    assert.deepEqual(mine, {
      manager: 'ctl',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T2,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:replicas': {} } },
      subresource: 'status',
    });
    assert.equal(entries[entries.length - 1], mine, 'new entries come last');
  });

  it('a map entry that turns from an object into a scalar is a changed leaf', () => {
    const before = deployment({ config: { a: { b: 1 } } });
    const entries = record(before, deployment({ config: { a: 5 } }));
    assert.deepEqual(owners(entries), { 'kubectl/Update': ['f:spec f:config f:a'] });
  });

  it('a write that changes nothing returns the stored entries as they were', () => {
    assert.deepEqual(record(live, deployment({ replicas: 3, paused: true }, { labels: { app: 'web' } })), live.metadata?.managedFields);
  });

  it('after an update took a field, applying another value for it conflicts with the updater', () => {
    const entries = record(live, deployment({ replicas: 3, paused: false }, { labels: { app: 'web' } }));
    const now = withManaged(deployment({ replicas: 3, paused: false }, { labels: { app: 'web' } }), entries);
    assert.throws(
      () => apply({ live: now, applied: deployment({ replicas: 3, paused: true }), schema: deploymentSchema, manager: 'ci', force: false, apiVersion: 'apps/v1', now: T2 }),
      /conflict with "kubectl" using apps\/v1: \.spec\.paused/,
    );
  });
});
