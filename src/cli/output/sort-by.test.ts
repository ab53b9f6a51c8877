import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../errors.js';
import { sortTables } from '../commands/get-sort.js';
import type { Table } from '../../client/index.js';
import { bytesLess, goSort, keyLess, parseQuantity, SortBy, SortFieldNotFound } from './sort-by.js';

const obj = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, ...extra });
const names = (xs: { metadata: { name: string } }[]) => xs.map((x) => x.metadata.name);

describe('reference behaviour: get --sort-by expressions', () => {
  for (const [given, field] of [
    ['.metadata.name', '{.metadata.name}'],
    ['metadata.name', '{.metadata.name}'],
    ['{.metadata.name}', '{.metadata.name}'],
    ['{metadata.name}', '{.metadata.name}'],
    ['.spec.containers[0].image', '{.spec.containers[0].image}'],
  ]) {
    it(`accepts ${given} as ${field}`, () => assert.equal(SortBy.parse(given!).field, field));
  }
  for (const bad of ['{.metadata.name', '{.a}{.b}', '.metadata.name}', '{}', '.a[']) {
    it(`rejects ${bad} with a usage error naming the flag`, () => {
      assert.throws(() => SortBy.parse(bad), (e: unknown) => e instanceof UsageError && e.message.startsWith('--sort-by: '));
    });
  }
});

describe('reference behaviour: get --sort-by value order', () => {
  const F = '{.x}';
  const table: [unknown, unknown, boolean][] = [
    [1, 2, true],
    [2, 1, false],
    [1.5, 2.5, true],
    ['b', 'a', false],
    ['c10', 'c9', true], // byte order, not natural order (the 1.31 client)
    ['Z', 'a', true],
    ['10', '9', false], // both quantities: by value
    ['100m', '1', true],
    ['1Ki', '1k', false],
    ['2e3', '1Mi', true],
    ['1Gi', 'x', true], // one is not a quantity: bytes
    ['2026-01-02T00:00:00Z', '2026-01-10T00:00:00Z', true],
    [null, 'a', true],
    ['a', null, false],
    [null, null, false],
  ];
  for (const [a, b, less] of table) {
    it(`${JSON.stringify(a)} < ${JSON.stringify(b)} is ${less}`, () => assert.equal(keyLess(a, b, F), less));
  }
  for (const [a, b] of [
    [true, false],
    [{ a: 1 }, { b: 1 }],
    [[1], [2]],
    [1, 'a'],
    [1, 1.5],
  ]) {
    it(`${JSON.stringify(a)} against ${JSON.stringify(b)} is an error naming the flag`, () => {
      assert.throws(() => keyLess(a, b, F), /^Error: --sort-by: the values at \{\.x\} cannot be sorted/);
    });
  }
  it('quantities parse as the reference parses them', () => {
    const cases: [string, number | undefined][] = [['1', 1], ['1.5', 1.5], ['+2k', 2000], ['-1m', -0.001], ['.5Gi', 2 ** 29], ['1e3', 1000], ['1E', 1e18], ['3E-2', 0.03], ['1e', undefined], ['abc', undefined], ['1 Gi', undefined], ['1.2.3', undefined], ['', undefined], ['Ki', undefined]];
    for (const [text, value] of cases) assert.equal(parseQuantity(text), value, text);
  });
  it('strings compare by their UTF-8 bytes', () => {
    assert.equal(bytesLess('\uffff', '\u{1f600}'), true); // UTF-16 order would say otherwise
    assert.equal(bytesLess('ab', 'abc'), true);
  });
});

describe('reference behaviour: get --sort-by list order', () => {
  const s = SortBy.parse('.metadata.labels.rank');
  const withRank = (name: string, rank?: string) => obj(name, rank === undefined ? {} : { metadata: { name, labels: { rank } } });
  it('objects without the field come first, in reverse order for short lists (Go insertion sort)', () => {
    const items = [withRank('a'), withRank('b', '10'), withRank('c'), withRank('d', '9'), withRank('e')];
    assert.deepEqual(names(s.sort(items)), ['e', 'c', 'a', 'd', 'b']);
  });
  it('equal keys keep their order', () => {
    assert.deepEqual(names(s.sort([withRank('x', '1'), withRank('y', '1'), withRank('z', '0')])), ['z', 'x', 'y']);
  });
  it('long lists are ordered by key (stable beyond the insertion-sort size)', () => {
    const items = Array.from({ length: 40 }, (_, i) => withRank(`o${i}`, String((i * 7) % 13)));
    const sorted = s.sort(items).map((o) => Number((o.metadata as unknown as { labels: { rank: string } }).labels.rank));
    assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));
  });
  it('goSort with up to 12 items is exactly an insertion sort', () => {
    const keys = [3, 1, 2, 1, 0];
    const order = goSort(keys.map((k, i) => ({ k, i })), (a, b) => a.k < b.k).map((x) => x.i);
    assert.deepEqual(order, [4, 1, 3, 2, 0]);
  });
  it('a field no item has is SortFieldNotFound; an empty list is not checked', () => {
    assert.throws(() => SortBy.parse('.nope').sort([obj('a'), obj('b')]), SortFieldNotFound);
    assert.deepEqual(SortBy.parse('.nope').sort([]), []);
  });
});

describe('reference behaviour: get --sort-by over server tables', () => {
  const row = (name: string, rank?: string) => ({ cells: [name], object: { kind: 'Thing', metadata: { name, ...(rank ? { labels: { rank } } : {}) } } });
  const tbl = (...rows: Table['rows']): Table => ({ kind: 'Table', columnDefinitions: [{ name: 'Name', type: 'string', format: 'name' }], rows, metadata: { resourceVersion: '5' } });
  const rowNames = (t: Table) => t.rows.map((r) => r.cells[0]);
  const byName = SortBy.parse('.metadata.name');
  it("one collection's rows are sorted by their objects", () => {
    const out = sortTables([{ of: 'cm', table: tbl(row('b'), row('c10'), row('c9'), row('a')), named: false }], byName, { watching: false });
    assert.deepEqual(out.map((t) => rowNames(t.table)), [['a', 'b', 'c10', 'c9']]);
  });
  it('several tables are themselves sorted: a field no table has is an error', () => {
    const pieces = [
      { of: 'cm', table: tbl(row('b'), row('a')), named: false },
      { of: 'secret', table: tbl(row('z')), named: false },
    ];
    assert.throws(() => sortTables(pieces, byName, { watching: false }), SortFieldNotFound);
    assert.throws(() => sortTables([{ of: 'cm', table: tbl(row('b'), row('a')), named: true }], byName, { watching: false }), SortFieldNotFound);
  });
  it('several tables sorted by a field they share keep their order, rows sorted within each', () => {
    const pieces = [
      { of: 'secret', table: tbl(row('z'), row('y')), named: false },
      { of: 'cm', table: tbl(row('b'), row('a')), named: false },
    ];
    const out = sortTables(pieces, SortBy.parse('.kind'), { watching: false });
    assert.deepEqual(out.map((t) => [t.of, rowNames(t.table)]), [['secret', ['z', 'y']], ['cm', ['b', 'a']]]);
    const named = sortTables([{ of: 'cm', table: tbl(row('c9'), row('b'), row('c10')), named: true }], SortBy.parse('.kind'), { watching: false });
    assert.deepEqual(named.map((t) => rowNames(t.table)), [['c9', 'b', 'c10']]);
  });
  it('a table whose rows all lack the field is dropped, except while watching; one row is never checked', () => {
    const nope = SortBy.parse('.nope');
    assert.deepEqual(sortTables([{ of: 'cm', table: tbl(row('a'), row('b')), named: false }], nope, { watching: false }).map((t) => t.table.rows.length), [0]);
    assert.throws(() => sortTables([{ of: 'cm', table: tbl(row('a'), row('b')), named: false }], nope, { watching: true }), SortFieldNotFound);
    assert.deepEqual(sortTables([{ of: 'cm', table: tbl(row('a')), named: false }], nope, { watching: false }).map((t) => rowNames(t.table)), [['a']]);
  });
});
