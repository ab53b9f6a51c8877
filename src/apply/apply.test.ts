import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/types.js';
import { StatusError } from '../errors/index.js';
import { apply, type ApplyArgs } from './apply.js';
import { leaves } from './fieldset.js';
import { decodeManagedFields, type ManagedFieldsEntry } from './managed.js';
import { recordUpdate } from './update.js';
import { deployment, deploymentSchema, T0, T1, T2, T3 } from './testing.js';

const run = (live: ApiObject | undefined, applied: ApiObject, manager: string, extra: Partial<ApplyArgs> = {}) =>
  apply({ live, applied, schema: deploymentSchema, manager, force: false, apiVersion: 'apps/v1', now: T1, ...extra });

/** An object written by a plain update of `manager` (an `Update` entry owning everything it set). */
function updatedBy(manager: string, o: ApiObject, live?: ApiObject, now = T0): ApiObject {
  const managedFields = recordUpdate({ live, updated: o, schema: deploymentSchema, manager, apiVersion: 'apps/v1', now });
  return { ...o, metadata: { ...o.metadata, managedFields: managedFields as unknown as Record<string, unknown>[] } };
}

/** Owned paths per manager, readable. */
function owners(o: ApiObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of decodeManagedFields(o.metadata?.managedFields)) {
    out[`${e.manager}/${e.operation}`] = leaves(e.set).map((p) => p.join(' '));
  }
  return out;
}

const containers = (...cs: Record<string, unknown>[]) => ({ template: { spec: { containers: cs } } });
const C = 'k:{"name":"c"}';

describe('spec 4.3: apply creates and is idempotent', () => {
  const config = deployment({ replicas: 2, ...containers({ name: 'c', image: 'nginx' }) }, { labels: { app: 'web' } });

  it('apply create: the object is the configuration, owned by one Apply entry', () => {
    const r = run(undefined, config, 'ci', { now: T0 });
    const want: ManagedFieldsEntry = {
      manager: 'ci',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: T0,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:replicas': {},
          'f:template': { 'f:spec': { 'f:containers': { [C]: { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      },
    };
    assert.deepEqual(r.managedFields, [want]);
    assert.deepEqual(r.object, { ...config, metadata: { ...config.metadata, managedFields: [want] } });
  });

  it('applying the same configuration again returns live unchanged (time kept)', () => {
    const first = run(undefined, config, 'ci', { now: T0 }).object;
    const again = run(first, config, 'ci', { now: T2 });
    assert.deepEqual(again.object, first);
    assert.equal(again.managedFields[0]?.time, T0);
  });

  it('a changed value of an owned field updates the entry time', () => {
    const first = run(undefined, config, 'ci', { now: T0 }).object;
    const r = run(first, deployment({ replicas: 4, ...containers({ name: 'c', image: 'nginx' }) }, { labels: { app: 'web' } }), 'ci', { now: T2 });
    assert.equal((r.object.spec as { replicas: number }).replicas, 4);
    assert.equal(r.managedFields[0]?.time, T2);
  });

  it('metadata.managedFields in the configuration is a 400', () => {
    assert.throws(
      () => run(undefined, deployment({}, { managedFields: [] }), 'ci'),
      (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === 'metadata.managedFields must be nil',
    );
  });
});

describe('spec 7: apply conflicts', () => {
  const edited = updatedBy('kubectl-edit', deployment({ replicas: 3, paused: false, ...containers({ name: 'c', image: 'nginx:1' }) }));
  const byApplier = run(undefined, deployment({ replicas: 3 }), 'helm', { now: T0 }).object;
  const statusEntry = recordUpdate({
    live: undefined,
    updated: { ...deployment({}), status: { replicas: 1 } },
    schema: deploymentSchema,
    manager: 'ctl',
    apiVersion: 'apps/v1',
    subresource: 'status',
    now: T0,
  });

  const cases: { title: string; live: ApiObject; applied: ApiObject; message: string; fields: string[]; managers: string[] }[] = [
    {
      title: 'one field owned by an Update manager',
      live: edited,
      applied: deployment({ replicas: 5 }),
      message: 'Apply failed with 1 conflict: conflict with "kubectl-edit" using apps/v1: .spec.replicas',
      fields: ['.spec.replicas'],
      managers: ['kubectl-edit'],
    },
    {
      title: 'every conflicting field is listed',
      live: edited,
      applied: deployment({ replicas: 5, paused: false, ...containers({ name: 'c', image: 'nginx:2' }) }),
      message:
        'Apply failed with 2 conflicts: conflict with "kubectl-edit" using apps/v1: .spec.replicas\n' +
        'conflict with "kubectl-edit" using apps/v1: .spec.template.spec.containers[name="c"].image',
      fields: ['.spec.replicas', '.spec.template.spec.containers[name="c"].image'],
      managers: ['kubectl-edit', 'kubectl-edit'],
    },
    {
      title: 'a field owned by another applier (no version in the message)',
      live: byApplier,
      applied: deployment({ replicas: 1 }),
      message: 'Apply failed with 1 conflict: conflict with "helm": .spec.replicas',
      fields: ['.spec.replicas'],
      managers: ['helm'],
    },
    {
      title: 'a field owned through a subresource',
      live: { ...deployment({}), status: { replicas: 1 }, metadata: { ...deployment({}).metadata, managedFields: statusEntry as never } },
      applied: { ...deployment({}), status: { replicas: 2 } },
      message: 'Apply failed with 1 conflict: conflict with "ctl" with subresource "status" using apps/v1: .status.replicas',
      fields: ['.status.replicas'],
      managers: ['ctl'],
    },
  ];
  for (const c of cases) {
    it(`conflict: ${c.title}`, () => {
      assert.throws(
        () => run(c.live, c.applied, 'ci'),
        (e: unknown) => {
          assert.ok(e instanceof StatusError);
          assert.equal(e.code, 409);
          assert.equal(e.reason, 'Conflict');
          assert.equal(e.message, c.message);
          assert.deepEqual(
            e.details?.causes,
            c.fields.map((field, i) => ({ reason: 'FieldManagerConflict', message: `conflict with "${c.managers[i]}": ${field}`, field })),
          );
          return true;
        },
      );
    });
  }

  it('the same value is shared ownership, not a conflict', () => {
    const r = run(edited, deployment({ replicas: 3 }), 'ci');
    assert.deepEqual(owners(r.object)['ci/Apply'], ['f:spec f:replicas']);
    assert.ok(owners(r.object)['kubectl-edit/Update']?.includes('f:spec f:replicas'));
  });

  it('force takes ownership: the field leaves the other manager, the rest stays', () => {
    const r = run(edited, deployment({ replicas: 5, paused: false }), 'ci', { force: true });
    assert.equal((r.object.spec as { replicas: number }).replicas, 5);
    const o = owners(r.object);
    assert.deepEqual(o['ci/Apply'], ['f:spec f:paused', 'f:spec f:replicas']);
    assert.equal(o['kubectl-edit/Update']?.includes('f:spec f:replicas'), false);
    assert.equal(o['kubectl-edit/Update']?.includes('f:spec f:paused'), true, 'equal value stays shared');
    assert.ok(o['kubectl-edit/Update']?.includes(`f:spec f:template f:spec f:containers ${C} f:image`));
  });
});

describe('spec 4.3: apply merges by schema', () => {
  it('set lists union (new values before the first applied one), atomic maps replace, unowned live fields stay', () => {
    const live = updatedBy('kubectl', deployment({ tags: ['a', 'b'], selector: { matchLabels: { x: '1', y: '2' } }, paused: true }));
    const r = run(live, deployment({ tags: ['c', 'a'], selector: { matchLabels: { z: '3' } } }), 'ci', { force: true });
    assert.deepEqual(r.object.spec, { tags: ['c', 'a', 'b'], selector: { matchLabels: { z: '3' } }, paused: true });
  });

  it('map lists merge by key, keeping fields others set', () => {
    const live = updatedBy('kubectl', deployment(containers({ name: 'c', image: 'i', args: ['x'] }, { name: 'd', image: 'j' })));
    const r = run(live, deployment(containers({ name: 'e', image: 'k' }, { name: 'c', image: 'i' })), 'ci');
    assert.deepEqual(r.object.spec, containers({ name: 'e', image: 'k' }, { name: 'c', image: 'i', args: ['x'] }, { name: 'd', image: 'j' }));
  });

  it('duplicate keys in the configuration are a 400', () => {
    assert.throws(
      () => run(undefined, deployment(containers({ name: 'c' }, { name: 'c' })), 'ci'),
      (e: unknown) => e instanceof StatusError && e.code === 400 && /duplicate entries for key \[name="c"\]/.test(e.message),
    );
  });
});

describe('spec 4.3: fields no longer applied', () => {
  const first = run(undefined, deployment({ replicas: 2, paused: true }, { labels: { app: 'web' } }), 'ci', { now: T0 }).object;
  const coOwned = run(first, deployment({ paused: true }), 'other', { now: T1 }).object;

  const cases: { title: string; live: ApiObject; applied: ApiObject; spec: unknown; labels: unknown }[] = [
    {
      title: 'an omitted field nobody else owns is removed (and so is the emptied labels map)',
      live: first,
      applied: deployment({ replicas: 2 }),
      spec: { replicas: 2 },
      labels: undefined,
    },
    {
      title: 'an omitted field another manager owns is kept',
      live: coOwned,
      applied: deployment({ replicas: 2 }, { labels: { app: 'web' } }),
      spec: { replicas: 2, paused: true },
      labels: { app: 'web' },
    },
  ];
  for (const c of cases) {
    it(c.title, () => {
      const r = run(c.live, c.applied, 'ci', { now: T2 });
      assert.deepEqual(r.object.spec, c.spec);
      assert.deepEqual(r.object.metadata?.labels, c.labels);
    });
  }

  it('an explicit null removes the field but keeps it owned', () => {
    const r = run(first, deployment({ replicas: 2, paused: null }, { labels: { app: 'web' } }), 'ci', { now: T2 });
    assert.deepEqual(r.object.spec, { replicas: 2 });
    assert.deepEqual(owners(r.object)['ci/Apply'], ['f:metadata f:labels f:app', 'f:spec f:paused', 'f:spec f:replicas']);
  });

  it('an empty configuration gives up everything and drops the entry', () => {
    const { spec: _, ...bare } = deployment({});
    const r = run(first, bare, 'ci', { now: T2 });
    assert.equal(r.object.spec, undefined);
    assert.equal(r.object.metadata?.managedFields, undefined);
    assert.deepEqual(r.managedFields, []);
  });

  it('a given-up field that is already gone leaves its (unowned) empty parent alone', () => {
    const stale = {
      ...deployment({ config: {} }),
      metadata: {
        name: 'web',
        namespace: 'default',
        managedFields: [{ manager: 'ci', operation: 'Apply', apiVersion: 'apps/v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:config': { 'f:gone': {} } } } }],
      },
    };
    const { spec: _, ...bare } = deployment({});
    const r = run(stale, bare, 'ci', { now: T2 });
    assert.deepEqual(r.object.spec, { config: {} });
    assert.deepEqual(r.managedFields, []);
  });

  const twoContainers = run(undefined, deployment(containers({ name: 'c', image: 'i' }, { name: 'd', image: 'j', args: ['a'] })), 'ci', { now: T0 }).object;
  const touched = updatedBy(
    'kubectl',
    deployment(containers({ name: 'c', image: 'i' }, { name: 'd', image: 'j2', args: ['a'] })),
    twoContainers,
    T1,
  );
  const elementCases: { title: string; live: ApiObject; want: unknown; ciOwnsD: boolean }[] = [
    {
      title: 'a map-list element nobody else owns is removed with all its fields',
      live: twoContainers,
      want: containers({ name: 'c', image: 'i' }),
      ciOwnsD: false,
    },
    {
      title: 'a map-list element whose field another manager owns stays (with its key), minus the unowned fields',
      live: touched,
      want: containers({ name: 'c', image: 'i' }, { name: 'd', image: 'j2' }),
      ciOwnsD: false,
    },
  ];
  for (const c of elementCases) {
    it(c.title, () => {
      const r = run(c.live, deployment(containers({ name: 'c', image: 'i' })), 'ci', { now: T3, force: true });
      assert.deepEqual(r.object.spec, c.want);
      const mine = owners(r.object)['ci/Apply'] ?? [];
      assert.equal(mine.some((p) => p.includes('k:{"name":"d"}')), c.ciOwnsD);
    });
  }
});
