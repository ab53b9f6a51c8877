import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addQuantity, comparableValues, compareQuantity, fitsMilli, formatQuantity, milliValue, parseQuantity, subtractQuantity, unitValue } from './quantity.js';

test('reference behaviour (quantities): parsing to exact nano-units with every suffix, rounding up below a nano', () => {
  const table: [unknown, bigint | undefined][] = [
    ['1', 1_000_000_000n],
    ['100m', 100_000_000n],
    ['1.5', 1_500_000_000n],
    ['.5', 500_000_000n],
    ['2k', 2_000_000_000_000n],
    ['1Ki', 1024n * 1_000_000_000n],
    ['1Gi', 1024n ** 3n * 1_000_000_000n],
    ['3n', 3n],
    ['2u', 2000n],
    ['1e3', 1000n * 1_000_000_000n],
    ['1E-3', 1_000_000n],
    ['0.0000000001', 1n],
    ['-1', -1_000_000_000n],
    [2, 2_000_000_000n],
    [0.25, 250_000_000n],
    ['1Zi', undefined],
    ['abc', undefined],
    ['', undefined],
    ['1e999', undefined],
    [null, undefined],
  ];
  for (const [text, want] of table) assert.equal(parseQuantity(text)?.nano, want, String(text));
});

test('reference behaviour (quantities): canonical text keeps the style of the quantity', () => {
  const table: [string, string][] = [
    ['1000m', '1'],
    ['0.5', '500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1024Mi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['512', '512'],
    ['0.5Ki', '512'],
    ['1e3', '1e3'],
    ['1500e0', '1500'],
    ['0', '0'],
    ['1.5Gi', '1536Mi'],
    ['100m', '100m'],
    ['-250m', '-250m'],
    ['3E', '3E'],
    ['5000E', '5000E'],
  ];
  for (const [text, want] of table) assert.equal(formatQuantity(parseQuantity(text)!), want, text);
});

test('reference behaviour (quantities): sums and differences keep the first operand\'s style', () => {
  const q = (s: string) => parseQuantity(s)!;
  assert.equal(formatQuantity(addQuantity(q('1'), q('500m'))), '1500m');
  assert.equal(formatQuantity(addQuantity(q('1Gi'), q('512Mi'))), '1536Mi');
  assert.equal(formatQuantity(addQuantity(q('1G'), q('1Gi'))), '2073741824');
  assert.equal(formatQuantity(subtractQuantity(q('2Gi'), q('1Gi'))), '1Gi');
  assert.equal(compareQuantity(q('1'), q('1000m')), 0);
  assert.equal(compareQuantity(q('1Ki'), q('1k')), 1);
  assert.equal(compareQuantity(q('999m'), q('1')), -1);
});

test('reference behaviour (quantities): values and milli-values round up; huge values compare in whole units', () => {
  const q = (s: string) => parseQuantity(s)!;
  assert.equal(unitValue(q('1500m')), 2n);
  assert.equal(unitValue(q('-1500m')), -2n);
  assert.equal(milliValue(q('1.0001')), 1001n);
  assert.equal(fitsMilli(q('9223372036854775')), true);
  assert.equal(fitsMilli(q('9223372036854776')), false);
  assert.deepEqual(comparableValues(q('1'), undefined, q('250m')), [1000n, 0n, 250n]);
  assert.deepEqual(comparableValues(q('1'), q('10E')), [1n, 10n ** 19n]);
});
