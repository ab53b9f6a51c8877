import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../errors/index.js';
import { listReadMode } from './list-watch.js';
import { beyondAnyRevision, boundedValue, canonicalResourceVersion, parseResourceVersion } from './resource-version.js';
import { checkWatchRequest } from './watch-stream.js';

const badRequestNaming = (field: string) => (e: unknown) =>
  e instanceof StatusError &&
  e.code === 400 &&
  e.message.startsWith(`${field}: Invalid value: `) &&
  e.details?.causes?.[0]?.field === field &&
  e.message.length < 300;

describe('resourceVersion parsing (spec 4.5, reference behaviour: an unsigned 64-bit integer)', () => {
  const valid: [string, number][] = [
    ['0', 0],
    ['00', 0],
    ['42', 42],
    ['0042', 42],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ];
  for (const [text, want] of valid) it(`"${text}" is ${want}`, () => assert.equal(parseResourceVersion(text), want));

  it('2^64-1 is valid and beyond every revision a store holds', () => {
    const n = parseResourceVersion('18446744073709551615');
    assert.ok(beyondAnyRevision(n));
    assert.ok(n > Number.MAX_SAFE_INTEGER);
    assert.ok(beyondAnyRevision(parseResourceVersion(`${'0'.repeat(50)}18446744073709551615`)), 'leading zeros do not count');
    assert.equal(beyondAnyRevision(parseResourceVersion('9007199254740991')), false);
  });

  const invalid: [string, string][] = [
    ['2^64 (one past the largest)', '18446744073709551616'],
    ['400 nines (a float would read Infinity)', '9'.repeat(400)],
    ['21 digits', '100000000000000000000'],
    ['a negative number', '-1'],
    ['a fraction', '1.5'],
    ['text', 'abc'],
    ['an exponent', '1e3'],
    ['spaces', ' 1'],
  ];
  for (const [name, text] of invalid) {
    it(`400 naming resourceVersion, quoting a bounded value: ${name}`, () => assert.throws(() => parseResourceVersion(text), badRequestNaming('resourceVersion')));
  }

  it('list and watch parameters use the same parsing (400, never a 504 for an unparsable value)', () => {
    for (const rv of ['18446744073709551616', '9'.repeat(400)]) {
      assert.throws(() => listReadMode({ resourceVersion: rv }), badRequestNaming('resourceVersion'));
      assert.throws(() => listReadMode({ resourceVersion: rv, limit: 5 }), badRequestNaming('resourceVersion'));
      const watch = { resourceVersion: rv, allowWatchBookmarks: false, watchListEnabled: false, timeoutMs: 1000, bookmarkIntervalMs: 0, maxQueue: 10 };
      assert.throws(() => checkWatchRequest(watch), badRequestNaming('resourceVersion'));
    }
  });

  it('a list read mode keeps the exact text of a value past 2^53', () => {
    const m = listReadMode({ resourceVersion: '018446744073709551615' });
    assert.deepEqual(m, { mode: 'notOlderThan', revision: 18446744073709551615, text: '18446744073709551615' });
  });

  it('canonicalResourceVersion drops leading zeros only', () => {
    assert.deepEqual(['0', '000', '0012', '120'].map(canonicalResourceVersion), ['0', '0', '12', '120']);
  });

  it('boundedValue keeps short values and cuts long ones without splitting a character', () => {
    assert.equal(boundedValue('abc'), 'abc');
    assert.equal(boundedValue('x'.repeat(500)), `${'x'.repeat(100)}...`);
    assert.equal(boundedValue(`${'x'.repeat(99)}😀`), `${'x'.repeat(99)}...`);
  });
});
