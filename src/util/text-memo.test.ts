import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextMemo } from './text-memo.js';

describe('TextMemo: bounded tables of remembered answers (per-request parsing, spec 4.4)', () => {
  it('remembers answers per key', () => {
    const m = new TextMemo<number>(4, 10);
    assert.equal(m.get('a'), undefined);
    assert.equal(m.set('a', 1), 1);
    assert.equal(m.get('a'), 1);
  });

  it('is emptied when full, so it never holds more than its bound', () => {
    const m = new TextMemo<number>(3, 10);
    for (const k of ['a', 'b', 'c']) m.set(k, 0);
    assert.equal(m.size, 3);
    m.set('d', 4);
    assert.equal(m.size, 1);
    assert.equal(m.get('a'), undefined);
    assert.equal(m.get('d'), 4);
  });

  it('does not keep long keys, but still returns their value', () => {
    const m = new TextMemo<string>(3, 5);
    assert.equal(m.set('123456', 'x'), 'x');
    assert.equal(m.get('123456'), undefined);
    m.set('12345', 'y');
    assert.equal(m.get('12345'), 'y');
  });
});
