import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import {
  isEmpty,
  MAX_SELECTOR_REQUIREMENTS,
  MAX_SELECTOR_VALUES,
  labelKeyErrors,
  labelSelectorFromObject,
  labelValueErrors,
  matchesLabels,
  parseLabelSelector,
  type LabelRequirement,
} from './index.js';

const req = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({
  key,
  operator,
  values,
});

describe('label selector grammar (spec 4.2)', () => {
  const valid: [string, LabelRequirement[]][] = [
    ['', []],
    ['   ', []],
    ['app=web', [req('app', 'In', ['web'])]],
    ['app==web', [req('app', 'In', ['web'])]],
    ['app!=web', [req('app', 'NotIn', ['web'])]],
    ['app=', [req('app', 'In', [''])]],
    ['app in (a,b)', [req('app', 'In', ['a', 'b'])]],
    ['app in (b, a, b)', [req('app', 'In', ['a', 'b'])]],
    ['app notin (a,b)', [req('app', 'NotIn', ['a', 'b'])]],
    ['app in ()', [req('app', 'In', [''])]],
    ['app in (a,)', [req('app', 'In', ['', 'a'])]],
    ['app in (,a)', [req('app', 'In', ['', 'a'])]],
    ['app in (a,,b)', [req('app', 'In', ['', 'a', 'b'])]],
    ['app', [req('app', 'Exists')]],
    ['!app', [req('app', 'DoesNotExist')]],
    ['! app', [req('app', 'DoesNotExist')]],
    ['replicas>3', [req('replicas', 'Gt', ['3'])]],
    ['replicas<3', [req('replicas', 'Lt', ['3'])]],
    ['  tier = db ,  app  in(x) , !gone , env ', [
      req('app', 'In', ['x']),
      req('env', 'Exists'),
      req('gone', 'DoesNotExist'),
      req('tier', 'In', ['db']),
    ]],
    ['example.com/app=web', [req('example.com/app', 'In', ['web'])]],
    ['in=notin', [req('in', 'In', ['notin'])]],
    ['k in (in, notin)', [req('k', 'In', ['in', 'notin'])]],
    [`a=${'v'.repeat(63)}`, [req('a', 'In', ['v'.repeat(63)])]],
    [`${'p'.repeat(253)}/${'n'.repeat(63)}`, [req(`${'p'.repeat(253)}/${'n'.repeat(63)}`, 'Exists')]],
    ['A_b.c-D=x_Y.z-1', [req('A_b.c-D', 'In', ['x_Y.z-1'])]],
  ];
  for (const [input, want] of valid) {
    it(`spec 4.2: parses ${JSON.stringify(input)}`, () => {
      assert.deepEqual(parseLabelSelector(input).requirements, want);
    });
  }

  const invalid: [string, RegExp][] = [
    ['app web', /found 'web', expected: in, notin, =, ==, !=, gt, lt/],
    ['=web', /found '=', expected: !, identifier, or 'end of string'/],
    ['app=web,', /found '', expected: identifier after ','/],
    ['app=web,,x', /found ',', expected: identifier after ','/],
    ['app=(web)', /unable to parse requirement: found '\(', expected: identifier/],
    ['app in a', /unable to parse requirement: found 'a' expected: '\('/],
    ['app in (a', /unable to parse requirement: found '', expected: ',' or '\)'/],
    ['app in (a b)', /found 'b', expected: ',' or '\)'/],
    ['app in (a,,)', /found '\)', expected: ',', or identifier/],
    ['app in )', /found '\)' expected: '\('/],
    ['app in (=)', /found '=', expected: ',', '\)' or identifier/],
    ['!app=web', /found '=', expected: ',' or 'end of string'/],
    ['!', /unable to parse requirement: found '', expected: identifier/],
    ['!!app', /unable to parse requirement: found '!', expected: identifier/],
    ['app=a=b', /found '=', expected: ',' or 'end of string'/],
    ['-app=x', /unable to parse requirement: key: Invalid value: "-app": name part must consist of/],
    ['a/b/c', /a qualified name must consist of/],
    ['/app', /prefix part must be non-empty/],
    ['Example.com/app', /prefix part a lowercase RFC 1123 subdomain/],
    [`${'n'.repeat(64)}`, /name part must be no more than 63 characters/],
    [`${'p'.repeat(254)}/n`, /prefix part must be no more than 253 characters/],
    ['app=-web', /values\[0\]: Invalid value: "-web": a valid label must be an empty string/],
    [`app=${'v'.repeat(64)}`, /must be no more than 63 characters/],
    ['app in (ok, bad!)', /found '!', expected: ',' or '\)'/],
    ['app in (ok, _bad)', /values\[1\]: Invalid value: "_bad"/],
    ['replicas>x', /the value must be an integer/],
    ['replicas>99999999999999999999', /the value must be an integer/],
  ];
  for (const [input, message] of invalid) {
    it(`spec 4.2: rejects ${JSON.stringify(input)} with 400`, () => {
      assert.throws(
        () => parseLabelSelector(input),
        (e: unknown) => {
          assert.ok(isStatusError(e));
          assert.equal(e.code, 400);
          assert.equal(e.reason, 'BadRequest');
          assert.ok(e.message.includes(JSON.stringify(input)), `message quotes the selector: ${e.message}`);
          assert.match(e.message, message);
          return true;
        },
      );
    });
  }
});

describe('label selector matching (spec 4.2)', () => {
  const labels = { app: 'web', tier: 'db', empty: '', n: '5' };
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', labels, true],
    ['', undefined, true],
    ['app=web', labels, true],
    ['app=api', labels, false],
    ['app==web', labels, true],
    ['app!=api', labels, true],
    ['app!=web', labels, false],
    ['missing!=x', labels, true],
    ['missing=x', labels, false],
    ['missing=', labels, false],
    ['empty=', labels, true],
    ['app in (api,web)', labels, true],
    ['app in (api)', labels, false],
    ['missing in (a)', labels, false],
    ['app notin (api)', labels, true],
    ['app notin (web)', labels, false],
    ['missing notin (a)', labels, true],
    ['app', labels, true],
    ['empty', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['app=web,tier=db', labels, true],
    ['app=web,tier=cache', labels, false],
    ['n>4', labels, true],
    ['n>5', labels, false],
    ['n<6', labels, true],
    ['app>1', labels, false],
    ['missing<1', labels, false],
    ['app', undefined, false],
    ['!app', undefined, true],
  ];
  for (const [sel, ls, want] of cases) {
    it(`spec 4.2: ${JSON.stringify(sel)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(ls)}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(sel), ls), want);
    });
  }

  it('spec 4.2: a label named like an Object.prototype member is not present by default', () => {
    assert.equal(matchesLabels(parseLabelSelector('constructor'), {}), false);
    assert.equal(matchesLabels(parseLabelSelector('!constructor'), {}), true);
  });
});

describe('structured label selector (spec 4.2)', () => {
  it('spec 4.2: matchLabels and matchExpressions combine into sorted requirements', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { tier: 'db' },
      matchExpressions: [
        { key: 'app', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'team', operator: 'Exists' },
        { key: 'gone', operator: 'DoesNotExist', values: [] },
      ],
    });
    assert.deepEqual(sel.requirements, [
      req('app', 'In', ['a', 'b']),
      req('env', 'NotIn', ['prod']),
      req('gone', 'DoesNotExist'),
      req('team', 'Exists'),
      req('tier', 'In', ['db']),
    ]);
    assert.equal(matchesLabels(sel, { tier: 'db', app: 'a', team: 'x' }), true);
    assert.equal(matchesLabels(sel, { tier: 'db', app: 'a', team: 'x', gone: '' }), false);
    assert.equal(matchesLabels(sel, { tier: 'db', app: 'a', team: 'x', env: 'prod' }), false);
  });

  it('spec 4.2: {} selects everything, null and undefined select nothing', () => {
    assert.equal(isEmpty(labelSelectorFromObject({})), true);
    assert.equal(matchesLabels(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }), {}), true);
    for (const none of [null, undefined]) {
      const sel = labelSelectorFromObject(none);
      assert.equal(isEmpty(sel), false);
      assert.equal(matchesLabels(sel, {}), false);
      assert.equal(matchesLabels(sel, { app: 'web' }), false);
    }
  });

  const invalid: [Parameters<typeof labelSelectorFromObject>[0], string, RegExp][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, 'spec.selector.matchExpressions[0].operator', /Unsupported value: "Gt"/],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, 'spec.selector.matchExpressions[0].values', /can't be empty/],
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, 'spec.selector.matchExpressions[0].values', /can't be empty/],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'spec.selector.matchExpressions[0].values', /must be empty/],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['-x'] }] }, 'spec.selector.matchExpressions[0].values[0]', /a valid label/],
    [{ matchExpressions: [{ key: 'a b', operator: 'Exists' }] }, 'spec.selector.matchExpressions[0].key', /name part/],
    [{ matchLabels: { 'bad key': 'x' } }, 'spec.selector.matchLabels', /name part/],
    [{ matchLabels: { app: 'bad value' } }, 'spec.selector.matchLabels[app]', /a valid label/],
  ];
  for (const [obj, field, message] of invalid) {
    it(`spec 4.2: rejects ${JSON.stringify(obj)} naming ${field}`, () => {
      assert.throws(
        () => labelSelectorFromObject(obj, 'spec.selector'),
        (e: unknown) => {
          assert.ok(isStatusError(e));
          assert.equal(e.code, 400);
          assert.match(e.message, message);
          assert.ok(e.details?.causes?.some((c) => c.field === field), JSON.stringify(e.details));
          return true;
        },
      );
    });
  }
});

describe('label key and value validation (spec 4.2)', () => {
  it('spec 4.2: valid keys and values report no problems', () => {
    for (const k of ['a', 'A9', 'a.b-c_d', 'example.com/a', 'a.b.c/x']) assert.deepEqual(labelKeyErrors(k), [], k);
    for (const v of ['', 'a', 'a.b-c_D9']) assert.deepEqual(labelValueErrors(v), [], v);
  });
  it('spec 4.2: invalid keys and values report problems', () => {
    for (const k of ['', '_a', 'a_', 'a/', '/a', 'A.com/a', 'a/b/c', 'a b']) assert.notDeepEqual(labelKeyErrors(k), [], k);
    for (const v of ['_', 'a-', 'a b', 'x'.repeat(64)]) assert.notDeepEqual(labelValueErrors(v), [], v);
  });
});

describe('label selector limits (issue 23: selectors cannot buy unbounded CPU)', () => {
  const rejects = (sel: string, message: RegExp) =>
    assert.throws(
      () => parseLabelSelector(sel),
      (e: unknown) => {
        assert.ok(isStatusError(e));
        assert.equal(e.code, 400);
        assert.match(e.message, message);
        assert.ok(e.message.length < 1024, `the message quotes a bounded part of the selector (${e.message.length} chars)`);
        return true;
      },
    );
  it(`${MAX_SELECTOR_REQUIREMENTS} requirements parse; one more is a 400 naming the limit`, () => {
    const reqs = (n: number) => Array.from({ length: n }, (_, i) => `k${i}=v`).join(',');
    assert.equal(parseLabelSelector(reqs(MAX_SELECTOR_REQUIREMENTS)).requirements.length, MAX_SELECTOR_REQUIREMENTS);
    rejects(reqs(MAX_SELECTOR_REQUIREMENTS + 1), new RegExp(`too many requirements: the limit is ${MAX_SELECTOR_REQUIREMENTS}`));
  });
  it(`${MAX_SELECTOR_VALUES} values in all parse; one more is a 400 naming the limit`, () => {
    const set = (n: number) => `k in (${Array.from({ length: n }, (_, i) => `v${i}`).join(',')})`;
    assert.equal(parseLabelSelector(set(MAX_SELECTOR_VALUES)).requirements[0]?.values.length, MAX_SELECTOR_VALUES);
    rejects(`${set(MAX_SELECTOR_VALUES)},other=x`, new RegExp(`too many values: the limit is ${MAX_SELECTOR_VALUES}`));
  });
  it('a large in/notin set matches exactly its members (values are searched, not scanned)', () => {
    const values = Array.from({ length: 5000 }, (_, i) => `v${i}`);
    const sel = parseLabelSelector(`k in (${values.join(',')})`);
    const notSel = parseLabelSelector(`k notin (${values.join(',')})`);
    for (const v of ['v0', 'v4999', 'v2500', 'v123']) {
      assert.equal(matchesLabels(sel, { k: v }), true, v);
      assert.equal(matchesLabels(notSel, { k: v }), false, v);
    }
    for (const v of ['v5000', 'v', 'w1', '']) {
      assert.equal(matchesLabels(sel, { k: v }), false, v);
      assert.equal(matchesLabels(notSel, { k: v }), true, v);
    }
  });
  it('a syntax error in a huge selector quotes only its start', () => {
    rejects(`${'a'.repeat(100_000)} in (x`, /invalid label selector "a{100,}".*\(\d+ more characters\)/);
  });
});
