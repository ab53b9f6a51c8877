/**
 * Managed fields on create: `recordUpdate` with no live object builds the writer's FieldsV1 in one walk
 * (`fieldsV1Of`). These tests hold it to the general path, which diffs field sets and encodes them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/types.js';
import type { Schema } from '../api/index.js';
import { anyObject, arrayOf, int32, intOrString, mapList, mapOf, obj, objectSchema, setList, str, stringMap } from '../registry/schema.js';
import { configmaps } from '../registry/resources/configmaps/index.js';
import { pods } from '../registry/resources/pods/index.js';
import { fieldSetOf } from './fieldset.js';
import { fieldsV1Of, toFieldsV1 } from './fieldsv1.js';
import { recordUpdate, type RecordUpdateArgs } from './update.js';
import { deployment, deploymentSchema, T1 } from './testing.js';

/** A kind that uses every schema rule the field-set walk knows. */
const everySchema: Schema = objectSchema('Every schema feature.', {
  spec: obj({
    scalar: str(),
    port: intOrString(),
    labels: stringMap(),
    atomicMap: { ...stringMap(), 'x-kubernetes-map-type': 'atomic' },
    atomicObj: { ...obj({ a: str(), b: str() }), 'x-kubernetes-map-type': 'atomic' },
    // Entries of a map of objects are members with members below them: the `.` marker.
    byName: mapOf(obj({ a: str(), n: obj({ b: int32() }) })),
    anyMap: { type: 'object', additionalProperties: true },
    free: anyObject(),
    atomicList: arrayOf(obj({ a: str() })),
    explicitAtomic: arrayOf(str(), '', { 'x-kubernetes-list-type': 'atomic' }),
    numSet: setList(int32()),
    objSet: setList(anyObject()),
    byKey: mapList(obj({ k: str(), v: str(), inner: mapList(obj({ id: int32(), x: str() }), 'id') }), 'k'),
    twoKeys: { ...mapList(obj({ a: str(), b: int32(), c: str() }), 'a'), 'x-kubernetes-list-map-keys': ['a', 'b'] },
    mergeKeyOnly: { ...arrayOf(obj({ name: str(), p: str() })), 'x-kubernetes-patch-merge-key': 'name' },
    emptyKeys: { ...arrayOf(obj({ a: str() })), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': [] },
    noType: { description: 'no type at all' },
  }),
  status: obj({ phase: str(), conditions: mapList(obj({ type: str(), status: str() }), 'type') }),
});

const kb = (n: number, c: string) => c.repeat(n);

const configMap = (extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cm', namespace: 'default', uid: 'u1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z', ...meta },
  ...extra,
});

const podSpec = {
  containers: [
    {
      name: 'app',
      image: 'nginx:1.25',
      args: ['--a', '--b'],
      ports: [
        { containerPort: 80, protocol: 'TCP', name: 'http' },
        { containerPort: 53, protocol: 'UDP' },
        { containerPort: 53, protocol: 'TCP' },
      ],
      env: [
        { name: 'B', value: '2' },
        { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      ],
      resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m' } },
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
      livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
    },
    { name: 'sidecar', image: 'busybox', command: ['sleep', '3600'] },
  ],
  initContainers: [{ name: 'init', image: 'busybox' }],
  volumes: [
    { name: 'data', emptyDir: {} },
    { name: 'cfg', configMap: { name: 'cm', items: [{ key: 'a', path: 'a' }] } },
  ],
  tolerations: [
    { key: 'k', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'k2', operator: 'Equal', value: 'v' },
  ],
  nodeSelector: { disk: 'ssd' },
  imagePullSecrets: [{ name: 'reg' }],
  topologySpreadConstraints: [{ topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1 }],
  securityContext: {},
};

const pod = (extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels: { app: 'web', 'x.io/tier': 'front' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u9', controller: true }] },
  spec: structuredClone(podSpec),
  ...extra,
});

/** A Pod as the store sees it on create: defaults filled in and the initial status set. */
const preparedPod = (): ApiObject => {
  const p = pod();
  pods.strategy.prepareForCreate?.(p);
  return p;
};

const every = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): ApiObject => ({ apiVersion: 'x/v1', kind: 'Every', metadata: { name: 'e' }, spec, ...extra });

interface Case {
  title: string;
  obj: ApiObject;
  schema: Schema | undefined;
  ignoreStatus?: boolean;
  subresource?: string;
}

const cases: Case[] = [
  {
    title: 'a ConfigMap with data, binaryData, labels and annotations',
    obj: configMap(
      { data: { 'b.conf': kb(250, 'b'), 'a.conf': kb(250, 'a'), 'c.conf': kb(250, 'c') }, binaryData: { bin: 'AAEC' }, immutable: false },
      { labels: { tier: 'backend', app: 'x', B: '1', _u: '2', '10': 'n', '9': 'n' }, annotations: { 'note/x': 'y' } },
    ),
    schema: configmaps.schema,
  },
  { title: 'a ConfigMap with only server-owned fields owns nothing (no entry)', obj: configMap(), schema: configmaps.schema },
  { title: 'a ConfigMap with empty data and labels maps owns them as leaves', obj: configMap({ data: {}, binaryData: {} }, { labels: {}, annotations: {} }), schema: configmaps.schema },
  { title: 'metadata: {} is never owned as a leaf', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { a: 'b' } }, schema: configmaps.schema },
  { title: 'metadata: null is never owned as a leaf', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: null, data: { a: 'b' } } as unknown as ApiObject, schema: configmaps.schema },
  { title: 'metadata of the wrong type', obj: { kind: 'ConfigMap', metadata: 'x' } as unknown as ApiObject, schema: configmaps.schema },
  { title: 'an empty finalizers set leaves metadata without members', obj: configMap({}, { finalizers: [] }), schema: configmaps.schema },
  { title: 'finalizers are a set list (v:), duplicates meet', obj: configMap({}, { finalizers: ['b', 'a', 'b'], generateName: 'cm-' }), schema: configmaps.schema },
  {
    title: 'field names that need escaping in path keys, and __proto__',
    obj: configMap({ data: JSON.parse('{"__proto__":"p","a\\u0000b":"1","a\\\\b":"2","k:{}":"3","":"4"}') as Record<string, unknown> }),
    schema: configmaps.schema,
  },
  { title: 'a Pod: containers and env keyed by name, ports by containerPort+protocol, volumes, atomic tolerations', obj: pod(), schema: pods.schema },
  { title: 'a Pod with defaults and initial status, status ignored', obj: preparedPod(), schema: pods.schema, ignoreStatus: true },
  { title: 'a Pod with defaults and initial status, status owned', obj: preparedPod(), schema: pods.schema, ignoreStatus: false },
  { title: 'a Pod status write through the subresource', obj: { ...preparedPod(), status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, schema: pods.schema, subresource: 'status' },
  {
    title: 'a Pod with duplicate container names (elements with one key meet in one node)',
    obj: pod({ spec: { containers: [{ name: 'c', image: 'a' }, { name: 'c', args: ['x'] }] } }),
    schema: pods.schema,
  },
  { title: 'a Deployment-like object (test schema): set list, atomic selector, merge-key list, free-form config', obj: deployment({ replicas: 2, paused: null, tags: ['b', 'a'], selector: { matchLabels: { a: 'b' } }, config: { x: { y: [1, 2] }, z: null }, volumes: [{ name: 'v', path: '/p' }], template: { metadata: { labels: { a: 'b' }, name: 'kept' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [] }] } } }), schema: deploymentSchema },
  { title: 'nested empty objects are leaves; empty lists are nothing', obj: deployment({ template: { spec: {} }, tags: [], config: {} }), schema: deploymentSchema },
  { title: 'a spec of nothing but empty set lists leaves no spec', obj: deployment({ tags: [] }), schema: deploymentSchema },
  {
    title: 'every schema rule the walk knows',
    obj: every({
      scalar: 's',
      port: 8080,
      labels: { b: '1', a: '2' },
      atomicMap: { a: 'b' },
      atomicObj: { a: 'x' },
      byName: { one: { a: 'x', n: { b: 1 } }, two: {}, three: null, four: 'wrong type' },
      anyMap: { x: { y: { z: 1 } }, l: [1, { a: 2 }] },
      free: { deep: { deeper: { deepest: true } }, list: [[1], { a: 1 }], e: {} },
      atomicList: [{ a: '1' }, { a: '1' }],
      explicitAtomic: ['x'],
      numSet: [3, 1, 2, 1],
      objSet: [{ b: 1, a: 2 }, { a: 2, b: 1 }, 'str', null],
      byKey: [
        { k: 'b', v: '1', inner: [{ id: 2, x: 'y' }, { id: 1 }] },
        { k: 'a', inner: [] },
        { k: 'b', v: '2' },
      ],
      twoKeys: [
        { a: 'x', b: 2, c: 'c' },
        { b: 1, a: 'x' },
      ],
      mergeKeyOnly: [{ name: 'n', p: 'q' }],
      emptyKeys: [{ a: '1' }],
      noType: { a: [1] },
      undeclared: { a: 1 },
      nullField: null,
    }),
    schema: everySchema,
  },
  {
    title: 'fields whose names extend an ignored one (kindness, statuses, metadata.nameX) are kept',
    obj: { ...every({ scalar: 's' }, { kindness: 1, statuses: { a: 1 }, apiVersions: [] }), metadata: { name: 'e', nameX: 'y', uidish: {} } },
    schema: everySchema,
    ignoreStatus: true,
  },
  { title: 'values that do not match their schema are one leaf each', obj: every({ labels: ['a'], byKey: { k: 'x' }, numSet: 'x', scalar: { a: 1 }, atomicList: {} }), schema: everySchema },
  { title: 'status with ignoreStatus false', obj: every({ scalar: 's' }, { status: { phase: 'P', conditions: [{ type: 'A', status: 'T' }] } }), schema: everySchema, ignoreStatus: false },
  { title: 'status with ignoreStatus true', obj: every({ scalar: 's' }, { status: { phase: 'P' } }), schema: everySchema, ignoreStatus: true },
  { title: 'only status, ignored: no entry', obj: every({}, { status: { phase: 'P' } }), schema: everySchema, ignoreStatus: true },
  { title: 'no schema at all: maps granular, lists atomic', obj: { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'n', labels: { a: 'b' } }, spec: { a: { b: [1] }, c: {} } }, schema: undefined },
  {
    title: 'a create whose request resets managedFields with [{}]',
    obj: configMap({ data: { a: 'b' } }, { managedFields: [{}] }),
    schema: configmaps.schema,
  },
  { title: 'a create whose request has an undecodable managedFields list', obj: configMap({ data: { a: 'b' } }, { managedFields: [{ manager: 'x', operation: 'Nope' }] }), schema: configmaps.schema },
  { title: 'a subresource create ignores requested managedFields', obj: configMap({ data: { a: 'b' } }, { managedFields: [{ manager: 'x', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }] }), schema: configmaps.schema, subresource: 'status' },
];

const args = (c: Case, live: ApiObject | undefined): RecordUpdateArgs => ({
  live,
  updated: structuredClone(c.obj),
  schema: c.schema as Schema,
  manager: 'kubectl-create',
  apiVersion: 'v1',
  now: T1,
  ...(c.subresource ? { subresource: c.subresource } : {}),
  ...(c.ignoreStatus !== undefined ? { ignoreStatus: c.ignoreStatus } : {}),
});

// JSON text as well as deep equality: member order is part of the stored (and served) form.
function assertSame(got: unknown, want: unknown): void {
  assert.deepEqual(got, want);
  assert.equal(JSON.stringify(got), JSON.stringify(want));
}

describe('managed fields on create: the one-walk builder equals the general path', () => {
  for (const c of cases) {
    it(`fieldsV1Of equals toFieldsV1(fieldSetOf(...)) for ${c.title}`, () => {
      const opts = { ignoreStatus: c.ignoreStatus };
      assertSame(fieldsV1Of(c.obj, c.schema, opts), toFieldsV1(fieldSetOf(c.obj, c.schema, opts)));
    });
    // An empty live object sets no fields, so it takes the general path to the same answer as a create.
    it(`recordUpdate on create equals the general path for ${c.title}`, () => {
      assertSame(recordUpdate(args(c, undefined)), recordUpdate(args(c, {})));
    });
  }

  it('reference behaviour: walks after the first (field names cached per schema) give the same FieldsV1', () => {
    for (const c of cases) {
      const opts = { ignoreStatus: c.ignoreStatus };
      const want = toFieldsV1(fieldSetOf(c.obj, c.schema, opts));
      for (let i = 0; i < 3; i++) assertSame(fieldsV1Of(c.obj, c.schema, opts), want);
    }
  });

  it('the test table covers entries with and without `.` markers, and creates that own nothing', () => {
    const texts = cases.map((c) => JSON.stringify(recordUpdate(args(c, undefined))));
    assert.ok(texts.some((t) => t.includes('".":{}')));
    assert.ok(texts.some((t) => t === '[]'));
    assert.ok(texts.some((t) => t.includes('"subresource":"status"')));
  });

  it('a map-list element without its key fails the same way on both paths', () => {
    const c: Case = { title: '', obj: pod({ spec: { containers: [{ image: 'x' }] } }), schema: pods.schema };
    const message = /element 0: associative list with keys has an element that omits key field "name"/;
    assert.throws(() => recordUpdate(args(c, undefined)), message);
    assert.throws(() => recordUpdate(args(c, {})), message);
    assert.throws(() => fieldsV1Of({ status: { conditions: [{}] } }, everySchema, { ignoreStatus: true }), /omits key field "type"/);
  });

  it('the wire form of a Pod create, spelled out: `.` first, then segments sorted whatever the input order', () => {
    const created = pod({ spec: { containers: [{ ports: [{ protocol: 'TCP', containerPort: 80 }], name: 'c', image: 'i' }] } });
    (created.metadata as Record<string, unknown>).labels = { zeta: '1', alpha: '2' };
    const entries = recordUpdate(args({ title: '', obj: created, schema: pods.schema }, undefined));
    assertSame(entries, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': {
            'f:labels': { 'f:alpha': {}, 'f:zeta': {} },
            'f:ownerReferences': { 'k:{"uid":"u9"}': { '.': {}, 'f:apiVersion': {}, 'f:controller': {}, 'f:kind': {}, 'f:name': {}, 'f:uid': {} } },
          },
          'f:spec': {
            'f:containers': {
              'k:{"name":"c"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
              },
            },
          },
        },
      },
    ]);
  });
});
