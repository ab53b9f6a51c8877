import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RBAC_GROUP } from '../api/naming.js';
import { objectSchema } from '../registry/schema.js';
import type { ResourceType } from '../registry/types.js';
import { buildDiscovery, compareVersions, storageVersionHash } from './discovery.js';

function fakeType(over: Partial<ResourceType> & Pick<ResourceType, 'group' | 'version' | 'kind' | 'plural'>): ResourceType {
  return {
    listKind: `${over.kind}List`,
    singular: over.kind.toLowerCase(),
    shortNames: [],
    namespaced: true,
    subresources: [],
    schema: objectSchema(over.kind, {}),
    strategy: { nameRule: 'subdomain', validate: () => [], allowUnconditionalUpdate: true, allowCreateOnUpdate: false },
    tableColumns: [],
    storageKey: `${over.group || 'core'}/${over.plural}`,
    ...over,
  };
}

const pods = fakeType({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', shortNames: ['po'], categories: ['all'], subresources: ['status'] });
const namespaces = fakeType({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', shortNames: ['ns'], namespaced: false });
const roles = fakeType({ group: RBAC_GROUP, version: 'v1', kind: 'Role', plural: 'roles', verbs: ['get', 'list'] });
const types = [pods, namespaces, roles];

test('api() lists the core versions and the server address', () => {
  const d = buildDiscovery(types);
  assert.deepEqual(d.api('10.0.0.1:6443'), {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
  });
});

test('apis() lists named groups only, with versions and preferredVersion', () => {
  const d = buildDiscovery(types);
  const list = d.apis();
  assert.equal(list.kind, 'APIGroupList');
  assert.equal(list.apiVersion, 'v1');
  assert.deepEqual(list.groups, [
    { name: RBAC_GROUP, versions: [{ groupVersion: `${RBAC_GROUP}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${RBAC_GROUP}/v1`, version: 'v1' } },
  ]);
  assert.ok(!list.groups.some((g) => g.name === ''), 'the core group is never listed under /apis');
});

test('group() returns APIGroup for a named group, undefined for unknown and core', () => {
  const d = buildDiscovery(types);
  const g = d.group(RBAC_GROUP);
  assert.equal(g?.kind, 'APIGroup');
  assert.equal(g?.apiVersion, 'v1');
  assert.equal(g?.preferredVersion.version, 'v1');
  assert.equal(d.group('nope.example.com'), undefined);
  assert.equal(d.group(''), undefined);
});

test('preferred version is the most stable, newest one', () => {
  const beta = fakeType({ group: 'widgets.example.com', version: 'v1beta1', kind: 'Widget', plural: 'widgets' });
  const ga = fakeType({ group: 'widgets.example.com', version: 'v1', kind: 'Widget', plural: 'widgets' });
  const g = buildDiscovery([beta, ga]).group('widgets.example.com');
  assert.deepEqual(g?.versions.map((v) => v.version), ['v1', 'v1beta1']);
  assert.equal(g?.preferredVersion.groupVersion, 'widgets.example.com/v1');
  assert.deepEqual(['v1alpha1', 'v2', 'foo', 'v1beta2', 'v1', 'v1beta1', 'v10'].sort(compareVersions), ['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v1alpha1', 'foo']);
});

test('resources() for the core group has groupVersion v1 and the resource fields', () => {
  const d = buildDiscovery(types);
  const list = d.resources('', 'v1');
  assert.ok(list);
  assert.equal(list.kind, 'APIResourceList');
  assert.equal(list.apiVersion, 'v1');
  assert.equal(list.groupVersion, 'v1');
  assert.deepEqual(list.resources.map((r) => r.name), ['namespaces', 'pods', 'pods/status']);
  const po = list.resources.find((r) => r.name === 'pods');
  assert.deepEqual(po, {
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
    storageVersionHash: storageVersionHash('', 'v1', 'Pod'),
  });
  const ns = list.resources.find((r) => r.name === 'namespaces');
  assert.equal(ns?.namespaced, false);
  assert.equal('categories' in (ns ?? {}), false, 'categories omitted when none');
});

test('status subresource entry has the parent kind and get/patch/update', () => {
  const status = buildDiscovery(types).resources('', 'v1')?.resources.find((r) => r.name === 'pods/status');
  assert.deepEqual(status, { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] });
});

test('named group resources use type.verbs and omit empty shortNames', () => {
  const list = buildDiscovery(types).resources(RBAC_GROUP, 'v1');
  assert.equal(list?.groupVersion, `${RBAC_GROUP}/v1`);
  const role = list?.resources[0];
  assert.equal(role?.name, 'roles');
  assert.deepEqual(role?.verbs, ['get', 'list']);
  assert.equal('shortNames' in (role ?? {}), false);
});

test('unknown group or version gives undefined', () => {
  const d = buildDiscovery(types);
  assert.equal(d.resources('nope.example.com', 'v1'), undefined);
  assert.equal(d.resources(RBAC_GROUP, 'v2'), undefined);
  assert.equal(d.resources('', 'v2'), undefined);
  // The core group is never addressed by a name: /apis/<something>/v1 does not reach it.
  assert.equal(d.resources('core', 'v1'), undefined);
});

test('extra subresources are listed under their parent group/version', () => {
  const d = buildDiscovery(types, {
    extraSubresources: [
      { type: 'pods', group: '', version: 'v1', name: 'log', kind: 'Pod', verbs: ['get'], namespaced: true },
      { type: 'pods', group: '', version: 'v1', name: 'eviction', kind: 'Eviction', verbs: ['create'], namespaced: true },
    ],
  });
  const names = d.resources('', 'v1')?.resources.map((r) => r.name);
  assert.deepEqual(names, ['namespaces', 'pods', 'pods/eviction', 'pods/log', 'pods/status']);
  const ev = d.resources('', 'v1')?.resources.find((r) => r.name === 'pods/eviction');
  assert.deepEqual(ev, { name: 'pods/eviction', singularName: '', namespaced: true, kind: 'Eviction', verbs: ['create'] });
});

test('storageVersionHash is a stable 8-byte base64 value that differs per kind', () => {
  const h = storageVersionHash('', 'v1', 'Pod');
  assert.equal(h, storageVersionHash('', 'v1', 'Pod'));
  assert.equal(Buffer.from(h, 'base64').length, 8);
  assert.notEqual(h, storageVersionHash('', 'v1', 'Namespace'));
});
