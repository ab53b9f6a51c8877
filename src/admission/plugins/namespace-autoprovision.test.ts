import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alreadyExists, invalid, StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionDeps, AdmissionRequest, ObjectReader } from '../types.js';
import { NamespaceAutoProvisionPlugin, namespaceAutoProvisionPlugin } from './namespace-autoprovision.js';

const existing = fixedObjects({ '/namespaces': [{ metadata: { name: 'default' } }] });
const pod = (namespace: string, extra: Partial<AdmissionRequest> = {}) =>
  admissionRequest({
    operation: 'CREATE',
    namespace,
    name: 'p',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    object: { metadata: { name: 'p', namespace } },
    ...extra,
  });

/** A plugin whose namespace creations are recorded (and fail with `fail` when given). */
function recording(reader: ObjectReader = existing, fail?: () => Error) {
  const created: string[] = [];
  const plugin = new NamespaceAutoProvisionPlugin(reader, async (name) => {
    if (fail) throw fail();
    created.push(name);
  });
  return { plugin, created };
}

admissionPluginContract('NamespaceAutoProvision', {
  make: () => recording().plugin,
  cases: [
    { title: 'a create in an existing namespace', request: () => pod('default') },
    { title: 'a create in a missing namespace', request: () => pod('fresh') },
  ],
});

test('reference behaviour (NamespaceAutoProvision): a create in a missing namespace creates it first; nothing else does', async () => {
  const table: [string, AdmissionRequest, string[]][] = [
    ['missing namespace', pod('fresh'), ['fresh']],
    ['existing namespace', pod('default'), []],
    ['dry run', pod('fresh', { dryRun: true }), []],
    ['cluster-scoped object', pod('', { resource: { group: '', version: 'v1', resource: 'nodes' }, kind: { group: '', version: 'v1', kind: 'Node' } }), []],
    ['a namespace itself', pod('', { resource: { group: '', version: 'v1', resource: 'namespaces' }, kind: { group: '', version: 'v1', kind: 'Namespace' } }), []],
  ];
  for (const [what, req, want] of table) {
    const { plugin, created } = recording();
    await plugin.admit(req);
    assert.deepEqual(created, want, what);
  }
  const { plugin } = recording();
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => plugin.handles(op)), [true, false, false, false]);
});

test('reference behaviour (NamespaceAutoProvision): without a watch cache, storage decides whether the namespace exists', async () => {
  const { plugin, created } = recording(fixedObjects({ '/namespaces': [{ metadata: { name: 'default' } }] }, false));
  await plugin.admit(pod('default'));
  await plugin.admit(pod('fresh'));
  assert.deepEqual(created, ['fresh']);
});

test('reference behaviour (NamespaceAutoProvision): a namespace created meanwhile is fine; another failure is 403 naming the object', async () => {
  const raced = recording(existing, () => alreadyExists({ resource: 'namespaces', name: 'fresh' })).plugin;
  await raced.admit(pod('fresh'));
  const refused = recording(existing, () => invalid({ kind: 'Namespace', name: 'Bad_NS' }, [{ type: 'FieldValueInvalid', field: 'metadata.name', message: 'bad name' }])).plugin;
  const e = await Promise.resolve(refused.admit(pod('Bad_NS', { object: { metadata: { generateName: 'p-' } } }))).then(() => undefined, (x: unknown) => x);
  assert.ok(e instanceof StatusError);
  assert.equal(e.code, 403);
  assert.match(e.message, /^pods "p-" is forbidden: Namespace "Bad_NS" is invalid/);
});

test('reference behaviour (NamespaceAutoProvision): the plugin refuses to start where the server cannot create namespaces', () => {
  const deps = { objects: existing, equivalentResources: (r) => [r], kindOf: () => undefined, log: () => {} } as AdmissionDeps;
  assert.throws(() => namespaceAutoProvisionPlugin(deps, undefined), /no way to create namespaces/);
  assert.ok(namespaceAutoProvisionPlugin({ ...deps, createNamespace: async () => {} }, undefined));
});
