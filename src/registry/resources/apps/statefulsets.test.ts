import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { statefulsets } from './index.js';

type Obj = Record<string, unknown>;
const s = statefulsets.strategy;
const template = (labels: Obj = { app: 'db' }, spec: Obj = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'db', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/var/lib/pg' }] }], ...spec },
});
const statefulSet = (spec: Obj = {}): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'db' } },
    serviceName: 'db',
    template: template(),
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    ...spec,
  },
});
const created = (spec?: Obj) => {
  const o = statefulSet(spec);
  s.prepareForCreate?.(o);
  return o;
};
const specOf = (o: ApiObject) => o.spec as Obj;
const errs = (spec: Obj) => s.validate(created(spec));
const updateErrors = (change: Obj) => {
  const old = created();
  const next = statefulSet(change);
  s.prepareForUpdate?.(next, old);
  return [...s.validate(next), ...(s.validateUpdate?.(next, old) ?? [])];
};

describe('statefulsets: defaults (reference behaviour)', () => {
  it('reference behaviour: identity, sts short name, DNS-label names, status replicas', () => {
    assert.deepEqual(statefulsets.shortNames, ['sts']);
    assert.deepEqual(statefulsets.categories, ['all']);
    assert.equal(s.nameRule, 'label');
    assert.deepEqual(created().status, { replicas: 0, availableReplicas: 0 });
  });

  it('reference behaviour: apps/v1 defaults of a minimal statefulset', () => {
    const spec = specOf(created());
    assert.equal(spec.replicas, 1);
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    const claim = (spec.volumeClaimTemplates as Obj[])[0] as { spec: Obj; status: Obj };
    assert.equal(claim.spec.volumeMode, 'Filesystem');
    assert.deepEqual(claim.status, { phase: 'Pending' });
  });

  it('reference behaviour: an explicit RollingUpdate without rollingUpdate stays so; OnDelete gets no partition', () => {
    assert.deepEqual(specOf(created({ updateStrategy: { type: 'RollingUpdate' } })).updateStrategy, { type: 'RollingUpdate' });
    assert.deepEqual(specOf(created({ updateStrategy: { type: 'OnDelete' } })).updateStrategy, { type: 'OnDelete' });
    assert.deepEqual(specOf(created({ updateStrategy: { rollingUpdate: { partition: 2 } } })).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 2 } });
  });

  it('reference behaviour: maxUnavailable (a disabled alpha field) is dropped on create', () => {
    const spec = specOf(created({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } } }));
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  });
});

describe('statefulsets: validation (reference behaviour)', () => {
  it('reference behaviour: a valid statefulset passes although its mounts name a claim template', () => {
    assert.deepEqual(errs({}), []);
  });

  const bad: [string, Obj, string, string][] = [
    ['selector required', { selector: undefined }, 'spec.selector', 'Required value'],
    ['empty selector', { selector: {} }, 'spec.selector', 'empty selector is invalid for statefulset'],
    ['template labels must match', { template: template({ app: 'web' }) }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['bad pod management policy', { podManagementPolicy: 'Random' }, 'spec.podManagementPolicy', "must be 'OrderedReady' or 'Parallel'"],
    ['bad update strategy type', { updateStrategy: { type: 'Blue' } }, 'spec.updateStrategy', "must be 'RollingUpdate' or 'OnDelete'"],
    ['rollingUpdate with OnDelete', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }, 'spec.updateStrategy.rollingUpdate', "only allowed for updateStrategy 'RollingUpdate'"],
    ['negative partition', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } }, 'spec.updateStrategy.rollingUpdate.partition', 'must be greater than or equal to 0'],
    ['bad retention policy', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } }, 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', 'supported values: "Retain", "Delete"'],
    ['negative replicas', { replicas: -1 }, 'spec.replicas', 'must be greater than or equal to 0'],
    ['negative ordinals start', { ordinals: { start: -1 } }, 'spec.ordinals.start', 'must be greater than or equal to 0'],
    ['restartPolicy must be Always', { template: template({ app: 'db' }, { restartPolicy: 'Never' }) }, 'spec.template.spec.restartPolicy', 'supported values: "Always"'],
    ['no activeDeadlineSeconds', { template: template({ app: 'db' }, { activeDeadlineSeconds: 5 }) }, 'spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'],
    ['rollingUpdate that is not an object', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: 3 } }, 'spec.updateStrategy.rollingUpdate', 'must be an object'],
    ['claim templates that are not a list', { volumeClaimTemplates: 'data' }, 'spec.volumeClaimTemplates', 'must be an array of objects'],
    ['bad template label', { selector: { matchLabels: { app: 'db' } }, template: template({ app: 'db', 'bad key!': 'x' }) }, 'spec.template.labels', 'Invalid value'],
  ];
  for (const [title, spec, field, message] of bad) {
    it(`reference behaviour: ${title} is rejected at ${field}`, () => {
      const found = errs(spec).find((e) => e.field === field && e.message.includes(message));
      assert.ok(found, JSON.stringify(errs(spec)));
    });
  }
});

describe('statefulsets: updates (reference behaviour)', () => {
  const allowed: [string, Obj][] = [
    ['replicas', { replicas: 5 }],
    ['template', { template: template({ app: 'db' }, { containers: [{ name: 'db', image: 'postgres:17' }] }) }],
    ['updateStrategy', { updateStrategy: { type: 'OnDelete' } }],
    ['minReadySeconds', { minReadySeconds: 10 }],
    ['revisionHistoryLimit', { revisionHistoryLimit: 3 }],
    ['ordinals', { ordinals: { start: 1 } }],
    ['persistentVolumeClaimRetentionPolicy', { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' } }],
  ];
  for (const [title, change] of allowed) {
    it(`reference behaviour: ${title} may change`, () => assert.deepEqual(updateErrors(change), []));
  }

  const forbidden: [string, Obj][] = [
    ['selector', { selector: { matchLabels: { app: 'db', x: 'y' } }, template: template({ app: 'db', x: 'y' }) }],
    ['serviceName', { serviceName: 'other' }],
    ['volumeClaimTemplates', { volumeClaimTemplates: [] }],
    ['podManagementPolicy', { podManagementPolicy: 'Parallel' }],
  ];
  for (const [title, change] of forbidden) {
    it(`reference behaviour: ${title} may not change`, () => {
      const e = updateErrors(change);
      assert.deepEqual(e.map((x) => x.field), ['spec']);
      assert.match(e[0]?.message ?? '', /^Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden$/);
    });
  }
});

describe('statefulsets: table and scale (reference behaviour)', () => {
  it('reference behaviour: READY, wide CONTAINERS and IMAGES; scale uses the selector string', () => {
    assert.deepEqual(statefulsets.tableColumns.map((c) => [c.name, c.priority]), [['Ready', 0], ['Containers', 1], ['Images', 1]]);
    const o = created({ replicas: 3 });
    o.status = { replicas: 3, readyReplicas: 1 };
    assert.equal(statefulsets.tableColumns[0]?.value(o), '1/3');
    assert.equal(statefulsets.tableColumns[2]?.value(o), 'postgres:16');
    assert.equal(statefulsets.scale?.selector(o), 'app=db');
    assert.equal(statefulsets.scale?.statusReplicasPath, 'status.replicas');
  });
});
