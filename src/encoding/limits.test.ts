import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspectTree, jsonNestingExceeds } from './limits.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('jsonNestingExceeds (spec 8: nesting depth of a JSON body)', () => {
  const cases: [string, string, number, boolean][] = [
    ['a scalar has no depth', '"x"', 0, false],
    ['an empty object is one level', '{}', 1, false],
    ['an empty object is over a limit of 0', '{}', 0, true],
    ['arrays count like objects', '[[[]]]', 3, false],
    ['one level past the limit', '[[[[]]]]', 3, true],
    ['siblings do not add up', '[[],[],{"a":1}]', 2, false],
    ['brackets inside strings are text', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote does not end a string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the quote does end it', '{"a":"\\\\","b":[[]]}', 3, false],
    ['so brackets after it count', '{"a":"\\\\","b":[[]]}', 2, true],
    ['an unterminated string ends the scan', '["[[[[', 1, false],
    ['multi-byte text is skipped like any string', '{"ключ":"[[значение"}', 1, false],
  ];
  for (const [title, text, max, want] of cases) {
    it(`${title}: ${text} with limit ${max} -> ${want}`, () => assert.equal(jsonNestingExceeds(bytes(text), max), want));
  }

  it('10,000 levels are found over the limit without recursion', () => {
    assert.equal(jsonNestingExceeds(bytes('['.repeat(10_000) + ']'.repeat(10_000)), 256), true);
  });
});

describe('inspectTree (spec 8: decoded YAML and protobuf values)', () => {
  const limits = { maxDepth: 3, maxBytes: 100 };

  it('measures depth in containers and an approximate JSON size', () => {
    assert.deepEqual(inspectTree({ a: [1, { b: 'xy' }] }, limits), { ok: true, depth: 3, bytes: JSON.stringify({ a: [1, { b: 'xy' }] }).length, shared: false });
    assert.deepEqual(inspectTree('x', limits), { ok: true, depth: 0, bytes: 3, shared: false });
  });

  it('reports depth past the limit', () => {
    assert.deepEqual(inspectTree([[[[1]]]], limits), { ok: false, problem: 'depth' });
  });

  it('reports size past the limit, counting what is referenced twice twice', () => {
    const s = 'x'.repeat(40);
    assert.equal(inspectTree([s], limits).ok, true);
    assert.deepEqual(inspectTree([s, s, s], limits), { ok: false, problem: 'size' });
  });

  it('stops early: a shared array referenced a million times costs no more than the limit', () => {
    const part = Array(1000).fill(0);
    const huge = Array(1000).fill(part);
    assert.deepEqual(inspectTree(huge, { maxDepth: 10, maxBytes: 1_000_000, graph: true }), { ok: false, problem: 'size' });
  });

  it('finds a cycle when asked to treat the value as a graph', () => {
    const m: Record<string, unknown> = { name: 'x' };
    m.labels = m;
    assert.deepEqual(inspectTree({ metadata: m }, { maxDepth: 100, maxBytes: 1000, graph: true }), { ok: false, problem: 'cycle' });
  });

  it('tells shared parts (aliases) from a cycle', () => {
    const shared = { a: 1 };
    const report = inspectTree({ x: shared, y: shared }, { maxDepth: 10, maxBytes: 1000, graph: true });
    assert.equal(report.ok && report.shared, true);
    const tree = inspectTree({ x: { a: 1 }, y: { a: 1 } }, { maxDepth: 10, maxBytes: 1000, graph: true });
    assert.equal(tree.ok && tree.shared, false);
  });

  it('treats parser objects that are not plain (a YAML timestamp) as leaves', () => {
    assert.deepEqual(inspectTree({ t: new Date(0) }, limits), { ok: true, depth: 1, bytes: 1 + 5 + 24, shared: false });
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.deepEqual(inspectTree(deep, { maxDepth: 200_000, maxBytes: 1e9 }), { ok: true, depth: 100_000, bytes: 200_001, shared: false });
  });
});
