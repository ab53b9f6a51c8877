import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValueSlab } from './value-slab.js';

describe('ValueSlab: the watch cache copies small values into slabs of its own (spec 4.5 memory)', () => {
  const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

  it('copies are equal to their input and independent of it', () => {
    const slab = new ValueSlab(64, 32);
    const v = bytes(10, 7);
    const c = slab.copy(v);
    assert.notEqual(c, v);
    assert.deepEqual([...c], [...v]);
    v.fill(1); // the caller may reuse its buffer
    assert.deepEqual([...c], Array(10).fill(7));
  });

  it('consecutive copies share a slab, 8-byte aligned, without overlapping', () => {
    const slab = new ValueSlab(64, 32);
    const a = slab.copy(bytes(10, 1));
    const b = slab.copy(bytes(5, 2));
    assert.equal(a.buffer, b.buffer);
    assert.equal(b.byteOffset - a.byteOffset, 16);
    assert.deepEqual([...a], Array(10).fill(1));
    assert.deepEqual([...b], Array(5).fill(2));
  });

  it('a value that does not fit starts a new slab; the old copies stay intact', () => {
    const slab = new ValueSlab(32, 32);
    const a = slab.copy(bytes(20, 1));
    const b = slab.copy(bytes(20, 2)); // 24 used: 20 more do not fit in 32
    assert.notEqual(a.buffer, b.buffer);
    assert.deepEqual([...a], Array(20).fill(1));
    assert.deepEqual([...b], Array(20).fill(2));
  });

  it('values at the copy limit or larger are kept as they are, and empty values copy to empty', () => {
    const slab = new ValueSlab(64, 32);
    const big = bytes(32, 3);
    assert.equal(slab.copy(big), big);
    assert.equal(slab.copy(bytes(31, 3)).length, 31);
    assert.equal(slab.copy(new Uint8Array(0)).length, 0);
  });
});
