/**
 * Shortcuts of the managed-fields walk (fieldset.ts) against the plain code they stand for: `sortedKeys`
 * against `Object.keys(o).sort()`, and the single-key map-list segment against the canonical JSON of a
 * built key object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, elementSegment, sortedKeys, type ListShape } from './fieldset.js';

describe('spec 2.4: sortedKeys orders keys as Object.keys(o).sort() does', () => {
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 17) % 40}`, i]));
  const cases: [string, object][] = [
    ['no keys', {}],
    ['one key', { a: 1 }],
    ['already sorted', { a: 1, b: 2, c: 3 }],
    ['reversed', { z: 1, y: 2, x: 3, w: 4 }],
    ['upper case before lower case (code units)', { b: 1, B: 2, a: 3, A: 4, _: 5 }],
    ['integer-like keys, which Object.keys lists numerically', { '10': 1, '9': 2, '1': 3, '100': 4, a: 5 }],
    ['prefixes and equal starts', { ab: 1, a: 2, abc: 3, 'a-b': 4, 'a.b': 5 }],
    ['non-ASCII and astral characters', { é: 1, e: 2, '😀': 3, '\uffff': 4, z: 5 }],
    ['a "__proto__" key from JSON', JSON.parse('{"z":1,"__proto__":2,"a":3}') as object],
    ['sixteen keys (the insertion sort\'s limit)', Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${15 - i}`, i]))],
    ['more than sixteen keys (the built-in sort)', many],
    ['a pod spec\'s defaulted members', { terminationGracePeriodSeconds: 30, restartPolicy: 'Always', containers: [], dnsPolicy: 'ClusterFirst', securityContext: {}, schedulerName: 'd' }],
  ];
  for (const [title, o] of cases) {
    it(`spec 2.4: ${title}`, () => assert.deepEqual(sortedKeys(o), Object.keys(o).sort()));
  }
});

describe('spec 2.4: a map-list element with one scalar key field is named as the general path names it', () => {
  const general = (keys: string[], el: Record<string, unknown>) => {
    const key: Record<string, unknown> = {};
    for (const k of keys) key[k] = el[k];
    return `k:${canonicalJson(key)}`;
  };
  const byName: ListShape = { type: 'map', keys: ['name'] };
  const cases: [string, ListShape, Record<string, unknown>][] = [
    ['a plain name', byName, { name: 'c', image: 'i' }],
    ['a name with quotes, backslashes and control characters', byName, { name: 'a"b\\c\n\u0001' }],
    ['a name with non-ASCII and astral characters', byName, { name: 'é😀\u2028' }],
    ['an empty name', byName, { name: '' }],
    ['an integer key (ports by containerPort)', { type: 'map', keys: ['containerPort'] }, { containerPort: 8080, protocol: 'TCP' }],
    ['negative zero', { type: 'map', keys: ['n'] }, { n: -0 }],
    ['a fractional number', { type: 'map', keys: ['n'] }, { n: 1.5 }],
    ['a large number', { type: 'map', keys: ['n'] }, { n: 1e21 }],
    ['a boolean key', { type: 'map', keys: ['on'] }, { on: false }],
    ['an object key value (not a scalar: the general path)', { type: 'map', keys: ['k'] }, { k: { b: 1, a: [2, { d: 1, c: 2 }] } }],
    ['a key field named with quotes', { type: 'map', keys: ['we"ird'] }, { 'we"ird': 'x' }],
    ['two key fields (the general path)', { type: 'map', keys: ['port', 'protocol'] }, { protocol: 'UDP', port: 53 }],
  ];
  for (const [title, shape, el] of cases) {
    it(`spec 2.4: ${title}`, () => {
      assert.ok(shape.type === 'map');
      assert.equal(elementSegment(shape, el, ['f:spec', 'f:list'], 0), general(shape.keys, el));
    });
  }

  it('spec 2.4: a missing or null key field is still refused with 400', () => {
    assert.throws(() => elementSegment(byName, { image: 'i' }, ['f:spec', 'f:containers'], 2), /element 2: .*omits key field "name"/);
    assert.throws(() => elementSegment(byName, { name: null }, ['f:spec', 'f:containers'], 0), /omits key field "name"/);
  });
});
