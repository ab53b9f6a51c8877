import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { csiDrivers } from './csi-driver.js';
import { csiNodes } from './csi-node.js';
import { csiStorageCapacities } from './csi-storage-capacity.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const obj = (kind: string, body: Record<string, unknown>, name = 'csi.example.com'): ApiObject => ({ apiVersion: `${STORAGE_GROUP}/v1`, kind, metadata: { name }, ...body });

// ---- CSIDriver ---------------------------------------------------------------------------------------------

const driver = (spec: Record<string, unknown>, name?: string) => {
  const o = obj('CSIDriver', { spec }, name);
  csiDrivers.strategy.prepareForCreate?.(o);
  return o;
};

test('reference behaviour, CSIDriver defaults every optional field', () => {
  assert.deepEqual(driver({}).spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    requiresRepublish: false,
    seLinuxMount: false,
    volumeLifecycleModes: ['Persistent'],
  });
  const o = obj('CSIDriver', {});
  csiDrivers.strategy.prepareForCreate?.(o);
  assert.equal((o.spec as { attachRequired: boolean }).attachRequired, true, 'a missing spec is defaulted too');
  assert.deepEqual((driver({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'] }).spec as Record<string, unknown>).volumeLifecycleModes, ['Ephemeral']);
});

const driverCases: { name: string; spec: Record<string, unknown>; driverName?: string; want: string[] }[] = [
  { name: 'token requests and both modes', spec: { tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }, { audience: '' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'], fsGroupPolicy: 'File' }, want: [] },
  { name: 'a name over 63 characters', spec: {}, driverName: `${'a'.repeat(60)}.example.com`, want: ['FieldValueTooLong name'] },
  { name: 'an unknown fsGroupPolicy', spec: { fsGroupPolicy: 'Always' }, want: ['FieldValueNotSupported spec.fsGroupPolicy'] },
  { name: 'an unknown lifecycle mode', spec: { volumeLifecycleModes: ['Persistent', 'Forever'] }, want: ['FieldValueNotSupported spec.volumeLifecycleModes'] },
  { name: 'a duplicate audience', spec: { tokenRequests: [{ audience: 'a' }, { audience: 'a' }] }, want: ['FieldValueDuplicate spec.tokenRequests[1].audience'] },
  { name: 'token lifetimes too short and too long', spec: { tokenRequests: [{ audience: 'a', expirationSeconds: 599 }, { audience: 'b', expirationSeconds: 2 ** 32 + 1 }] }, want: ['FieldValueInvalid spec.tokenRequests[0].expirationSeconds', 'FieldValueInvalid spec.tokenRequests[1].expirationSeconds'] },
  { name: 'a flag of the wrong type', spec: { podInfoOnMount: 'yes' }, want: ['FieldValueTypeInvalid spec.podInfoOnMount'] },
];

for (const c of driverCases) {
  test(`reference behaviour, CSIDriver validation: ${c.name}`, () => {
    assert.deepEqual(summary(csiDrivers.strategy.validate(driver(c.spec, c.driverName))), c.want);
  });
}

test('reference behaviour, CSIDriver: attachRequired and volumeLifecycleModes are immutable; podInfoOnMount, fsGroupPolicy and the rest may change', () => {
  const old = driver({});
  const table: { change: Record<string, unknown>; want: string[] }[] = [
    { change: { podInfoOnMount: true, fsGroupPolicy: 'File', storageCapacity: true, requiresRepublish: true, tokenRequests: [{ audience: 'x' }] }, want: [] },
    { change: { attachRequired: false }, want: ['FieldValueInvalid spec.attachRequired'] },
    { change: { volumeLifecycleModes: ['Ephemeral'] }, want: ['FieldValueInvalid spec.volumeLifecycleModes'] },
  ];
  for (const { change, want } of table) {
    const next = driver({ ...(old.spec as object), ...change });
    assert.deepEqual(summary(csiDrivers.strategy.validateUpdate?.(next, old) ?? []), want, JSON.stringify(change));
  }
});

test('reference behaviour, CSIDriver table ATTACHREQUIRED, PODINFOONMOUNT, STORAGECAPACITY, TOKENREQUESTS, REQUIRESREPUBLISH, MODES', () => {
  assert.deepEqual(csiDrivers.tableColumns.map((c) => c.name), ['AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes']);
  const cells = (o: ApiObject) => csiDrivers.tableColumns.map((c) => c.value(o));
  assert.deepEqual(cells(driver({})), [true, false, false, '<unset>', false, 'Persistent']);
  assert.deepEqual(cells(obj('CSIDriver', {})), [true, false, false, '<unset>', false, '<none>']);
  const rich = driver({ attachRequired: false, podInfoOnMount: true, storageCapacity: true, requiresRepublish: true, tokenRequests: [{ audience: 'a' }, { audience: 'b' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] });
  assert.deepEqual(cells(rich), [false, true, true, 'a,b', true, 'Persistent,Ephemeral']);
});

// ---- CSINode -----------------------------------------------------------------------------------------------

const node = (drivers: unknown[]) => obj('CSINode', { spec: { drivers } }, 'node-1');
const nodeCases: { name: string; drivers: unknown[]; want: string[] }[] = [
  { name: 'two drivers with topology keys and a count', drivers: [{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 10 } }, { name: 'b.example.com', nodeID: 'n1' }], want: [] },
  { name: 'a driver without a name or node ID', drivers: [{}], want: ['FieldValueRequired spec.drivers[0].name', 'FieldValueRequired spec.drivers[0].nodeID'] },
  { name: 'the same driver twice', drivers: [{ name: 'a.b', nodeID: 'x' }, { name: 'a.b', nodeID: 'y' }], want: ['FieldValueDuplicate spec.drivers[1].name'] },
  { name: 'a node ID over 256 characters', drivers: [{ name: 'a.b', nodeID: 'x'.repeat(257) }], want: ['FieldValueInvalid spec.drivers[0].nodeID'] },
  { name: 'a negative count', drivers: [{ name: 'a.b', nodeID: 'x', allocatable: { count: -1 } }], want: ['FieldValueInvalid spec.drivers[0].allocatable.count'] },
  { name: 'bad and repeated topology keys', drivers: [{ name: 'a.b', nodeID: 'x', topologyKeys: ['k', 'k', 'bad key'] }], want: ['FieldValueDuplicate spec.drivers[0]', 'FieldValueInvalid spec.drivers[0]'] },
];

for (const c of nodeCases) {
  test(`reference behaviour, CSINode validation: ${c.name}`, () => {
    assert.deepEqual(summary(csiNodes.strategy.validate(node(c.drivers))), c.want);
  });
}

test('reference behaviour, CSINode: a registered driver entry cannot change, but drivers come and go; table DRIVERS', () => {
  const old = node([{ name: 'a.b', nodeID: 'x' }]);
  assert.deepEqual(csiNodes.strategy.validateUpdate?.(node([{ name: 'c.d', nodeID: 'y' }]), old), []);
  assert.deepEqual(csiNodes.strategy.validateUpdate?.(node([{ name: 'a.b', nodeID: 'x' }, { name: 'c.d', nodeID: 'y' }]), old), []);
  assert.deepEqual(summary(csiNodes.strategy.validateUpdate?.(node([{ name: 'a.b', nodeID: 'z' }]), old) ?? []), ['FieldValueInvalid CSINodeDriver']);
  assert.deepEqual(csiNodes.tableColumns.map((c) => [c.name, c.value(old)]), [['Drivers', 1]]);
  assert.equal(csiNodes.tableColumns[0]?.value(obj('CSINode', {})), 0);
});

// ---- CSIStorageCapacity ------------------------------------------------------------------------------------

const capacity = (body: Record<string, unknown>) => ({ ...obj('CSIStorageCapacity', body, 'cap-1'), metadata: { name: 'cap-1', namespace: 'storage' } });
const capacityCases: { name: string; body: Record<string, unknown>; want: string[] }[] = [
  { name: 'a full entry', body: { storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { zone: 'a' } } }, want: [] },
  { name: 'no storageClassName', body: {}, want: ['FieldValueRequired storageClassName'] },
  { name: 'a storageClassName that is not a subdomain', body: { storageClassName: 'Fast' }, want: ['FieldValueInvalid storageClassName'] },
  { name: 'a negative or unparsable capacity', body: { storageClassName: 'f', capacity: '-1Gi', maximumVolumeSize: 'lots' }, want: ['FieldValueInvalid capacity', 'FieldValueInvalid maximumVolumeSize'] },
  { name: 'a bad node topology', body: { storageClassName: 'f', nodeTopology: { matchExpressions: [{ key: 'z', operator: 'In' }] } }, want: ['FieldValueRequired nodeTopology.matchExpressions[0].values'] },
];

for (const c of capacityCases) {
  test(`reference behaviour, CSIStorageCapacity validation: ${c.name}`, () => {
    assert.deepEqual(summary(csiStorageCapacities.strategy.validate(capacity(c.body))), c.want);
  });
}

test('reference behaviour, CSIStorageCapacity: storageClassName and nodeTopology are immutable, capacity is not; table STORAGECLASSNAME, CAPACITY', () => {
  const old = capacity({ storageClassName: 'f', capacity: '1Gi', nodeTopology: { matchLabels: { zone: 'a' } } });
  const upd = (body: Record<string, unknown>) => summary(csiStorageCapacities.strategy.validateUpdate?.(capacity({ ...old, ...body }), old) ?? []);
  assert.deepEqual(upd({ storageClassName: 'f', nodeTopology: { matchLabels: { zone: 'a' } }, capacity: '2Gi' }), []);
  assert.deepEqual(upd({ storageClassName: 'g', nodeTopology: { matchLabels: { zone: 'b' } } }), ['FieldValueInvalid nodeTopology', 'FieldValueInvalid storageClassName']);
  assert.deepEqual(csiStorageCapacities.tableColumns.map((c) => [c.name, c.value(old)]), [['StorageClassName', 'f'], ['Capacity', '1Gi']]);
  assert.equal(csiStorageCapacities.tableColumns[1]?.value(capacity({ storageClassName: 'f' })), '<unset>');
});
