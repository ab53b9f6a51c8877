import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionOperation, ObjectReader } from '../types.js';
import { NamespaceExistsPlugin } from './namespace-exists.js';

const namespaces = { '/namespaces': [{ metadata: { name: 'default' } }] };
const cm = (operation: AdmissionOperation, namespace: string) =>
  admissionRequest({ operation, namespace, name: 'c', object: { metadata: { name: 'c', namespace } } });
const nsWrite = (operation: AdmissionOperation, name: string) =>
  admissionRequest({ operation, namespace: '', name, kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' } });

admissionPluginContract('NamespaceExists', {
  make: () => new NamespaceExistsPlugin(fixedObjects(namespaces)),
  cases: [
    { title: 'a create in an existing namespace', request: () => cm('CREATE', 'default') },
    { title: 'a create in a missing namespace', request: () => cm('CREATE', 'absent') },
    { title: 'a delete in a missing namespace', request: () => cm('DELETE', 'absent') },
  ],
});

async function outcome(reader: ObjectReader, req: ReturnType<typeof cm>): Promise<string> {
  try {
    await new NamespaceExistsPlugin(reader).validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (NamespaceExists): writes of namespaced objects need an existing namespace; namespaces and cluster objects pass', async () => {
  const reader = fixedObjects(namespaces);
  const table: [string, ReturnType<typeof cm>, string][] = [
    ['create in an existing namespace', cm('CREATE', 'default'), 'allowed'],
    ['create in a missing namespace', cm('CREATE', 'absent'), '404 namespaces "absent" not found'],
    ['update in a missing namespace', cm('UPDATE', 'absent'), '404 namespaces "absent" not found'],
    ['delete in a missing namespace', cm('DELETE', 'absent'), '404 namespaces "absent" not found'],
    ['a cluster-scoped object', cm('CREATE', ''), 'allowed'],
    ['a namespace itself', nsWrite('CREATE', 'new'), 'allowed'],
  ];
  for (const [what, req, want] of table) assert.equal(await outcome(reader, req), want, what);
});

test('reference behaviour (NamespaceExists): a namespace the cache has not seen yet is confirmed from storage', async () => {
  const withoutCache = fixedObjects(namespaces, false);
  assert.equal(await outcome(withoutCache, cm('CREATE', 'default')), 'allowed');
  assert.equal(await outcome(withoutCache, cm('CREATE', 'absent')), '404 namespaces "absent" not found');
});

test('reference behaviour (NamespaceExists): handles create, update and delete, in the validating stage only', () => {
  const p = new NamespaceExistsPlugin(fixedObjects(namespaces));
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => p.handles(op)), [true, true, true, false]);
  assert.equal((p as { admit?: unknown }).admit, undefined);
});
