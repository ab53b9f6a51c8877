import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BETA_STORAGE_CLASS_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { persistentVolumes } from './persistent-volumes.js';

type Obj = Record<string, unknown>;
const s = persistentVolumes.strategy;
const pv = (spec: Obj, extra: Obj = {}): ApiObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec, ...extra });
const good = (): Obj => ({ capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } });
const created = (spec: Obj, extra: Obj = {}) => {
  const o = pv(spec, extra);
  s.prepareForCreate?.(o);
  return o;
};
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);
const cells = (o: ApiObject) => persistentVolumes.tableColumns.map((c) => c.value(o));

describe('persistentvolumes: type, defaults and table', () => {
  it('reference behaviour: short name pv, cluster-scoped, status subresource', () => {
    assert.deepEqual(persistentVolumes.shortNames, ['pv']);
    assert.equal(persistentVolumes.namespaced, false);
    assert.deepEqual(persistentVolumes.subresources, ['status']);
  });

  it('reference behaviour: defaults Retain and Filesystem; a new volume is Pending whatever status was sent', () => {
    const o = created(good(), { status: { phase: 'Bound' } });
    const spec = o.spec as Obj;
    assert.equal(spec.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(spec.volumeMode, 'Filesystem');
    assert.equal((o.status as Obj).phase, 'Pending');
    assert.ok((o.status as Obj).lastPhaseTransitionTime);
    assert.deepEqual(s.validate(o), []);
    const kept = created({ ...good(), persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' });
    assert.equal((kept.spec as Obj).persistentVolumeReclaimPolicy, 'Delete');
    assert.equal((kept.spec as Obj).volumeMode, 'Block');
  });

  it('reference behaviour: a status write that changes the phase stamps lastPhaseTransitionTime', () => {
    const old = created(good());
    (old.status as Obj).lastPhaseTransitionTime = '2020-01-01T00:00:00Z';
    const same = { ...old, status: { phase: 'Pending' } };
    s.prepareForStatusUpdate?.(same, old);
    assert.equal((same.status as Obj).lastPhaseTransitionTime, '2020-01-01T00:00:00Z');
    const moved = { ...old, status: { phase: 'Available' } };
    s.prepareForStatusUpdate?.(moved, old);
    assert.notEqual((moved.status as Obj).lastPhaseTransitionTime, '2020-01-01T00:00:00Z');
  });

  it('reference behaviour: table cells CAPACITY ... REASON, wide VOLUMEMODE', () => {
    assert.deepEqual(persistentVolumes.tableColumns.map((c) => [c.name, c.priority]), [
      ['Capacity', 0], ['Access Modes', 0], ['Reclaim Policy', 0], ['Status', 0], ['Claim', 0],
      ['StorageClass', 0], ['VolumeAttributesClass', 0], ['Reason', 0], ['VolumeMode', 1],
    ]);
    const o = created({ ...good(), accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany'], storageClassName: 'fast', claimRef: { namespace: 'ns', name: 'data' } });
    assert.deepEqual(cells(o), ['10Gi', 'RWO,ROX,RWX', 'Retain', 'Pending', 'ns/data', 'fast', '<unset>', '', 'Filesystem']);
    const annotated = created(good(), { metadata: { name: 'pv2', annotations: { [BETA_STORAGE_CLASS_ANNOTATION]: 'old' }, deletionTimestamp: '2024-01-01T00:00:00Z' } });
    assert.deepEqual(cells(annotated).slice(3, 7), ['Terminating', '', 'old', '<unset>']);
  });
});

describe('persistentvolumes: validation', () => {
  const cases: { name: string; spec: Obj; want: [string, string][] }[] = [
    { name: 'valid', spec: good(), want: [] },
    { name: 'capacity required', spec: { ...good(), capacity: undefined }, want: [['spec.capacity', 'FieldValueRequired']] },
    { name: 'capacity only storage', spec: { ...good(), capacity: { storage: '1Gi', cpu: '1' } }, want: [['spec.capacity', 'FieldValueNotSupported']] },
    { name: 'capacity positive', spec: { ...good(), capacity: { storage: '0' } }, want: [['spec.capacity[storage]', 'FieldValueInvalid']] },
    { name: 'capacity parses', spec: { ...good(), capacity: { storage: 'lots' } }, want: [['spec.capacity[storage]', 'FieldValueInvalid']] },
    { name: 'access modes required', spec: { ...good(), accessModes: [] }, want: [['spec.accessModes', 'FieldValueRequired']] },
    { name: 'access mode known', spec: { ...good(), accessModes: ['ReadSometimes'] }, want: [['spec.accessModes', 'FieldValueNotSupported']] },
    { name: 'RWOP alone', spec: { ...good(), accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }, want: [['spec.accessModes', 'FieldValueForbidden']] },
    { name: 'a source required', spec: { ...good(), hostPath: undefined }, want: [['spec', 'FieldValueRequired']] },
    { name: 'one source only', spec: { ...good(), nfs: { server: 'n', path: '/x' } }, want: [['spec.nfs', 'FieldValueForbidden']] },
    { name: 'source fields', spec: { ...good(), hostPath: undefined, csi: { driver: 'd' } }, want: [['spec.csi.volumeHandle', 'FieldValueRequired']] },
    { name: 'local needs affinity', spec: { ...good(), hostPath: undefined, local: { path: '/mnt' } }, want: [['spec.nodeAffinity', 'FieldValueRequired']] },
    { name: 'reclaim policy', spec: { ...good(), persistentVolumeReclaimPolicy: 'Keep' }, want: [['spec.persistentVolumeReclaimPolicy', 'FieldValueNotSupported']] },
    { name: 'volume mode', spec: { ...good(), volumeMode: 'Raw' }, want: [['spec.volumeMode', 'FieldValueNotSupported']] },
    { name: 'class name', spec: { ...good(), storageClassName: 'Not_Valid' }, want: [['spec.storageClassName', 'FieldValueInvalid']] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => assert.deepEqual(pairs(s.validate(created(c.spec))), c.want));
  }

  it('reference behaviour: the volume source and volume mode are immutable', () => {
    const old = created(good());
    const same = created(good());
    assert.deepEqual(s.validateUpdate?.(same, old), []);
    const moved = created({ ...good(), hostPath: { path: '/other' } });
    assert.deepEqual(pairs(s.validateUpdate?.(moved, old) ?? []), [['spec.persistentvolumesource', 'FieldValueForbidden']]);
    const block = created({ ...good(), volumeMode: 'Block' });
    assert.deepEqual(pairs(s.validateUpdate?.(block, old) ?? []), [['volumeMode', 'FieldValueInvalid']]);
    const grown = created({ ...good(), capacity: { storage: '20Gi' } });
    assert.deepEqual(s.validateUpdate?.(grown, old), [], 'capacity may change');
  });
});
