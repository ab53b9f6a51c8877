import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, applyStrategicMergePatch } from '../../patch/index.js';
import type { Schema } from '../../api/index.js';
import { SchemaNode } from './patch-schema.js';
import { threeWayPatch, twoWayPatch } from './three-way.js';
import { applyPatch, lastApplied, withLastApplied } from './last-applied.js';
import { LAST_APPLIED_ANNOTATION } from '../../api/naming.js';

/** A small pod-like schema in OpenAPI form, with references as the server publishes them. */
const components: Record<string, Record<string, unknown>> = {
  Pod: {
    type: 'object',
    properties: {
      metadata: { $ref: '#/components/schemas/Meta' },
      spec: { allOf: [{ $ref: '#/components/schemas/Spec' }] },
    },
  },
  Meta: {
    type: 'object',
    properties: {
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      annotations: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  Spec: {
    type: 'object',
    properties: {
      containers: { type: 'array', items: { $ref: '#/components/schemas/Container' }, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      volumes: { type: 'array', items: { $ref: '#/components/schemas/Volume' }, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge,retainKeys' },
      args: { type: 'array', items: { type: 'string' } },
      replicas: { type: 'integer' },
    },
  },
  Container: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      env: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } }, 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  Volume: { type: 'object', properties: { name: { type: 'string' }, emptyDir: { type: 'object' }, hostPath: { type: 'object' } } },
};
const pod = new SchemaNode(components.Pod as Record<string, unknown>, components);

/** The server-side view of the same schema (inlined), to apply the computed patches the way the server does. */
function inline(raw: Record<string, unknown>): Schema {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === '$ref') return inline(components[String(v).split('/').pop() as string] as Record<string, unknown>);
    if (k === 'allOf') return inline((v as Record<string, unknown>[])[0] as Record<string, unknown>);
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Record<string, Record<string, unknown>>).map(([p, s]) => [p, inline(s)]));
    else if ((k === 'items' || k === 'additionalProperties') && typeof v === 'object') out[k] = inline(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out as Schema;
}
const serverSchema = inline(components.Pod as Record<string, unknown>);

interface Row {
  title: string;
  original: Record<string, unknown> | undefined;
  modified: Record<string, unknown>;
  current: Record<string, unknown>;
  want: Record<string, unknown>;
}

const c = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: `${name}:1`, ...extra });

const rows: Row[] = [
  {
    title: 'a field dropped from the configuration is deleted; fields others set stay',
    original: { metadata: { labels: { a: '1', b: '2' } } },
    modified: { metadata: { labels: { a: '1' } } },
    current: { metadata: { labels: { a: '1', b: '2', other: 'x' } } },
    want: { metadata: { labels: { a: '1', other: 'x' } } },
  },
  {
    title: 'a changed value is set, an unchanged configuration yields no patch',
    original: { spec: { replicas: 1 } },
    modified: { spec: { replicas: 3 } },
    current: { spec: { replicas: 1 }, status: { ready: 1 } },
    want: { spec: { replicas: 3 }, status: { ready: 1 } },
  },
  {
    title: 'keyed list: an item removed from the configuration is deleted, items others added stay, a changed item merges',
    original: { spec: { containers: [c('a'), c('b')] } },
    modified: { spec: { containers: [c('a', { image: 'a:2' })] } },
    current: { spec: { containers: [c('a', { terminationMessagePath: '/dev/x' }), c('b'), c('sidecar')] } },
    want: { spec: { containers: [c('a', { image: 'a:2', terminationMessagePath: '/dev/x' }), c('sidecar')] } },
  },
  {
    title: 'nested keyed list inside a keyed list item',
    original: { spec: { containers: [c('a', { env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] })] } },
    modified: { spec: { containers: [c('a', { env: [{ name: 'X', value: '9' }] })] } },
    current: { spec: { containers: [c('a', { env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }, { name: 'Z', value: '3' }] })] } },
    want: { spec: { containers: [c('a', { env: [{ name: 'X', value: '9' }, { name: 'Z', value: '3' }] })] } },
  },
  {
    title: 'primitive merge list: dropped values are removed, added ones added, foreign ones kept',
    original: { metadata: { finalizers: ['f1', 'f2'] } },
    modified: { metadata: { finalizers: ['f1', 'f3'] } },
    current: { metadata: { finalizers: ['f1', 'f2', 'g'] } },
    want: { metadata: { finalizers: ['f1', 'f3', 'g'] } },
  },
  {
    title: 'replaced list: any change sends the whole list',
    original: { spec: { args: ['a', 'b'] } },
    modified: { spec: { args: ['b'] } },
    current: { spec: { args: ['a', 'b', 'c'] } },
    want: { spec: { args: ['b'] } },
  },
  {
    title: 'retainKeys: a volume switching source drops the old source',
    original: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
    modified: { spec: { volumes: [{ name: 'v', hostPath: { path: '/x' } }] } },
    current: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
    want: { spec: { volumes: [{ name: 'v', hostPath: { path: '/x' } }] } },
  },
  {
    title: 'no original (first apply over an object created otherwise): nothing is deleted',
    original: undefined,
    modified: { metadata: { labels: { a: '1' } } },
    current: { metadata: { labels: { b: '2' } } },
    want: { metadata: { labels: { a: '1', b: '2' } } },
  },
];

for (const row of rows) {
  test(`reference behaviour: client-side apply three-way strategic patch: ${row.title}`, () => {
    const patch = threeWayPatch(row.original, row.modified, row.current, pod);
    assert.deepEqual(applyStrategicMergePatch(row.current, patch, serverSchema), row.want);
  });
}

test('reference behaviour: client-side apply of custom resources: a JSON merge patch, lists replaced whole', () => {
  const original = { spec: { items: [1, 2], keep: 'x', drop: 'y' } };
  const modified = { spec: { items: [2], keep: 'x' } };
  const current = { spec: { items: [1, 2, 3], keep: 'x', drop: 'y', foreign: true } };
  const patch = threeWayPatch(original, modified, current, undefined);
  assert.deepEqual(patch, { spec: { items: [2], drop: null } });
  assert.deepEqual(applyMergePatch(current, patch), { spec: { items: [2], keep: 'x', foreign: true } });
});

test('reference behaviour: an unchanged configuration gives an empty patch (apply prints "unchanged")', () => {
  const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [c('a')] } };
  const stored = { ...withLastApplied(obj), status: { phase: 'Pending' } };
  stored.metadata = { ...stored.metadata, uid: 'u', resourceVersion: '5' };
  assert.deepEqual(applyPatch(obj, stored, pod), {});
});

test('reference behaviour: the last-applied annotation holds the configuration without itself', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', annotations: { [LAST_APPLIED_ANNOTATION]: 'old' } }, data: { k: 'v' } };
  const sent = withLastApplied(obj);
  assert.deepEqual(lastApplied(sent), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { k: 'v' } });
  assert.equal(obj.metadata.annotations[LAST_APPLIED_ANNOTATION], 'old', 'the input is not changed');
});

test('reference behaviour: edit sends a two-way patch: changes and deletions against what was shown', () => {
  const shown = { metadata: { labels: { a: '1', b: '2' } }, spec: { containers: [c('a'), c('b')] } };
  const edited = { metadata: { labels: { a: '2' } }, spec: { containers: [c('a')] } };
  const patch = twoWayPatch(shown, edited, pod);
  assert.deepEqual(applyStrategicMergePatch(shown, patch, serverSchema), edited);
});
