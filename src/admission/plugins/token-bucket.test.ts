import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap, TokenBucket } from './token-bucket.js';

test('reference behaviour (EventRateLimit token bucket): starts with burst tokens and refills at qps up to burst', () => {
  // [qps, burst, steps of [ms since start, expected tryTake]]
  const table: [string, number, number, [number, boolean][]][] = [
    ['burst 2 then empty', 1, 2, [[0, true], [0, true], [0, false]]],
    ['one token back after 1/qps seconds', 2, 1, [[0, true], [0, false], [499, false], [500, true], [500, false]]],
    ['refill never exceeds burst', 10, 2, [[0, true], [0, true], [60_000, true], [60_000, true], [60_000, false]]],
    ['a clock that goes back takes nothing away', 1, 1, [[1000, true], [500, false], [2000, true]]],
  ];
  for (const [what, qps, burst, steps] of table) {
    const b = new TokenBucket(qps, burst, 0);
    assert.deepEqual(steps.map(([t]) => b.tryTake(t)), steps.map(([, want]) => want), what);
  }
});

test('reference behaviour (EventRateLimit token bucket): the wait until the next token', () => {
  const b = new TokenBucket(4, 1, 0);
  assert.equal(b.secondsUntilToken(0), 0);
  assert.equal(b.tryTake(0), true);
  assert.equal(b.secondsUntilToken(0), 0.25);
  assert.equal(b.secondsUntilToken(125), 0.125);
  assert.equal(b.secondsUntilToken(250), 0);
});

test('reference behaviour (EventRateLimit cacheSize): the LRU keeps the most recently used keys', () => {
  const m = new LruMap<number>(2);
  let made = 0;
  const make = () => ++made;
  assert.equal(m.get('a', make), 1);
  assert.equal(m.get('b', make), 2);
  assert.equal(m.get('a', make), 1); // a is now the most recent
  assert.equal(m.get('c', make), 3); // b, the least recent, goes
  assert.deepEqual([m.has('a'), m.has('b'), m.has('c'), m.size], [true, false, true, 2]);
  assert.equal(m.get('b', make), 4, 'a forgotten key starts afresh');
});
