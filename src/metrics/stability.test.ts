import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkShowHiddenVersion, deprecationState, helpText, parseMinorVersion, type DeprecationState } from './stability.js';

const v = (s: string) => parseMinorVersion(s);

describe('metric stability rules (spec 3.4)', () => {
  const states: [string | undefined, string | undefined, DeprecationState][] = [
    [undefined, undefined, 'active'],
    ['1.32', undefined, 'active'], // announced for a later release: no effect yet
    ['1.31', undefined, 'deprecated'],
    ['1.30', undefined, 'deprecated'],
    ['1.29', undefined, 'deprecated'],
    ['1.28', undefined, 'hidden'], // current minus 3
    ['1.28', '1.30', 'deprecated'], // the flag brings back what this release hid
    ['1.27', undefined, 'hidden'],
    ['1.27', '1.30', 'hidden'], // hidden since an earlier release: the flag does not reach it
    ['0.9', undefined, 'hidden'],
  ];
  for (const [deprecated, flag, want] of states) {
    it(`spec 3.4: deprecated in ${deprecated ?? 'none'}, flag ${flag ?? 'unset'} -> ${want} (current 1.31)`, () => {
      assert.equal(deprecationState(deprecated, flag ? v(flag) : undefined), want);
    });
  }

  it('spec 3.4: the state is judged against the given current release', () => {
    assert.equal(deprecationState('1.30', undefined, { major: 1, minor: 33 }), 'hidden');
    assert.equal(deprecationState('1.30', v('1.32'), { major: 1, minor: 33 }), 'deprecated');
  });

  it('spec 3.4: help carries the class, and the deprecation release when deprecated', () => {
    assert.equal(helpText('Requests.', 'STABLE', 'active', undefined), '[STABLE] Requests.');
    assert.equal(helpText('Requests.', 'ALPHA', 'deprecated', '1.30'), '[ALPHA] (Deprecated from 1.30) Requests.');
  });

  const flags: [string | undefined, string | RegExp | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['1.30', '1.30'],
    ['1.31', /only the previous minor release "1\.30" is allowed/],
    ['1.29', /only the previous minor release "1\.30" is allowed/],
    ['2.30', /only the previous minor release "1\.30" is allowed/],
    ['1.30.0', /must have the form <major>\.<minor>/],
    ['v1.30', /must have the form <major>\.<minor>/],
    ['1', /must have the form <major>\.<minor>/],
    ['01.30', /must have the form <major>\.<minor>/],
  ];
  for (const [value, want] of flags) {
    it(`reference behaviour: --show-hidden-metrics-for-version=${JSON.stringify(value)} ${want instanceof RegExp ? 'is refused' : 'is accepted'}`, () => {
      if (want instanceof RegExp) {
        assert.throws(() => checkShowHiddenVersion(value), (e: Error) => e.message.startsWith('--show-hidden-metrics-for-version: ') && want.test(e.message));
      } else {
        const got = checkShowHiddenVersion(value);
        assert.deepEqual(got, want === undefined ? undefined : v(want));
      }
    });
  }

  it('spec 3.4: a malformed deprecation release on a metric is refused', () => {
    assert.throws(() => deprecationState('soon', undefined), /deprecatedVersion "soon"/);
  });
});
