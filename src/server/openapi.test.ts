import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_GROUP, GROUP_SUFFIX, OPENAPI_GVK_EXTENSION, RBAC_GROUP } from '../api/naming.js';
import { APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch/mediaTypes.js';
import { arrayOf, intOrString, obj, objectSchema, setList, str } from '../registry/schema.js';
import type { ResourceType } from '../registry/types.js';
import { META_DEFINITIONS, buildOpenAPIV2, buildOpenAPIV3, definitionNames } from './openapi.js';

type Json = Record<string, any>;
const ROOT = GROUP_SUFFIX.split('.').reverse().join('.');

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

const podSchema = objectSchema('Pod is a collection of containers.', {
  spec: obj({ containers: arrayOf(obj({ name: str(), ports: arrayOf(obj({ port: intOrString('port') })) })), tags: setList(str()) }),
  status: obj({ phase: str() }),
});
const pods = fakeType({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', shortNames: ['po'], categories: ['all'], subresources: ['status'], schema: podSchema });
const namespaces = fakeType({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });
const roles = fakeType({ group: RBAC_GROUP, version: 'v1', kind: 'Role', plural: 'roles', verbs: ['get', 'list'] });
const types = [pods, namespaces, roles];
const info = { version: 'v1.31.0' };

/** Every `$ref` value anywhere in a document. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) refs(x, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

test('definition names follow the reference layout and stay distinct for same-named kinds', () => {
  const coreEvent = fakeType({ group: '', version: 'v1', kind: 'Event', plural: 'events' });
  const newEvent = fakeType({ group: EVENTS_GROUP, version: 'v1', kind: 'Event', plural: 'events' });
  const widget = fakeType({ group: 'widgets.example.com', version: 'v1', kind: 'Widget', plural: 'widgets' });
  const clash = fakeType({ group: `events.other.${GROUP_SUFFIX}`, version: 'v1', kind: 'Event', plural: 'events' });
  const names = definitionNames([...types, coreEvent, newEvent, widget, clash]);
  assert.equal(names.get('/v1/Pod'), `${ROOT}.api.core.v1.Pod`);
  assert.equal(names.get('/v1/PodList'), `${ROOT}.api.core.v1.PodList`);
  assert.equal(names.get(`${RBAC_GROUP}/v1/Role`), `${ROOT}.api.rbac.v1.Role`);
  assert.equal(names.get('/v1/Event'), `${ROOT}.api.core.v1.Event`);
  assert.equal(names.get(`${EVENTS_GROUP}/v1/Event`), `${ROOT}.api.events.v1.Event`);
  assert.equal(names.get('widgets.example.com/v1/Widget'), 'com.example.widgets.v1.Widget');
  assert.equal(names.get(`events.other.${GROUP_SUFFIX}/v1/Event`), `${ROOT}.api.${`events.other.${GROUP_SUFFIX}`.replace(/\./g, '_')}.v1.Event`);
  assert.equal(new Set(names.values()).size, names.size);
});

test('v2: every kind and list kind has a definition with the GVK extension', () => {
  const doc = buildOpenAPIV2(types, info) as Json;
  assert.equal(doc.swagger, '2.0');
  assert.deepEqual(doc.info, { title: GROUP_SUFFIX.split('.')[0], version: 'v1.31.0' });
  const defs = doc.definitions as Json;
  for (const t of types) {
    const item = defs[`${ROOT}.api.${t.group ? 'rbac' : 'core'}.v1.${t.kind}`];
    assert.deepEqual(item[OPENAPI_GVK_EXTENSION], [{ group: t.group, version: 'v1', kind: t.kind }], t.kind);
    const list = defs[`${ROOT}.api.${t.group ? 'rbac' : 'core'}.v1.${t.listKind}`];
    assert.deepEqual(list[OPENAPI_GVK_EXTENSION], [{ group: t.group, version: 'v1', kind: t.listKind }]);
    assert.deepEqual(list.properties.items.items, { $ref: `#/definitions/${ROOT}.api.${t.group ? 'rbac' : 'core'}.v1.${t.kind}` });
    assert.deepEqual(list.required, ['items']);
  }
  for (const n of Object.values(META_DEFINITIONS)) assert.ok(defs[n], n);
  assert.deepEqual(defs[META_DEFINITIONS.Status][OPENAPI_GVK_EXTENSION], [{ group: '', version: 'v1', kind: 'Status' }]);
  assert.ok(defs[META_DEFINITIONS.ObjectMeta].properties.labels);
  // The input schema is not changed by adding the extension.
  assert.equal((pods.schema as Json)[OPENAPI_GVK_EXTENSION], undefined);
});

test('v2: metadata is a $ref, int-or-string is converted, and every $ref resolves under #/definitions', () => {
  const doc = buildOpenAPIV2(types, info) as Json;
  const pod = doc.definitions[`${ROOT}.api.core.v1.Pod`];
  assert.deepEqual(pod.properties.metadata, { $ref: `#/definitions/${META_DEFINITIONS.ObjectMeta}` });
  // Nested kinds are the reference's definitions, referred to by name; int-or-string is Swagger's string format.
  const deref = (s: Json): Json => (s.$ref ? doc.definitions[String(s.$ref).slice('#/definitions/'.length)] : s);
  const container = deref(deref(pod.properties.spec).properties.containers.items);
  assert.deepEqual(deref(deref(container.properties.ports.items).properties.port), { type: 'string', format: 'int-or-string' });
  const text = JSON.stringify(doc);
  assert.ok(!text.includes('x-kubernetes-int-or-string'));
  assert.ok(!text.includes('#/components/'));
  const all = refs(doc);
  assert.ok(all.length > 0);
  for (const r of all) {
    assert.ok(r.startsWith('#/definitions/'), r);
    assert.ok(doc.definitions[r.slice('#/definitions/'.length)], `unresolved ${r}`);
  }
  // Other extensions survive.
  assert.equal(pod.properties.spec.properties.tags['x-kubernetes-list-type'], 'set');
});

test('v2: namespaced type has collection, item, all-namespaces and status paths with every verb', () => {
  const paths = (buildOpenAPIV2(types, info) as Json).paths;
  const coll = paths['/api/v1/namespaces/{namespace}/pods'];
  const item = paths['/api/v1/namespaces/{namespace}/pods/{name}'];
  const status = paths['/api/v1/namespaces/{namespace}/pods/{name}/status'];
  const all = paths['/api/v1/pods'];
  const actions = (p: Json) => Object.fromEntries(['get', 'post', 'put', 'patch', 'delete'].filter((m) => p[m]).map((m) => [m, p[m]['x-kubernetes-action']]));
  assert.deepEqual(actions(coll), { get: 'list', post: 'post', delete: 'deletecollection' });
  assert.deepEqual(actions(item), { get: 'get', put: 'put', patch: 'patch', delete: 'delete' });
  assert.deepEqual(actions(status), { get: 'get', put: 'put', patch: 'patch' });
  assert.deepEqual(actions(all), { get: 'list' });
  assert.equal(coll.get.operationId, 'listCoreV1NamespacedPod');
  assert.equal(coll.post.operationId, 'createCoreV1NamespacedPod');
  assert.equal(coll.delete.operationId, 'deleteCoreV1CollectionNamespacedPod');
  assert.equal(item.get.operationId, 'readCoreV1NamespacedPod');
  assert.equal(item.put.operationId, 'replaceCoreV1NamespacedPod');
  assert.equal(status.patch.operationId, 'patchCoreV1NamespacedPodStatus');
  assert.equal(all.get.operationId, 'listCoreV1PodForAllNamespaces');
  for (const p of [coll, item, status, all]) {
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) {
      if (p[m]) assert.deepEqual(p[m][OPENAPI_GVK_EXTENSION], { group: '', version: 'v1', kind: 'Pod' });
    }
  }
  assert.deepEqual(item.parameters.map((x: Json) => [x.name, x.in]), [['name', 'path'], ['namespace', 'path'], ['pretty', 'query']]);
  assert.deepEqual(coll.get.responses['200'].schema, { $ref: `#/definitions/${ROOT}.api.core.v1.PodList` });
  assert.deepEqual(item.delete.responses['200'].schema, { $ref: `#/definitions/${META_DEFINITIONS.Status}` });
  assert.ok(coll.get.produces.includes('application/json;stream=watch'));
  assert.ok(coll.get.parameters.some((x: Json) => x.name === 'watch' && x.type === 'boolean'));
});

test('v2: cluster-scoped paths have no namespace segment and no all-namespaces path', () => {
  const paths = (buildOpenAPIV2(types, info) as Json).paths;
  assert.ok(paths['/api/v1/namespaces']);
  assert.equal(paths['/api/v1/namespaces'].get.operationId, 'listCoreV1Namespace');
  assert.equal(paths['/api/v1/namespaces/{name}'].get.operationId, 'readCoreV1Namespace');
  assert.deepEqual(paths['/api/v1/namespaces/{name}'].parameters.map((x: Json) => x.name), ['name', 'pretty']);
  assert.equal(Object.keys(paths).filter((p) => p.includes('{namespace}/namespaces')).length, 0);
});

test('v2: write operations carry dryRun, fieldManager, fieldValidation; patch adds force and patch types', () => {
  const paths = (buildOpenAPIV2(types, info) as Json).paths;
  const names = (op: Json) => op.parameters.filter((x: Json) => x.in === 'query').map((x: Json) => x.name);
  const post = paths['/api/v1/namespaces/{namespace}/pods'].post;
  const put = paths['/api/v1/namespaces/{namespace}/pods/{name}'].put;
  const patch = paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch;
  for (const op of [post, put, patch]) {
    for (const p of ['dryRun', 'fieldManager', 'fieldValidation']) assert.ok(names(op).includes(p), `${op.operationId} ${p}`);
  }
  assert.ok(names(patch).includes('force'));
  assert.ok(!names(post).includes('force'));
  assert.deepEqual(post.consumes, ['application/json', 'application/yaml']);
  assert.deepEqual(post.produces, ['application/json', 'application/yaml']);
  assert.deepEqual(patch.consumes, [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML]);
  assert.deepEqual(post.parameters[0], { name: 'body', in: 'body', required: true, schema: { $ref: `#/definitions/${ROOT}.api.core.v1.Pod` } });
  assert.deepEqual(Object.keys(post.responses), ['200', '201', '202', '401']);
});

test('v2: a type with restricted verbs only gets those operations', () => {
  const paths = (buildOpenAPIV2(types, info) as Json).paths;
  const coll = paths[`/apis/${RBAC_GROUP}/v1/namespaces/{namespace}/roles`];
  const item = paths[`/apis/${RBAC_GROUP}/v1/namespaces/{namespace}/roles/{name}`];
  assert.deepEqual(Object.keys(coll).filter((k) => k !== 'parameters'), ['get']);
  assert.deepEqual(Object.keys(item).filter((k) => k !== 'parameters'), ['get']);
  assert.equal(item.get.operationId, 'readRbacAuthorizationV1NamespacedRole');
  assert.deepEqual(item.get[OPENAPI_GVK_EXTENSION], { group: RBAC_GROUP, version: 'v1', kind: 'Role' });
  assert.ok(paths[`/apis/${RBAC_GROUP}/v1/roles`]);
});

test('v3: one document per group version with paths, content per media type and resolvable refs', () => {
  const { index, documents } = buildOpenAPIV3(types, info);
  assert.deepEqual([...documents.keys()], ['api/v1', `apis/${RBAC_GROUP}/v1`]);
  assert.deepEqual(Object.keys(index.paths), ['api/v1', `apis/${RBAC_GROUP}/v1`]);
  assert.match(index.paths['api/v1']!.serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
  const core = JSON.parse(JSON.stringify(documents.get('api/v1'))) as Json;
  assert.equal(core.openapi, '3.0.0');
  assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/status']);
  assert.ok(!Object.keys(core.paths).some((p: string) => p.includes('roles')), 'rbac paths live in their own document');
  const schemas = core.components.schemas;
  assert.deepEqual(schemas[`${ROOT}.api.core.v1.Pod`][OPENAPI_GVK_EXTENSION], [{ group: '', version: 'v1', kind: 'Pod' }]);
  assert.deepEqual(schemas[`${ROOT}.api.core.v1.NamespaceList`][OPENAPI_GVK_EXTENSION], [{ group: '', version: 'v1', kind: 'NamespaceList' }]);
  assert.equal(schemas[`${ROOT}.api.rbac.v1.Role`], undefined);
  // v3 keeps the int-or-string extension.
  const deref = (s: Json): Json => (s.$ref ? schemas[String(s.$ref).slice('#/components/schemas/'.length)] : s);
  const container = deref(deref(schemas[`${ROOT}.api.core.v1.Pod`].properties.spec).properties.containers.items);
  assert.equal(deref(deref(container.properties.ports.items).properties.port)['x-kubernetes-int-or-string'], true);
  for (const r of refs(core)) {
    assert.ok(r.startsWith('#/components/schemas/'), r);
    assert.ok(schemas[r.slice('#/components/schemas/'.length)], `unresolved ${r}`);
  }
  const post = core.paths['/api/v1/namespaces/{namespace}/pods'].post;
  assert.deepEqual(Object.keys(post.requestBody.content), ['application/json', 'application/yaml']);
  assert.deepEqual(post.responses['201'].content['application/json'].schema, { $ref: `#/components/schemas/${ROOT}.api.core.v1.Pod` });
  const fv = post.parameters.find((p: Json) => p.name === 'fieldValidation');
  assert.deepEqual(fv, { name: 'fieldValidation', in: 'query', description: fv.description, schema: { type: 'string', uniqueItems: true } });
  const patch = core.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch;
  assert.deepEqual(Object.keys(patch.requestBody.content), [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML]);
});

test('v3: kubectl can learn fieldValidation support from every PATCH of a kind', () => {
  const { documents } = buildOpenAPIV3(types, info);
  const core = documents.get('api/v1') as Json;
  const patches = Object.values(core.paths as Json).map((p: Json) => p.patch).filter((op) => op && op[OPENAPI_GVK_EXTENSION].kind === 'Pod');
  assert.equal(patches.length, 2);
  for (const op of patches) assert.ok(op.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query'));
});

test('v3: index hashes are stable across builds and change when the types change', () => {
  const a = buildOpenAPIV3(types, info).index;
  const b = buildOpenAPIV3(types, info).index;
  assert.deepEqual(a, b);
  const changedPods = { ...pods, schema: objectSchema('Pod', { spec: obj({ extra: str() }) }) };
  const c = buildOpenAPIV3([changedPods, namespaces, roles], info).index;
  assert.notEqual(c.paths['api/v1']!.serverRelativeURL, a.paths['api/v1']!.serverRelativeURL);
  assert.equal(c.paths[`apis/${RBAC_GROUP}/v1`]!.serverRelativeURL, a.paths[`apis/${RBAC_GROUP}/v1`]!.serverRelativeURL);
  const d = buildOpenAPIV3([pods, namespaces, { ...roles, verbs: ['get', 'list', 'create'] }], info).index;
  assert.notEqual(d.paths[`apis/${RBAC_GROUP}/v1`]!.serverRelativeURL, a.paths[`apis/${RBAC_GROUP}/v1`]!.serverRelativeURL);
});
