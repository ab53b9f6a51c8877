import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch, APPLY_PATCH_CBOR, APPLY_PATCH_YAML, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from './index.js';

/** RFC 7386 Appendix A, every row: [original, patch, result]. */
const appendixA: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe('spec 4.3 merge patch: RFC 7386 appendix A', () => {
  for (const [i, [original, patch, result]] of appendixA.entries()) {
    test(`example ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(original, patch), result);
    });
  }
});

describe('spec 4.3 merge patch: RFC 7386 section 3 example', () => {
  test('title, author, phone number and tags', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    assert.deepEqual(applyMergePatch(target, patch), {
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });
});

describe('spec 4.3 merge patch: object-shaped cases', () => {
  const cases: [string, unknown, unknown, unknown][] = [
    ['deleting a missing key is a no-op', { a: 1 }, { b: null }, { a: 1 }],
    ['nulls inside arrays are kept', { a: 1 }, { l: [null, { x: null }] }, { a: 1, l: [null, { x: null }] }],
    ['object replaces scalar and is cleaned of nulls', { a: 1 }, { a: { b: null, c: 2 } }, { a: { c: 2 } }],
    ['empty patch object keeps the target', { a: { b: 1 } }, {}, { a: { b: 1 } }],
    ['scalar target becomes an object', 'x', { a: 1 }, { a: 1 }],
    ['undefined target behaves like missing', undefined, { a: { b: null } }, { a: {} }],
    [
      'labels on an object',
      { metadata: { name: 'n', labels: { a: '1', b: '2' } } },
      { metadata: { labels: { a: null, c: '3' } } },
      { metadata: { name: 'n', labels: { b: '2', c: '3' } } },
    ],
  ];
  for (const [title, target, patch, want] of cases) {
    test(title, () => assert.deepEqual(applyMergePatch(target, patch), want));
  }

  test('inputs are never mutated and the result shares nothing with them', () => {
    const target = { a: { b: [1, { c: 2 }] }, keep: { deep: true } };
    const patch = { a: { d: { e: 1 } }, n: [{ x: 1 }] };
    const t0 = structuredClone(target);
    const p0 = structuredClone(patch);
    const out = applyMergePatch(target, patch) as { a: { b: unknown[]; d: object }; keep: object; n: object[] };
    assert.deepEqual(target, t0);
    assert.deepEqual(patch, p0);
    assert.notEqual(out.keep, target.keep);
    assert.notEqual(out.a.b, target.a.b);
    assert.notEqual(out.a.d, patch.a.d);
    assert.notEqual(out.n[0], patch.n[0]);
  });

  test('a "__proto__" key from parsed JSON stays an ordinary member', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal((out as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.keys(out).sort(), ['__proto__', 'a']);
  });
});

describe('spec 4.3 patch media types', () => {
  test('constants match the Content-Type values', () => {
    assert.deepEqual(
      [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML, APPLY_PATCH_CBOR],
      [
        'application/json-patch+json',
        'application/merge-patch+json',
        'application/strategic-merge-patch+json',
        'application/apply-patch+yaml',
        'application/apply-patch+cbor',
      ],
    );
  });
});
