import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import {
  checkSupportedFields,
  escapeFieldValue,
  exactName,
  isEmpty,
  matchesFields,
  parseFieldSelector,
  requirements,
  type FieldRequirement,
} from './index.js';

const eq = (field: string, value: string): FieldRequirement => ({ field, op: '=', value });
const ne = (field: string, value: string): FieldRequirement => ({ field, op: '!=', value });

const expect400 = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(isStatusError(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.match(e.message, message);
    return true;
  });

describe('field selector grammar (spec 4.2)', () => {
  const valid: [string, FieldRequirement[]][] = [
    ['', []],
    [',', []],
    ['metadata.name=foo', [eq('metadata.name', 'foo')]],
    ['metadata.name==foo', [eq('metadata.name', 'foo')]],
    ['status.phase!=Running', [ne('status.phase', 'Running')]],
    ['spec.nodeName=', [eq('spec.nodeName', '')]],
    ['spec.nodeName!=', [ne('spec.nodeName', '')]],
    // Terms are sorted like the reference, so order does not matter.
    ['status.phase=Running,metadata.namespace=ns', [eq('metadata.namespace', 'ns'), eq('status.phase', 'Running')]],
    ['a=1,,b=2', [eq('a', '1'), eq('b', '2')]],
    ['a=x\\,y', [eq('a', 'x,y')]],
    ['a=x\\=y', [eq('a', 'x=y')]],
    ['a=x\\\\y', [eq('a', 'x\\y')]],
    ['a=x\\!y', [eq('a', 'x!y')]],
    ['a=x!y', [eq('a', 'x!y')]],
    ['a=\\,,b=\\\\', [eq('a', ','), eq('b', '\\')]],
    ['a!=b!c', [ne('a', 'b!c')]],
    ['a==b', [eq('a', 'b')]],
    ['=x', [eq('', 'x')]],
    ['a=é', [eq('a', 'é')]],
  ];
  for (const [input, want] of valid) {
    it(`spec 4.2: parses ${JSON.stringify(input)}`, () => {
      const sel = parseFieldSelector(input);
      assert.deepEqual(requirements(sel), want);
      assert.equal(isEmpty(sel), want.length === 0);
    });
  }

  const invalid: [string, RegExp][] = [
    ['metadata.name', /invalid selector: 'metadata.name'; can't understand 'metadata.name'/],
    ['a=1,b', /invalid selector: 'a=1,b'; can't understand 'b'/],
    ['a=b=c', /invalid field selector "a=b=c": unescaped character in value: '='/],
    ['a===b', /unescaped character in value: '='/],
    ['a=b\\q', /invalid escape sequence: \\q/],
    ['a=b\\', /invalid escape sequence: \\$/],
  ];
  for (const [input, message] of invalid) {
    it(`spec 4.2: rejects ${JSON.stringify(input)} with 400`, () => expect400(() => parseFieldSelector(input), message));
  }

  it('spec 4.2: escapeFieldValue round-trips through the parser', () => {
    for (const v of ['', 'plain', 'a,b', 'a=b', 'back\\slash', '\\,=\\', 'x!=y']) {
      assert.deepEqual(requirements(parseFieldSelector(`f=${escapeFieldValue(v)}`)), [eq('f', v)], v);
    }
  });
});

describe('field selector matching (spec 4.2)', () => {
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'ns', 'status.phase': 'Running', 'spec.nodeName': '' };
  const cases: [string, boolean][] = [
    ['', true],
    ['metadata.name=web', true],
    ['metadata.name=api', false],
    ['metadata.name!=api', true],
    ['metadata.name!=web', false],
    ['metadata.name=web,status.phase=Running', true],
    ['metadata.name=web,status.phase!=Running', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    // A field the record lacks compares as the empty string.
    ['missing=', true],
    ['missing!=', false],
    ['missing=x', false],
    ['missing!=x', true],
    ['constructor=', true],
  ];
  for (const [sel, want] of cases) {
    it(`spec 4.2: ${JSON.stringify(sel)} ${want ? 'matches' : 'does not match'}`, () => {
      assert.equal(matchesFields(parseFieldSelector(sel), fields), want);
    });
  }
});

describe('field selector helpers (spec 4.2)', () => {
  const supported = ['metadata.name', 'metadata.namespace', 'status.phase'] as const;

  it('spec 4.2: checkSupportedFields accepts supported fields', () => {
    checkSupportedFields(parseFieldSelector('metadata.name=a,status.phase!=b'), supported, 'pods');
    checkSupportedFields(parseFieldSelector(''), supported, 'pods');
  });

  for (const [sel, field] of [
    ['spec.bogus=a', 'spec.bogus'],
    ['metadata.name=a,zzz!=b', 'zzz'],
    ['metadata.name =a', 'metadata.name '],
  ] as const) {
    it(`spec 4.2: checkSupportedFields rejects ${JSON.stringify(sel)}`, () => {
      assert.throws(
        () => checkSupportedFields(parseFieldSelector(sel), supported, 'pods'),
        (e: unknown) => {
          assert.ok(isStatusError(e));
          assert.equal(e.code, 400);
          assert.equal(e.message, `field label not supported: ${field}`);
          assert.equal(e.details?.causes?.[0]?.field, 'fieldSelector');
          assert.match(e.details?.causes?.[0]?.message ?? '', /pods/);
          return true;
        },
      );
    });
  }

  const names: [string, string | undefined][] = [
    ['metadata.name=foo', 'foo'],
    ['metadata.name==foo', 'foo'],
    ['metadata.name=foo,metadata.namespace=ns', 'foo'],
    ['metadata.name!=foo', undefined],
    ['metadata.namespace=ns', undefined],
    ['metadata.name=a,metadata.name=b', undefined],
    ['', undefined],
  ];
  for (const [sel, want] of names) {
    it(`spec 4.2: exactName of ${JSON.stringify(sel)} is ${String(want)}`, () => {
      assert.equal(exactName(parseFieldSelector(sel)), want);
    });
  }
});

describe('field selector limits (issue 23: selectors cannot buy unbounded CPU)', () => {
  const rejects = (sel: string, message: RegExp) =>
    assert.throws(
      () => parseFieldSelector(sel),
      (e: unknown) => {
        assert.ok(isStatusError(e));
        assert.equal(e.code, 400);
        assert.match(e.message, message);
        assert.ok(e.message.length < 1024, `the message quotes a bounded part of the selector (${e.message.length} chars)`);
        return true;
      },
    );
  const terms = (n: number) => Array.from({ length: n }, (_, i) => `metadata.name!=n${i}`).join(',');
  it('1000 requirements parse; one more is a 400 naming the limit', () => {
    assert.equal(requirements(parseFieldSelector(terms(1000))).length, 1000);
    rejects(terms(1001), /too many requirements: the limit is 1000/);
  });
  it('errors about huge selectors and field names quote only their start', () => {
    rejects(`metadata.name=${'x'.repeat(50_000)},bad`, /can't understand 'bad'/);
    assert.throws(
      () => checkSupportedFields(parseFieldSelector(`${'f'.repeat(50_000)}=x`), ['metadata.name'], 'configmaps'),
      (e: unknown) => isStatusError(e) && e.code === 400 && e.message.length < 1024 && /field label not supported: f{100,}/.test(e.message),
    );
  });
});
