import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PUBLIC_NAMESPACE, SYSTEM_NAMESPACE } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionOperation, AdmissionRequest } from '../types.js';
import { NamespaceLifecyclePlugin } from './namespace-lifecycle.js';

const ns = (name: string, terminating = false): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...(terminating ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
  status: { phase: terminating ? 'Terminating' : 'Active' },
});
const objects = fixedObjects({ '/namespaces': [ns('default'), ns(SYSTEM_NAMESPACE), ns(PUBLIC_NAMESPACE), ns('live'), ns('leaving', true)] });
const configMap = (namespace: string, operation: AdmissionOperation, name = 'cm'): AdmissionRequest =>
  admissionRequest({ operation, namespace, name, object: operation === 'DELETE' ? undefined : { metadata: { name, namespace } } });
const nsDelete = (name: string) =>
  admissionRequest({ operation: 'DELETE', namespace: '', name, resource: { group: '', version: 'v1', resource: 'namespaces' }, kind: { group: '', version: 'v1', kind: 'Namespace' } });

admissionPluginContract('NamespaceLifecycle', {
  make: () => new NamespaceLifecyclePlugin(objects),
  cases: [
    { title: 'a create in an active namespace', request: () => configMap('live', 'CREATE') },
    { title: 'a create in a missing namespace', request: () => configMap('nowhere', 'CREATE') },
    { title: 'a create in a terminating namespace', request: () => configMap('leaving', 'CREATE') },
    { title: 'deleting an immortal namespace', request: () => nsDelete('default') },
  ],
});

async function verdict(req: AdmissionRequest, reader = objects): Promise<string> {
  try {
    await new NamespaceLifecyclePlugin(reader).admit(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (NamespaceLifecycle): what is refused in missing, terminating and immortal namespaces', async () => {
  const table: [string, AdmissionRequest, string][] = [
    ['create in an active namespace', configMap('live', 'CREATE'), 'allowed'],
    ['create in a missing namespace', configMap('nowhere', 'CREATE'), '404 namespaces "nowhere" not found'],
    ['update in a missing namespace', configMap('nowhere', 'UPDATE'), '404 namespaces "nowhere" not found'],
    ['create in a terminating namespace', configMap('leaving', 'CREATE', 'x'), '403 configmaps "x" is forbidden: unable to create new content in namespace leaving because it is being terminated'],
    ['update in a terminating namespace', configMap('leaving', 'UPDATE'), 'allowed'],
    ['delete in a missing namespace', configMap('nowhere', 'DELETE'), 'allowed'],
    ['cluster-scoped object', admissionRequest({ operation: 'CREATE', namespace: '', name: 'n', resource: { group: '', version: 'v1', resource: 'nodes' } }), 'allowed'],
    ['deleting default', nsDelete('default'), '403 namespaces "default" is forbidden: this namespace may not be deleted'],
    ['deleting the system namespace', nsDelete(SYSTEM_NAMESPACE), `403 namespaces "${SYSTEM_NAMESPACE}" is forbidden: this namespace may not be deleted`],
    ['deleting the public namespace', nsDelete(PUBLIC_NAMESPACE), `403 namespaces "${PUBLIC_NAMESPACE}" is forbidden: this namespace may not be deleted`],
    ['deleting another namespace', nsDelete('live'), 'allowed'],
  ];
  for (const [what, req, want] of table) assert.equal(await verdict(req), want, what);
});

test('reference behaviour (NamespaceLifecycle): a terminating-namespace refusal carries the NamespaceTerminating cause at metadata.namespace', async () => {
  const e = await Promise.resolve(new NamespaceLifecyclePlugin(objects).admit(configMap('leaving', 'CREATE'))).then(() => undefined, (x: unknown) => x);
  assert.ok(e instanceof StatusError);
  assert.deepEqual(e.details?.causes, [{ reason: 'NamespaceTerminating', message: 'namespace leaving is being terminated', field: 'metadata.namespace' }]);
});

test('spec 1.6 hot path (NamespaceLifecycle): an active namespace the cache holds is answered without a promise; without peek it is confirmed', async () => {
  assert.equal(new NamespaceLifecyclePlugin(objects).admit(configMap('live', 'CREATE')), undefined);
  const noPeek = fixedObjects({ '/namespaces': [ns('live')] }, false);
  const pending = new NamespaceLifecyclePlugin(noPeek).admit(configMap('live', 'CREATE'));
  assert.ok(pending instanceof Promise);
  await pending;
  assert.equal(await verdict(configMap('gone', 'CREATE'), noPeek), '404 namespaces "gone" not found');
});
