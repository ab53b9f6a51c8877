import assert from 'node:assert/strict';
import { StatusError } from '../../src/errors/index.js';

/** The StatusError `p` rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}
