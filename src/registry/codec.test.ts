import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../api/types.js';
import { builtinTypes } from './resources/index.js';
import { decodeFromStorage, encodeForStorage, labelsOfStored, objectJson } from './codec.js';
import type { ResourceType } from './types.js';

const configMaps = builtinTypes().find((t) => t.group === '' && t.plural === 'configmaps') as ResourceType;
const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('stored form and encode-once responses (spec 2.1 resourceVersion, architecture: encode once)', () => {
  it('the stored form puts metadata first and drops resourceVersion', () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' }, metadata: { name: 'x', resourceVersion: '5', namespace: 'd' } } as ApiObject;
    assert.equal(text(encodeForStorage(configMaps, obj)), '{"metadata":{"name":"x","namespace":"d"},"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}');
    assert.equal(obj.metadata?.resourceVersion, '5', 'the caller object is left alone');
    assert.equal(text(encodeForStorage(configMaps, { kind: 'ConfigMap' } as ApiObject)), '{"metadata":{},"kind":"ConfigMap"}');
  });

  it('a field named __proto__ is stored as a field, not as a prototype', () => {
    const obj = JSON.parse('{"kind":"ConfigMap","metadata":{"name":"x"},"__proto__":{"polluted":true}}') as ApiObject;
    const stored = text(encodeForStorage(configMaps, obj));
    assert.equal(stored, '{"metadata":{"name":"x"},"kind":"ConfigMap","__proto__":{"polluted":true}}');
  });

  const cases: [string, string, number, string][] = [
    ['metadata with fields', '{"metadata":{"name":"x"},"kind":"ConfigMap"}', 7, '{"metadata":{"resourceVersion":"7","name":"x"},"kind":"ConfigMap"}'],
    ['empty metadata', '{"metadata":{},"kind":"ConfigMap"}', 12345, '{"metadata":{"resourceVersion":"12345"},"kind":"ConfigMap"}'],
    ['non-ASCII content after the splice', '{"metadata":{"name":"é"},"data":{"k":"ü✓"}}', 9, '{"metadata":{"resourceVersion":"9","name":"é"},"data":{"k":"ü✓"}}'],
  ];
  for (const [name, stored, rev, want] of cases) {
    it(`objectJson splices the resourceVersion into the stored bytes: ${name}`, () => {
      const out = objectJson(configMaps, Buffer.from(stored), rev);
      assert.equal(out.toString('utf8'), want);
      // The same object a decode gives, apart from the apiVersion and kind that decoding fills in.
      const { apiVersion: _v, kind: _k, ...decoded } = decodeFromStorage(configMaps, Buffer.from(stored), rev);
      const { apiVersion: _v2, kind: _k2, ...spliced } = JSON.parse(out.toString('utf8'));
      assert.deepEqual(spliced, decoded);
    });
  }

  it('objectJson takes a plain Uint8Array view into a larger buffer', () => {
    const whole = Buffer.from('XXXX{"metadata":{"name":"v"}}YYYY');
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 4, whole.length - 8);
    assert.equal(objectJson(configMaps, view, 3).toString(), '{"metadata":{"resourceVersion":"3","name":"v"}}');
  });

  it('a stored form without metadata first is decoded and encoded again (still correct)', () => {
    const out = JSON.parse(objectJson(configMaps, Buffer.from('{"kind":"ConfigMap","metadata":{"name":"o"}}'), 4).toString());
    assert.equal(out.metadata.resourceVersion, '4');
    assert.equal(out.metadata.name, 'o');
    assert.equal(out.apiVersion, 'v1');
  });
});

describe('labels of stored objects (the watch cache label index)', () => {
  const stored = (o: unknown) => Buffer.from(JSON.stringify(o));
  const cases: [string, unknown, Record<string, string> | undefined][] = [
    ['no labels anywhere', { metadata: { name: 'a' }, data: { x: '1' } }, undefined],
    ['metadata labels', { metadata: { name: 'a', labels: { app: 'web', 'b/c': 'd' } }, spec: {} }, { app: 'web', 'b/c': 'd' }],
    ['labels only in the pod template', { metadata: { name: 'a', uid: 'u' }, spec: { template: { metadata: { labels: { app: 'web' } } } } }, undefined],
    ['both: the metadata ones', { metadata: { name: 'a', labels: { own: '1' } }, spec: { template: { metadata: { labels: { app: 'web' } } } } }, { own: '1' }],
    ['after nested metadata fields', { metadata: { name: 'a', ownerReferences: [{ uid: 'x', kind: '{[' }], labels: { z: '}' } } }, { z: '}' }],
    ['a label value with quotes and braces', { metadata: { labels: { q: 'a"}\\' } } }, { q: 'a"}\\' }],
    ['"labels": inside an annotation value', { metadata: { annotations: { note: '"labels":{"fake":"1"}' }, labels: { real: '1' } } }, { real: '1' }],
    ['"labels": only inside a string', { metadata: { annotations: { note: '"labels":{"fake":"1"}' } } }, undefined],
    ['metadata not first (another writer)', { kind: 'X', metadata: { labels: { a: 'b' } } }, { a: 'b' }],
  ];
  for (const [name, obj, want] of cases) {
    it(name, () => assert.deepEqual(labelsOfStored(stored(obj)), want));
  }
  it('a Uint8Array view of a larger buffer', () => {
    const big = Buffer.concat([Buffer.from('xxxx'), stored({ metadata: { labels: { a: 'b' } } })]);
    assert.deepEqual(labelsOfStored(new Uint8Array(big.buffer, big.byteOffset + 4, big.length - 4)), { a: 'b' });
  });
});
