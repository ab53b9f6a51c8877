import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../api/types.js';
import { decodeFromStorage, encodeForStorage, objectJson } from '../codec.js';
import type { ResourceType } from '../types.js';
import type { Crd, CrdVersion } from './crd.js';
import { customResourceTypes } from './resource-types.js';
import { compileCustomSchema } from './schema/index.js';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A schema with defaults at the top, inside an object, in array items and in map values. */
const DEFAULTED = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'fast' },
        ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } } },
        limits: { type: 'object', additionalProperties: { type: 'object', properties: { max: { type: 'integer', default: 10 } } } },
      },
    },
  },
};
const PLAIN = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };

function crdOf(versions: Array<{ name: string; storage: boolean; schema: Record<string, unknown> }>): Crd {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: versions.map((v): CrdVersion => ({ name: v.name, served: true, storage: v.storage, schema: { openAPIV3Schema: v.schema } })),
    },
    status: { storedVersions: versions.filter((v) => v.storage).map((v) => v.name) },
  };
}

function typeOf(crd: Crd, version: string): ResourceType {
  const t = customResourceTypes(crd, { compile: compileCustomSchema, fieldSelectors: false }).types.find((x) => x.version === version);
  assert.ok(t, `version ${version} is served`);
  return t;
}

const single = typeOf(crdOf([{ name: 'v1', storage: true, schema: DEFAULTED }]), 'v1');
const plainSingle = typeOf(crdOf([{ name: 'v1', storage: true, schema: PLAIN }]), 'v1');
const plainMulti = typeOf(crdOf([{ name: 'v1', storage: true, schema: PLAIN }, { name: 'v2', storage: false, schema: PLAIN }]), 'v1');
const multi = crdOf([{ name: 'v1', storage: true, schema: DEFAULTED }, { name: 'v2', storage: false, schema: DEFAULTED }]);
const multiV1 = typeOf(multi, 'v1');
const multiV2 = typeOf(multi, 'v2');

const raw = (o: object) => Buffer.from(JSON.stringify(o));
const meta = { name: 'g', namespace: 'ns', uid: 'u-1' };
const fullSpec = { size: 3, mode: 'slow', ports: [{ port: 80, protocol: 'UDP' }], limits: { cpu: { max: 2 } } };

/** The decoding path of `objectJson` (what every read did before the shortcut), as parsed JSON. */
const slowPath = (t: ResourceType, value: Uint8Array, rv: number) => JSON.parse(JSON.stringify(decodeFromStorage(t, value, rv)));
/** Whether `objectJson` takes the stored bytes (a type with nothing to do on read has no `fromStorage` at all). */
const servedAsIs = (t: ResourceType, value: Uint8Array) => !t.fromStorage || t.readsStoredAsIs?.(value) === true;

const cases: Array<{ name: string; type: ResourceType; value: Buffer; asIs: boolean }> = [
  { name: 'every default present', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: fullSpec }), asIs: true },
  { name: 'written through the type (defaults filled on create)', type: single, value: written(single, { spec: { ports: [{ port: 1 }], limits: { a: {} } } }), asIs: true },
  { name: 'a top-level default missing (stored before it existed)', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: { ...fullSpec, size: undefined } }), asIs: false },
  { name: 'no spec at all', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget' }), asIs: true },
  { name: 'an empty spec gets its defaults', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: {} }), asIs: false },
  { name: 'a default missing in array items', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: { ...fullSpec, ports: [{ port: 80, protocol: 'UDP' }, { port: 81 }] } }), asIs: false },
  { name: 'a default missing in map values', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: { ...fullSpec, limits: { cpu: { max: 2 }, mem: {} } } }), asIs: false },
  { name: 'a non-nullable null replaced by its default', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: { ...fullSpec, mode: null } }), asIs: false },
  { name: 'empty metadata', type: single, value: raw({ metadata: {}, apiVersion: 'example.com/v1', kind: 'Gadget', spec: fullSpec }), asIs: true },
  { name: 'labels and annotations', type: single, value: raw({ metadata: { ...meta, labels: { a: 'b' }, annotations: { x: 'y' } }, apiVersion: 'example.com/v1', kind: 'Gadget', spec: fullSpec }), asIs: true },
  { name: 'a schema without defaults, one version', type: plainSingle, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: {} }), asIs: true },
  { name: 'a schema without defaults, two versions', type: plainMulti, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: {} }), asIs: true },
  { name: 'stored version read in the storage version', type: multiV1, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: fullSpec }), asIs: true },
  { name: 'stored version read in another version (relabelled)', type: multiV2, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: fullSpec }), asIs: false },
  { name: 'a value written in that other version earlier', type: multiV1, value: raw({ metadata: meta, apiVersion: 'example.com/v2', kind: 'Gadget', spec: fullSpec }), asIs: false },
  { name: 'another kind in the stored value', type: single, value: raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Other', spec: fullSpec }), asIs: false },
];

function written(t: ResourceType, body: object): Buffer {
  const obj = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { ...meta }, ...structuredClone(body) } as ApiObject;
  t.strategy.prepareForCreate?.(obj);
  return Buffer.from(encodeForStorage(t, obj));
}

describe('stored custom resources served without decoding (spec 2.6, 4.4)', () => {
  for (const c of cases) {
    it(`spec 2.6: ${c.name}: ${c.asIs ? 'served as stored' : 'decoded and defaulted'}, the same JSON as the decoding path`, () => {
      assert.equal(servedAsIs(c.type, c.value), c.asIs);
      const served = JSON.parse(objectJson(c.type, c.value, 42).toString('utf8'));
      assert.deepEqual(served, slowPath(c.type, c.value, 42));
      assert.equal(served.metadata.resourceVersion, '42');
    });
  }

  it('spec 2.6: a value served as stored is its stored bytes with the resourceVersion spliced in', () => {
    const value = written(single, { spec: fullSpec });
    const served = objectJson(single, value, 7).toString('utf8');
    assert.equal(served, value.toString('utf8').replace('{"metadata":{', '{"metadata":{"resourceVersion":"7",'));
    // Asked again (the watch cache keeps the same Buffer): the same answer from memory.
    assert.equal(objectJson(single, value, 8).toString('utf8'), value.toString('utf8').replace('{"metadata":{', '{"metadata":{"resourceVersion":"8",'));
  });

  it('spec 2.6: the same stored bytes get a default once the schema adds one (a new type, a new memory)', () => {
    const value = raw({ metadata: meta, apiVersion: 'example.com/v1', kind: 'Gadget', spec: {} });
    assert.equal(plainMulti.readsStoredAsIs?.(value), true);
    const before = JSON.parse(objectJson(plainMulti, value, 3).toString('utf8'));
    assert.deepEqual(before.spec, {});
    const changed = typeOf(crdOf([{ name: 'v1', storage: true, schema: DEFAULTED }, { name: 'v2', storage: false, schema: PLAIN }]), 'v1');
    assert.equal(changed.readsStoredAsIs?.(value), false);
    const after = JSON.parse(objectJson(changed, value, 3).toString('utf8'));
    assert.deepEqual(after.spec, { size: 1, mode: 'fast' });
  });

  it('reference behaviour: a stored value that is not JSON is refused as before, not served', () => {
    const value = Buffer.from('{"metadata":{"name":"g"},"spec":');
    assert.equal(single.readsStoredAsIs?.(value), false);
    assert.throws(() => objectJson(single, value, 1), SyntaxError);
  });

  it('spec 2.6: applyDefaults answers whether it filled anything in', () => {
    const t = compileCustomSchema(DEFAULTED, 'schema').schema!;
    const obj: Any = { spec: { ports: [{}] } };
    assert.equal(t.applyDefaults(obj), true);
    assert.deepEqual(obj.spec, { size: 1, mode: 'fast', ports: [{ protocol: 'TCP' }] });
    assert.equal(t.applyDefaults(obj), false);
  });
});
