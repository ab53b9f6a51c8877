import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { StorageObjectInUseProtectionPlugin, storageObjectInUseProtectionPlugin } from './storage-protection.js';

const write = (resource: string, metadata: Record<string, unknown> = {}, over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    name: 'x',
    namespace: resource === 'persistentvolumes' ? '' : 'default',
    resource: { group: '', version: 'v1', resource },
    object: { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x', ...metadata }, spec: {} } as ApiObject,
    ...over,
  });

admissionPluginContract('StorageObjectInUseProtection', {
  make: () => new StorageObjectInUseProtectionPlugin(),
  cases: [
    { title: 'a new claim', request: () => write('persistentvolumeclaims') },
    { title: 'a new volume that already has the finalizer', request: () => write('persistentvolumes', { finalizers: [PV_PROTECTION_FINALIZER] }) },
    { title: 'a config map', request: () => write('configmaps') },
  ],
});

test('reference behaviour (StorageObjectInUseProtection): new claims and volumes get their protection finalizer once; nothing else changes', async () => {
  const plugin = new StorageObjectInUseProtectionPlugin();
  const table: [string, AdmissionRequest, unknown][] = [
    ['a claim', write('persistentvolumeclaims'), [PVC_PROTECTION_FINALIZER]],
    ['a volume', write('persistentvolumes'), [PV_PROTECTION_FINALIZER]],
    ['a claim with other finalizers keeps them first', write('persistentvolumeclaims', { finalizers: ['a/b'] }), ['a/b', PVC_PROTECTION_FINALIZER]],
    ['a claim that has it already', write('persistentvolumeclaims', { finalizers: [PVC_PROTECTION_FINALIZER] }), [PVC_PROTECTION_FINALIZER]],
    ['a config map', write('configmaps'), undefined],
    ['a claim in another group', write('persistentvolumeclaims', {}, { resource: { group: 'example.com', version: 'v1', resource: 'persistentvolumeclaims' } }), undefined],
    ['the status subresource of a claim', write('persistentvolumeclaims', {}, { subResource: 'status' }), undefined],
  ];
  for (const [what, req, want] of table) {
    await plugin.admit(req);
    assert.deepEqual(req.object?.metadata?.finalizers, want, what);
  }
  assert.deepEqual(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].map((op) => plugin.handles(op as 'CREATE')), [true, false, false, false]);
});

test('reference behaviour (StorageObjectInUseProtection): the plugin takes no configuration', () => {
  const deps = { objects: { get: async () => undefined, list: async () => [] }, equivalentResources: () => [], kindOf: () => undefined, log: () => undefined };
  assert.throws(() => storageObjectInUseProtectionPlugin(deps, { a: 1 }), /takes no configuration/);
  assert.equal(storageObjectInUseProtectionPlugin(deps, undefined).name, 'StorageObjectInUseProtection');
});
