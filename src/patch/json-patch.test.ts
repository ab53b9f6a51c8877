import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../errors/index.js';
import { applyJsonPatch, parsePointer } from './index.js';

type Ok = [title: string, doc: unknown, ops: unknown, want: unknown];
type Fail = [title: string, doc: unknown, ops: unknown, code: 400 | 422, fragment: string];

/** RFC 6902 appendix A successes, plus each operation's edge cases. */
const successes: Ok[] = [
  ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  [
    'A.6 move a value',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  ],
  [
    'A.7 move an array element',
    { foo: ['all', 'grass', 'cows', 'eat'] },
    [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] },
  ],
  [
    'A.8 test success',
    { baz: 'qux', foo: ['a', 2, 'c'] },
    [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    { baz: 'qux', foo: ['a', 2, 'c'] },
  ],
  ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } }],
  ['A.11 unrecognized members are ignored', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  ['A.16 add an array value with "-"', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['add replaces an existing member', { a: 1 }, [{ op: 'add', path: '/a', value: 2 }], { a: 2 }],
  ['add at the array end by index', { l: [1] }, [{ op: 'add', path: '/l/1', value: 2 }], { l: [1, 2] }],
  ['add null is a value', { a: 1 }, [{ op: 'add', path: '/b', value: null }], { a: 1, b: null }],
  ['add at root replaces the document', { a: 1 }, [{ op: 'add', path: '', value: { b: 2 } }], { b: 2 }],
  ['add with ~1 in the key', { metadata: { labels: {} } }, [{ op: 'add', path: '/metadata/labels/example.com~1tier', value: 'web' }], { metadata: { labels: { 'example.com/tier': 'web' } } }],
  ['add with ~0 in the key', {}, [{ op: 'add', path: '/a~0b', value: 1 }], { 'a~b': 1 }],
  ['add a member named like a prototype method', {}, [{ op: 'add', path: '/toString', value: 1 }], { toString: 1 }],
  ['replace at root', { a: 1 }, [{ op: 'replace', path: '', value: [1] }], [1]],
  ['replace an array element', { l: [1, 2] }, [{ op: 'replace', path: '/l/0', value: 9 }], { l: [9, 2] }],
  ['replace with null', { a: 1 }, [{ op: 'replace', path: '/a', value: null }], { a: null }],
  ['remove a null member', { a: null, b: 1 }, [{ op: 'remove', path: '/a' }], { b: 1 }],
  ['remove the last array element', { l: [1, 2] }, [{ op: 'remove', path: '/l/1' }], { l: [1] }],
  ['move to the array end with "-"', { l: [1, 2, 3] }, [{ op: 'move', from: '/l/0', path: '/l/-' }], { l: [2, 3, 1] }],
  ['move onto itself', { a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a' }], { a: { b: 1 } }],
  ['move overwrites the target', { a: 1, b: 2 }, [{ op: 'move', from: '/a', path: '/b' }], { b: 1 }],
  ['copy an object member', { a: { x: 1 } }, [{ op: 'copy', from: '/a', path: '/b' }], { a: { x: 1 }, b: { x: 1 } }],
  ['copy into an array', { a: 'v', l: [1] }, [{ op: 'copy', from: '/a', path: '/l/0' }], { a: 'v', l: ['v', 1] }],
  [
    'copy is by value',
    { a: { x: 1 } },
    [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'replace', path: '/b/x', value: 2 },
    ],
    { a: { x: 1 }, b: { x: 2 } },
  ],
  ['test an object ignores member order', { o: { a: 1, b: [1, 2] } }, [{ op: 'test', path: '/o', value: { b: [1, 2], a: 1 } }], { o: { a: 1, b: [1, 2] } }],
  ['test the whole document', { a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }], { a: 1 }],
  ['test a null value', { a: null }, [{ op: 'test', path: '/a', value: null }], { a: null }],
  ['test guards a later change', { metadata: { resourceVersion: '5' }, spec: 1 }, [
    { op: 'test', path: '/metadata/resourceVersion', value: '5' },
    { op: 'replace', path: '/spec', value: 2 },
  ], { metadata: { resourceVersion: '5' }, spec: 2 }],
  ['empty patch is a no-op', { a: 1 }, [], { a: 1 }],
  ['operations apply in order', { l: [] }, [
    { op: 'add', path: '/l/-', value: 1 },
    { op: 'add', path: '/l/0', value: 0 },
    { op: 'remove', path: '/l/1' },
  ], { l: [0] }],
];

/** Malformed documents (400) and well-formed patches that do not apply to this object (422). */
const failures: Fail[] = [
  ['body is an object', { a: 1 }, { op: 'add', path: '/a', value: 1 }, 400, 'must be a JSON array of operations, got object'],
  ['body is null', { a: 1 }, null, 400, 'got null'],
  ['operation is not an object', {}, ['add'], 400, 'operation 0: must be an object'],
  ['missing op', {}, [{ path: '/a' }], 400, 'operation 0: missing "op"'],
  ['unknown op', {}, [{ op: 'merge', path: '/a' }], 400, 'unsupported "op" "merge"'],
  ['non-string op', {}, [{ op: 1, path: '/a' }], 400, 'unsupported "op" 1'],
  ['missing path', {}, [{ op: 'remove' }], 400, 'remove: missing "path"'],
  ['path not a string', {}, [{ op: 'remove', path: 3 }], 400, '"path" must be a string'],
  ['path without leading slash', { a: 1 }, [{ op: 'remove', path: 'a' }], 400, "must be empty or start with '/'"],
  ['bad ~ escape', { a: 1 }, [{ op: 'remove', path: '/a~2' }], 400, "'~' must be followed by '0' or '1'"],
  ['add without value', {}, [{ op: 'add', path: '/a' }], 400, 'add: missing "value"'],
  ['replace without value', { a: 1 }, [{ op: 'replace', path: '/a' }], 400, 'replace: missing "value"'],
  ['test without value', { a: 1 }, [{ op: 'test', path: '/a' }], 400, 'test: missing "value"'],
  ['move without from', { a: 1 }, [{ op: 'move', path: '/b' }], 400, 'move: missing "from"'],
  ['copy with a bad from pointer', { a: 1 }, [{ op: 'copy', from: 'a', path: '/b' }], 400, 'invalid "from" "a"'],
  ['a malformed later op wins over an earlier failing test', { a: 1 }, [{ op: 'test', path: '/a', value: 2 }, { op: 'nope', path: '' }], 400, 'operation 1'],
  ['A.9 test failure', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 422, 'jsonpatch test operation does not apply: doc is not equal to the value at path "/baz" (operation 0)'],
  ['A.12 add to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], 422, 'jsonpatch add operation does not apply: doc is missing path "/baz"'],
  ['A.15 strings are not numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], 422, 'not equal to the value at path "/~01"'],
  ['test on a missing path', { a: 1 }, [{ op: 'test', path: '/b', value: null }], 422, 'doc is missing path "/b"'],
  ['test array order matters', { l: [1, 2] }, [{ op: 'test', path: '/l', value: [2, 1] }], 422, 'not equal'],
  ['test names the later index', { a: 1 }, [{ op: 'test', path: '/a', value: 1 }, { op: 'test', path: '/a', value: 2 }], 422, '(operation 1)'],
  ['remove a missing member', { a: 1 }, [{ op: 'remove', path: '/b' }], 422, 'jsonpatch remove operation does not apply: doc is missing path "/b"'],
  ['remove an inherited member', {}, [{ op: 'remove', path: '/toString' }], 422, 'doc is missing path "/toString"'],
  ['replace a missing member', { a: 1 }, [{ op: 'replace', path: '/b', value: 1 }], 422, 'jsonpatch replace operation does not apply'],
  ['replace below a scalar', { a: 1 }, [{ op: 'replace', path: '/a/b', value: 1 }], 422, 'doc is missing path "/a/b"'],
  ['remove past the array end', { l: [1] }, [{ op: 'remove', path: '/l/1' }], 422, 'index 1 is out of range at path "/l/1"'],
  ['remove with "-"', { l: [1] }, [{ op: 'remove', path: '/l/-' }], 422, '"-" is not a valid array index'],
  ['add past the array end', { l: [1] }, [{ op: 'add', path: '/l/3', value: 1 }], 422, 'index 3 is out of range at path "/l/3"'],
  ['add with a leading-zero index', { l: [1, 2] }, [{ op: 'add', path: '/l/01', value: 1 }], 422, '"01" is not a valid array index'],
  ['add with a word as index', { l: [] }, [{ op: 'add', path: '/l/x', value: 1 }], 422, '"x" is not a valid array index'],
  ['add below a scalar', { a: 'x' }, [{ op: 'add', path: '/a/b', value: 1 }], 422, 'doc is missing path "/a/b"'],
  ['move from a missing path', { a: 1 }, [{ op: 'move', from: '/b', path: '/c' }], 422, 'jsonpatch move operation does not apply: doc is missing from path "/b"'],
  ['copy from a missing path', { a: 1 }, [{ op: 'copy', from: '/b', path: '/c' }], 422, 'jsonpatch copy operation does not apply: doc is missing from path "/b"'],
  ['move into its own child', { a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }], 422, 'cannot move "/a" into its own child "/a/b/c"'],
  ['copy to a missing parent', { a: 1 }, [{ op: 'copy', from: '/a', path: '/x/y' }], 422, 'doc is missing path "/x"'],
  ['a __proto__ segment', {}, [{ op: 'add', path: '/__proto__/polluted', value: true }], 422, '"__proto__" may not be used'],
  ['a constructor/prototype path', {}, [{ op: 'add', path: '/constructor/prototype/x', value: 1 }], 422, '"prototype" may not be used'],
];

describe('spec 4.3 JSON patch (RFC 6902) applies', () => {
  for (const [title, doc, ops, want] of successes) {
    test(title, () => assert.deepEqual(applyJsonPatch(doc, ops), want));
  }
});

describe('spec 4.3 JSON patch (RFC 6902) failures', () => {
  for (const [title, doc, ops, code, fragment] of failures) {
    test(`${title} -> ${code}`, () => {
      const before = structuredClone(doc);
      assert.throws(
        () => applyJsonPatch(doc, ops),
        (e: unknown) => {
          assert.ok(e instanceof StatusError, `not a StatusError: ${String(e)}`);
          assert.equal(e.code, code);
          assert.equal(e.reason, code === 400 ? 'BadRequest' : 'Invalid');
          assert.ok(e.message.includes(fragment), `"${e.message}" lacks "${fragment}"`);
          if (code === 422) assert.ok(e.message.startsWith('the server rejected our request due to an error in our request: '));
          return true;
        },
      );
      assert.deepEqual(doc, before, 'input mutated');
    });
  }
});

describe('spec 4.3 JSON patch purity', () => {
  test('neither the target nor the patch is mutated, and the result shares nothing with them', () => {
    const doc = { a: { b: [1, 2] }, keep: { k: 1 } };
    const ops = [
      { op: 'add', path: '/a/b/-', value: { n: 1 } },
      { op: 'remove', path: '/a/b/0' },
      { op: 'move', from: '/keep', path: '/moved' },
    ];
    const d0 = structuredClone(doc);
    const o0 = structuredClone(ops);
    const out = applyJsonPatch(doc, ops) as { a: { b: [number, { n: number }] }; moved: object };
    assert.deepEqual(out, { a: { b: [2, { n: 1 }] }, moved: { k: 1 } });
    assert.deepEqual(doc, d0);
    assert.deepEqual(ops, o0);
    assert.notEqual(out.a.b[1], ops[0]?.value);
    assert.notEqual(out.moved, doc.keep);
  });

  test('a failing later operation leaves the input untouched', () => {
    const doc = { a: 1 };
    assert.throws(() => applyJsonPatch(doc, [{ op: 'replace', path: '/a', value: 2 }, { op: 'remove', path: '/zz' }]));
    assert.deepEqual(doc, { a: 1 });
  });
});

describe('spec 4.3 JSON pointer parsing', () => {
  const cases: [string, string[] | 'error'][] = [
    ['', []],
    ['/', ['']],
    ['/a/b', ['a', 'b']],
    ['/a~1b', ['a/b']],
    ['/m~0n', ['m~n']],
    ['/~01', ['~1']],
    ['/ ', [' ']],
    ['a', 'error'],
    ['/~', 'error'],
    ['/~2', 'error'],
  ];
  for (const [pointer, want] of cases) {
    test(JSON.stringify(pointer), () => {
      const got = parsePointer(pointer);
      if (want === 'error') assert.equal(typeof got, 'string');
      else assert.deepEqual(got, want);
    });
  }
});
