import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../errors/index.js';
import { listReadMode, type ListParams } from './list-watch.js';
import { checkWatchRequest, type WatchRequest } from './watch-stream.js';

const bad = (f: () => unknown, pattern: RegExp) =>
  assert.throws(f, (e: unknown) => e instanceof StatusError && e.code === 400 && pattern.test(e.message));

describe('list resourceVersion semantics (spec 4.5 list table)', () => {
  const rows: [string, ListParams, string][] = [
    ['rvm unset, no limit, rv unset: most recent', {}, 'latest'],
    ['rvm unset, no limit, rv "0": any', { resourceVersion: '0' }, 'latest'],
    ['rvm unset, no limit, rv non-zero: not older than', { resourceVersion: '7' }, 'notOlderThan:7'],
    ['rvm unset, limit, rv unset: most recent', { limit: 5 }, 'latest'],
    ['rvm unset, limit, rv "0": any', { limit: 5, resourceVersion: '0' }, 'latest'],
    ['rvm unset, limit, rv non-zero: exact', { limit: 5, resourceVersion: '7' }, 'exact:7'],
    ['rvm unset, continue, rv unset: exact as of the first page (token)', { limit: 5, continue: 'x' }, 'latest'],
    ['rvm unset, continue, rv "0": treated as exact from the token', { limit: 5, continue: 'x', resourceVersion: '0' }, 'latest'],
    ['Exact, rv non-zero: exact', { resourceVersionMatch: 'Exact', resourceVersion: '9' }, 'exact:9'],
    ['Exact with limit, rv non-zero: exact', { resourceVersionMatch: 'Exact', resourceVersion: '9', limit: 2 }, 'exact:9'],
    ['NotOlderThan, rv "0": any', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '0' }, 'latest'],
    ['NotOlderThan, rv non-zero: not older than', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '4' }, 'notOlderThan:4'],
    ['NotOlderThan with limit, rv non-zero: not older than', { resourceVersionMatch: 'NotOlderThan', resourceVersion: '4', limit: 3 }, 'notOlderThan:4'],
  ];
  for (const [name, params, want] of rows) {
    it(name, () => {
      const m = listReadMode(params);
      assert.equal(m.mode === 'latest' ? 'latest' : `${m.mode}:${m.revision}`, want);
    });
  }

  const invalid: [string, ListParams, RegExp][] = [
    ['continue with a non-zero resourceVersion', { continue: 'x', resourceVersion: '5' }, /not allowed when using continue/],
    ['Exact without resourceVersion', { resourceVersionMatch: 'Exact' }, /forbidden unless resourceVersion/],
    ['NotOlderThan without resourceVersion', { resourceVersionMatch: 'NotOlderThan' }, /forbidden unless resourceVersion/],
    ['Exact with "0"', { resourceVersionMatch: 'Exact', resourceVersion: '0' }, /"exact" is forbidden for resourceVersion "0"/],
    ['resourceVersionMatch with continue', { resourceVersionMatch: 'Exact', resourceVersion: '3', continue: 'x' }, /forbidden when continue/],
    ['an unknown resourceVersionMatch', { resourceVersionMatch: 'Sometimes', resourceVersion: '3' }, /Unsupported value/],
    ['a resourceVersion that is not a number', { resourceVersion: 'abc' }, /must be a non-negative integer/],
  ];
  for (const [name, params, pattern] of invalid) {
    it(`400: ${name}`, () => bad(() => listReadMode(params), pattern));
  }
});

describe('watch parameters (spec 4.2, 4.5)', () => {
  const base: WatchRequest = { allowWatchBookmarks: false, watchListEnabled: false, timeoutMs: 1000, bookmarkIntervalMs: 0, maxQueue: 10 };
  it('sendInitialEvents needs the WatchList feature gate', () => bad(() => checkWatchRequest({ ...base, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }), /WatchList feature gate/));
  it('sendInitialEvents needs resourceVersionMatch=NotOlderThan', () => bad(() => checkWatchRequest({ ...base, watchListEnabled: true, sendInitialEvents: true, allowWatchBookmarks: true }), /NotOlderThan/));
  it('sendInitialEvents needs allowWatchBookmarks', () => bad(() => checkWatchRequest({ ...base, watchListEnabled: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }), /allowWatchBookmarks/));
  it('resourceVersionMatch alone is not for watch', () => bad(() => checkWatchRequest({ ...base, resourceVersionMatch: 'NotOlderThan', resourceVersion: '1' }), /forbidden for watch/));
  it('a valid watch list request passes', () => checkWatchRequest({ ...base, watchListEnabled: true, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }));
});
