import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { nowTimestamp } from './object-meta.js';

describe('nowTimestamp', () => {
  it('spec 2.1: creationTimestamp is RFC 3339 in UTC at whole seconds, and follows the clock across seconds', () => {
    const now = mock.method(Date, 'now', () => Date.UTC(2026, 10, 22, 21, 5, 9, 999));
    try {
      assert.equal(nowTimestamp(), '2026-11-22T21:05:09Z');
      now.mock.mockImplementation(() => Date.UTC(2026, 10, 22, 21, 5, 9, 1));
      assert.equal(nowTimestamp(), '2026-11-22T21:05:09Z', 'the same second');
      now.mock.mockImplementation(() => Date.UTC(2026, 10, 22, 21, 5, 10, 0));
      assert.equal(nowTimestamp(), '2026-11-22T21:05:10Z', 'the next second');
      now.mock.mockImplementation(() => Date.UTC(2025, 0, 1, 0, 0, 0, 500));
      assert.equal(nowTimestamp(), '2025-01-01T00:00:00Z', 'a clock set back');
    } finally {
      now.mock.restore();
    }
    assert.match(nowTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
