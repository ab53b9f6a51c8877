import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { persistentVolumeClaims, PVC_SPEC_IMMUTABLE } from './persistent-volume-claims.js';

type Obj = Record<string, unknown>;
const s = persistentVolumeClaims.strategy;
const good = (storage: unknown = '1Gi'): Obj => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } });
const created = (spec: Obj, status?: Obj): ApiObject => {
  const o: ApiObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'ns' }, spec };
  s.prepareForCreate?.(o);
  if (status) o.status = status;
  return o;
};
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);
const cells = (o: ApiObject) => persistentVolumeClaims.tableColumns.map((c) => c.value(o));

describe('persistentvolumeclaims: type, defaults and table', () => {
  it('reference behaviour: short name pvc, Filesystem default, Pending on create', () => {
    assert.deepEqual(persistentVolumeClaims.shortNames, ['pvc']);
    const o = created(good());
    assert.equal((o.spec as Obj).volumeMode, 'Filesystem');
    assert.deepEqual(o.status, { phase: 'Pending' });
    assert.deepEqual(s.validate(o), []);
  });

  it('reference behaviour: table STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS, wide VOLUMEMODE', () => {
    assert.deepEqual(persistentVolumeClaims.tableColumns.map((c) => [c.name, c.priority]), [
      ['Status', 0], ['Volume', 0], ['Capacity', 0], ['Access Modes', 0], ['StorageClass', 0], ['VolumeAttributesClass', 0], ['VolumeMode', 1],
    ]);
    assert.deepEqual(cells(created(good())), ['Pending', '', '', '', '', '<unset>', 'Filesystem']);
    const bound = created({ ...good(), volumeName: 'pv1', storageClassName: 'fast' }, { phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce'] });
    assert.deepEqual(cells(bound), ['Bound', 'pv1', '2Gi', 'RWO', 'fast', '<unset>', 'Filesystem']);
  });
});

describe('persistentvolumeclaims: validation', () => {
  const cases: { name: string; spec: Obj; want: [string, string][] }[] = [
    { name: 'valid', spec: good(), want: [] },
    { name: 'access modes required', spec: { ...good(), accessModes: undefined }, want: [['spec.accessModes', 'FieldValueRequired']] },
    { name: 'access mode known', spec: { ...good(), accessModes: ['Sometimes'] }, want: [['spec.accessModes', 'FieldValueNotSupported']] },
    { name: 'storage request required', spec: { accessModes: ['ReadWriteOnce'] }, want: [['spec.resources[storage]', 'FieldValueRequired']] },
    { name: 'storage request positive', spec: good('0'), want: [['spec.resources[storage]', 'FieldValueInvalid']] },
    { name: 'storage request parses', spec: good('much'), want: [['spec.resources[storage]', 'FieldValueInvalid']] },
    { name: 'volume mode', spec: { ...good(), volumeMode: 'Raw' }, want: [['spec.volumeMode', 'FieldValueNotSupported']] },
    { name: 'selector operator', spec: { ...good(), selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, want: [['spec.selector.matchExpressions[0].operator', 'FieldValueInvalid']] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => assert.deepEqual(pairs(s.validate(created(c.spec))), c.want));
  }
});

describe('persistentvolumeclaims: updates', () => {
  const update = (now: ApiObject, old: ApiObject) => s.validateUpdate?.(now, old) ?? [];
  const cases: { name: string; old: ApiObject; now: ApiObject; want: [string, string][] }[] = [
    { name: 'unchanged', old: created(good()), now: created(good()), want: [] },
    { name: 'volumeName may be set once', old: created(good()), now: created({ ...good(), volumeName: 'pv1' }), want: [] },
    { name: 'volumeName not changed again', old: created({ ...good(), volumeName: 'pv1' }), now: created({ ...good(), volumeName: 'pv2' }), want: [['spec', 'FieldValueForbidden']] },
    { name: 'access modes immutable', old: created(good()), now: created({ ...good(), accessModes: ['ReadWriteMany'] }), want: [['spec', 'FieldValueForbidden']] },
    { name: 'bound claims may grow', old: created(good('1Gi'), { phase: 'Bound' }), now: created(good('2Gi'), { phase: 'Bound' }), want: [] },
    { name: 'unbound claims may not resize', old: created(good('1Gi')), now: created(good('2Gi')), want: [['spec', 'FieldValueForbidden']] },
    { name: 'no shrinking', old: created(good('2Gi'), { phase: 'Bound' }), now: created(good('1Gi'), { phase: 'Bound' }), want: [['spec.resources.requests.storage', 'FieldValueForbidden']] },
    { name: 'attributes class may change', old: created({ ...good(), volumeAttributesClassName: 'a' }), now: created({ ...good(), volumeAttributesClassName: 'b' }), want: [] },
    { name: 'attributes class not unset', old: created({ ...good(), volumeAttributesClassName: 'a' }), now: created(good()), want: [['spec.volumeAttributesClassName', 'FieldValueForbidden']] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => assert.deepEqual(pairs(update(c.now, c.old)), c.want));
  }

  it('reference behaviour: the forbidden-change message', () => {
    const errs = update(created({ ...good(), storageClassName: 'b' }), created(good()));
    assert.equal(errs[0]?.message, `Forbidden: ${PVC_SPEC_IMMUTABLE}`);
  });
});
