import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schema } from '../api/index.js';
import { mapList, obj, objectSchema, setList, str } from '../registry/schema.js';
import { applyStrategicMergePatch } from './strategic-merge.js';

const schema: Schema = objectSchema('list-heavy test type', {
  metadata: obj({ finalizers: setList(str()) }),
  spec: obj({ containers: mapList(obj({ name: str(), image: str() }), 'name') }),
});

/**
 * Issue 23: a patch of long lists must not cost time quadratic in their length. Matching by merge key,
 * set merging and ordering used to compare every item with every other: 20,000 items took 10 s, so a
 * 3 MiB patch could hold the event loop for hours. The bound below is generous (linear work is ~0.1 s).
 */
describe('strategic merge of long lists is not quadratic (spec 4.3, issue 23)', () => {
  const n = 50_000;
  const within = (ms: number, fn: () => unknown): unknown => {
    const start = Date.now();
    const out = fn();
    assert.ok(Date.now() - start < ms, `took ${Date.now() - start} ms`);
    return out;
  };

  it('a set of primitives (finalizers) merges and keeps the reference order', () => {
    const have = Array.from({ length: n }, (_, i) => `f${i}`);
    const add = Array.from({ length: n }, (_, i) => `g${i}`);
    const out = within(10_000, () => applyStrategicMergePatch({ metadata: { finalizers: have } }, { metadata: { finalizers: [...add, 'f0'] } }, schema));
    const fins = (out as { metadata: { finalizers: string[] } }).metadata.finalizers;
    assert.equal(fins.length, 2 * n);
    assert.equal(new Set(fins).size, 2 * n);
  });

  it('a list of maps merges by key, updating in place and appending new keys', () => {
    const have = Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'a' }));
    const patch = Array.from({ length: n }, (_, i) => ({ name: `c${i + n / 2}`, image: 'b' }));
    const out = within(10_000, () => applyStrategicMergePatch({ spec: { containers: have } }, { spec: { containers: patch } }, schema));
    const cs = (out as { spec: { containers: { name: string; image: string }[] } }).spec.containers;
    assert.equal(cs.length, n + n / 2);
    assert.equal(cs.filter((c) => c.image === 'b').length, n);
    assert.equal(new Set(cs.map((c) => c.name)).size, cs.length);
  });

  it('$deleteFromPrimitiveList and $setElementOrder on long lists', () => {
    const have = Array.from({ length: n }, (_, i) => `f${i}`);
    const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': have.slice(0, n / 2), '$setElementOrder/finalizers': [...have].reverse() } };
    const out = within(10_000, () => applyStrategicMergePatch({ metadata: { finalizers: have } }, patch, schema));
    assert.deepEqual((out as { metadata: { finalizers: string[] } }).metadata.finalizers, have.slice(n / 2).reverse());
  });
});
