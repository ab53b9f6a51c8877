import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import { decodeContinue, encodeContinue, MAX_CONTINUE_CHARS } from './continue-token.js';

const PREFIX = '/registry/configmaps/default/';
const raw = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('continue tokens (spec 4.6; issue 23: bounded and strictly parsed)', () => {
  it('a token round-trips', () => {
    assert.deepEqual(decodeContinue(encodeContinue({ rv: 42, start: `${PREFIX}b` }), PREFIX), { rv: 42, start: `${PREFIX}b` });
  });
  const bad: [string, string, RegExp][] = [
    ['longer than the limit', 'A'.repeat(MAX_CONTINUE_CHARS + 1), new RegExp(`longer than ${MAX_CONTINUE_CHARS} characters`)],
    ['not base64 JSON', '!!!', /could not be decoded/],
    ['a revision past 2^53 (parsed as a float)', raw({ v: 1, rv: 1e400, start: `${PREFIX}a` }), /incorrect encoded start resourceVersion/],
    ['a fractional revision', raw({ v: 1, rv: 1.5, start: `${PREFIX}a` }), /incorrect encoded start resourceVersion/],
    ['a zero revision', raw({ v: 1, rv: 0, start: `${PREFIX}a` }), /incorrect encoded start resourceVersion/],
    ['a revision as a string', raw({ v: 1, rv: '5', start: `${PREFIX}a` }), /incorrect encoded start resourceVersion/],
    ['another collection', raw({ v: 1, rv: 5, start: '/registry/secrets/default/a' }), /belongs to another collection/],
  ];
  for (const [name, token, message] of bad) {
    it(`rejects ${name} with 400`, () => {
      assert.throws(
        () => decodeContinue(token, PREFIX),
        (e: unknown) => isStatusError(e) && e.code === 400 && message.test(e.message),
      );
    });
  }
});
