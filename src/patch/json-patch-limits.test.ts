import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_JSON_PATCH_OPERATIONS, MAX_NESTING_DEPTH, MAX_REQUEST_BYTES } from '../encoding/limits.js';
import { isStatusError } from '../errors/index.js';
import { applyJsonPatch } from './json-patch.js';

/** The Status an application throws: code and message. */
function failure(doc: unknown, ops: unknown[]): { code: number; message: string } {
  try {
    applyJsonPatch(doc, ops);
  } catch (e) {
    assert.ok(isStatusError(e), `not a Status: ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('the patch applied');
}

/** `levels` nested objects: `nest(2)` is `{a: {a: 1}}`. */
function nest(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

describe('JSON patch limits (spec 8, reference behaviour)', () => {
  it(`${MAX_JSON_PATCH_OPERATIONS} operations apply; one more is 413 with the reference message`, () => {
    const test = { op: 'test', path: '/a', value: 1 };
    assert.deepEqual(applyJsonPatch({ a: 1 }, Array(MAX_JSON_PATCH_OPERATIONS).fill(test)), { a: 1 });
    const f = failure({ a: 1 }, Array(MAX_JSON_PATCH_OPERATIONS + 1).fill(test));
    assert.equal(f.code, 413);
    assert.equal(f.message, `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001`);
  });

  it('copies that double a value are refused (422) once they would add more than the body limit', () => {
    const doc = { data: { a: 'x'.repeat(64) } };
    const ops = Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '/data', path: `/data/x${i}` }));
    const f = failure(doc, ops);
    assert.equal(f.code, 422);
    assert.match(f.message, /Unable to complete the copy, the accumulated size increase of copy is over 3145728 bytes, exceeding the limit 3145728 \(operation 1\d\)/);
    assert.deepEqual(doc, { data: { a: 'x'.repeat(64) } });
  });

  it('the copy budget is shared by all copies of one patch, even when the copies are removed again', () => {
    const mib = 'x'.repeat(1024 * 1024);
    const copyAndRemove = [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'remove', path: '/b' },
    ];
    // Two copies of 1 MiB (plus quotes) fit under 3 MiB; a third does not, though the result stays small.
    assert.deepEqual(applyJsonPatch({ a: mib }, [...copyAndRemove, ...copyAndRemove]), { a: mib });
    const f = failure({ a: mib }, [...copyAndRemove, ...copyAndRemove, ...copyAndRemove]);
    assert.equal(f.code, 422);
    assert.match(f.message, /accumulated size increase of copy .* \(operation 4\)$/);
    assert.ok(3 * (mib.length + 2) > MAX_REQUEST_BYTES);
  });

  it('a copy that would nest deeper than the limit is refused before it is made', () => {
    const doc = { deep: nest(MAX_NESTING_DEPTH - 2) };
    const f = failure(doc, [{ op: 'copy', from: '/deep', path: '/deep/a/b' }]);
    assert.equal(f.code, 422);
    assert.match(f.message, new RegExp(`the copy would nest deeper than the limit of ${MAX_NESTING_DEPTH} levels`));
  });

  it('adds and moves whose result nests deeper than the limit are 422, never a stack overflow', () => {
    // {x: ...} puts the innermost object at the limit; the value replaces its member with two more levels.
    const add = failure({ x: nest(MAX_NESTING_DEPTH - 1) }, [{ op: 'add', path: `/x${'/a'.repeat(MAX_NESTING_DEPTH - 1)}`, value: { b: { c: 1 } } }]);
    assert.equal(add.code, 422);
    assert.match(add.message, new RegExp(`the patched object nests deeper than the limit of ${MAX_NESTING_DEPTH} levels`));
    // Moves nest a branch into itself many times over; only the result is measured, once.
    const doc = { a: nest(200), b: nest(200) };
    const moves = [
      { op: 'move', from: '/b', path: `/a${'/a'.repeat(199)}` },
      { op: 'add', path: '/b', value: 1 },
    ];
    const move = failure(doc, moves);
    assert.equal(move.code, 422);
    assert.match(move.message, /nests deeper than the limit/);
  });

  it('an object already deeper than the limit (as managedFields can make it) may be patched, but not made deeper', () => {
    const doc = { x: nest(MAX_NESTING_DEPTH + 3) };
    assert.equal((applyJsonPatch(doc, [{ op: 'add', path: '/y', value: 1 }]) as Record<string, unknown>).y, 1);
    const deeper = failure(doc, [{ op: 'copy', from: '/x', path: '/z' }, { op: 'copy', from: '/z', path: '/x/a/b' }]);
    assert.equal(deeper.code, 422);
    assert.match(deeper.message, new RegExp(`nest deeper than the limit of ${MAX_NESTING_DEPTH + 4} levels`));
  });

  it('a result larger than the body limit is 413', () => {
    const chunk = 'x'.repeat(1024 * 1024);
    const ops = ['a', 'b', 'c', 'd'].map((k) => ({ op: 'add', path: `/${k}`, value: chunk }));
    const f = failure({}, ops);
    assert.equal(f.code, 413);
    assert.match(f.message, /the patched object is too large: the limit is 3145728 bytes/);
  });

  it('a path of 100,000 segments fails fast with a short message', () => {
    const f = failure({ a: 1 }, [{ op: 'replace', path: '/b'.repeat(100_000), value: 2 }]);
    assert.equal(f.code, 422);
    assert.ok(f.message.length < 1024, `${f.message.length} characters`);
  });
});
