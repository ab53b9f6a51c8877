import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { MAX_WATCH_TIMEOUT_MS, watchTimeoutMs } from './watch.js';

describe('watch timeoutSeconds (spec 4.2, reference behaviour)', () => {
  const half = () => 0.5;
  const accepted: [string, string | null, number][] = [
    ['a given value, in ms', '2', 2000],
    ['leading zeros', '007', 7000],
    ['absent: between one and two minimum request timeouts', null, 1800 * 1.5 * 1000],
    ['0 means the default', '0', 1800 * 1.5 * 1000],
    ['past what a timer holds: capped (node would fire at once, with a warning)', '2147484', MAX_WATCH_TIMEOUT_MS],
    ['the largest int64: capped', '9223372036854775807', MAX_WATCH_TIMEOUT_MS],
  ];
  for (const [name, raw, want] of accepted) {
    it(name, () => assert.equal(watchTimeoutMs(raw, 1800, half), want));
  }

  it('the cap is the largest timer node keeps', () => assert.equal(MAX_WATCH_TIMEOUT_MS, 2 ** 31 - 1));

  const rejected: [string, string][] = [
    ['negative', '-1'],
    ['a fraction', '1.5'],
    ['text', 'soon'],
    ['empty', ''],
    ['past int64 (the reference cannot parse it)', '9223372036854775808'],
    ['400 nines', '9'.repeat(400)],
  ];
  for (const [name, raw] of rejected) {
    it(`400 naming timeoutSeconds: ${name}`, () =>
      assert.throws(
        () => watchTimeoutMs(raw, 1800, half),
        (e: unknown) => e instanceof StatusError && e.code === 400 && e.message.startsWith('timeoutSeconds: Invalid value: ') && e.message.length < 300,
      ));
  }
});
