import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseStat, parseVmRssKiB } from './proc-sample.js';
import { continueToken, pacer, shardOf, watchSpecs } from './soak-load.js';
import { classify, LatencyBook, leastSquares, p99Table, parseWatchLine, rssTrend, watchShortfall } from './soak-stats.js';

describe('soak benchmark helpers (issue 23, a soak as a benchmark)', () => {
  it('classifies answers: 2xx ok, 404/409 expected races, the rest errors', () => {
    const table: Array<[number, string]> = [[200, 'ok'], [201, 'ok'], [404, 'expected'], [409, 'expected'], [400, 'error'], [410, 'error'], [422, 'error'], [429, 'error'], [500, 'error'], [504, 'error']];
    for (const [status, want] of table) assert.equal(classify(status), want, String(status));
  });

  it('fits a least-squares line', () => {
    const table: Array<[Array<[number, number]>, number, number]> = [
      [[[0, 1], [1, 3], [2, 5]], 2, 1],
      [[[0, 5], [10, 5], [20, 5]], 0, 5],
      [[[0, 0], [1, 1], [2, 0], [3, 1]], 0.2, 0.2],
    ];
    for (const [pts, slope, intercept] of table) {
      const f = leastSquares(pts.map(([x, y]) => ({ x, y })));
      assert.ok(Math.abs(f.slope - slope) < 1e-9, `slope ${f.slope} for ${JSON.stringify(pts)}`);
      assert.ok(Math.abs(f.intercept - intercept) < 1e-9, `intercept ${f.intercept}`);
    }
    assert.ok(Number.isNaN(leastSquares([{ x: 1, y: 2 }]).slope), 'one point has no slope');
    assert.ok(Number.isNaN(leastSquares([{ x: 1, y: 2 }, { x: 1, y: 3 }]).slope), 'no spread in x has no slope');
  });

  it('gives the RSS slope per 10 minutes after the warm-up and a flat/rising verdict', () => {
    const series = (f: (t: number) => number) => Array.from({ length: 19 }, (_, i) => ({ t: i * 10, rssMiB: f(i * 10) }));
    const table: Array<[string, ReturnType<typeof series>, number, string, number]> = [
      // name, samples, warm-up s, verdict, slope MiB/10 min
      ['flat after a steep warm-up', series((t) => (t < 60 ? 100 + t : 200)), 60, 'flat', 0],
      ['rising 1 MiB per minute', series((t) => 200 + t / 60), 60, 'rising', 10],
      ['a slight rise under the threshold (2 MiB per 10 min)', series((t) => 200 + t / 600), 0, 'flat', 1],
      ['falling counts as flat', series((t) => 300 - t / 60), 0, 'flat', -10],
      ['too few samples after the warm-up (two)', series(() => 100), 170, 'too few samples', 0],
    ];
    for (const [name, samples, warmup, verdict, slope] of table) {
      const r = rssTrend(samples, warmup);
      assert.equal(r.verdict, verdict, name);
      assert.ok(Math.abs(r.slopeMiBPer10Min - slope) < 1e-6, `${name}: ${r.slopeMiBPer10Min}`);
    }
    assert.equal(rssTrend(series(() => 1000), 0).thresholdMiBPer10Min, 10, 'threshold is 1 % of a large mean');
  });

  it('keeps latencies per verb and minute (late answers in the last minute); errors count but have no latency', () => {
    const book = new LatencyBook(0);
    for (let i = 1; i <= 100; i++) book.record('get', 'ok', i, 1_000);
    book.record('get', 'expected', 500, 61_000);
    book.record('create', 'error', 9_999, 61_000);
    book.record('create', 'ok', 7, 125_000);
    assert.deepEqual(book.verbs(), ['create', 'get']);
    assert.deepEqual(book.minuteRows(), [
      { minute: 0, verb: 'get', n: 100, p50: 51, p99: 100 },
      { minute: 1, verb: 'get', n: 1, p50: 500, p99: 500 },
      { minute: 2, verb: 'create', n: 1, p50: 7, p99: 7 },
    ]);
    const totals = book.totals();
    assert.deepEqual(totals.map((t) => [t.verb, t.ok, t.expected, t.errors, t.max]), [['create', 1, 0, 1, 7], ['get', 100, 1, 0, 500]]);
    const capped = new LatencyBook(0, 1);
    capped.record('get', 'ok', 3, 185_000); // finished after a two-minute run ended
    assert.deepEqual(capped.minuteRows(), [{ minute: 1, verb: 'get', n: 1, p50: 3, p99: 3 }]);
    assert.deepEqual(p99Table(book.minuteRows(), book.verbs(), String), [
      { minute: '1', requests: '100', create: '-', get: '100' },
      { minute: '2', requests: '1', create: '-', get: '500' },
      { minute: '3', requests: '1', create: '7', get: '-' },
    ]);
  });

  it('reads type and resourceVersion of watch event lines', () => {
    const table: Array<[string, ReturnType<typeof parseWatchLine>]> = [
      ['{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"42"},"data":{"resourceVersion":"x"}}}', { type: 'ADDED', rv: 42 }],
      ['{"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":"7"}}}', { type: 'BOOKMARK', rv: 7 }],
      ['{"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410}}', { type: 'ERROR', rv: NaN, code: 410 }],
      ['{"object":{"metadata":{"resourceVersion":"9"}},"type":"DELETED"}', { type: 'DELETED', rv: 9 }],
      ['not json', undefined],
      ['{"kind":"Status"}', undefined],
    ];
    for (const [line, want] of table) assert.deepEqual(parseWatchLine(line), want, line);
  });

  it('counts missing and extra watch events, leaving relisted watches out', () => {
    const r = watchShortfall([
      { expected: 10, received: 10, excluded: false },
      { expected: 10, received: 7, excluded: false },
      { expected: 5, received: 6, excluded: false },
      { expected: 10, received: 0, excluded: true },
    ]);
    assert.deepEqual(r, { counted: 3, expected: 25, received: 23, missing: 3, extra: 1, watchersShort: 1 });
  });

  it('spreads watches over namespaces: a fifth watch whole namespaces, the rest one shard each', () => {
    const ns = ['a', 'b'];
    const { specs, shards } = watchSpecs(ns, 20); // 10 per namespace: 2 whole, 8 shards
    assert.equal(shards, 8);
    assert.equal(specs.filter((s) => s.namespace === 'a').length, 10);
    assert.deepEqual(specs.filter((s) => !s.selector).map((s) => s.key), ['a', 'b', 'a', 'b']);
    assert.deepEqual(specs.filter((s) => s.namespace === 'b' && s.selector).map((s) => s.key), Array.from({ length: 8 }, (_, i) => `b/${i}`));
    assert.equal(specs[4]!.selector, 'soak-shard=0');
    // Objects land in every shard a selector watches.
    const layout = { namespaces: ns, objects: 100, shards };
    assert.deepEqual(new Set(Array.from({ length: 100 }, (_, k) => shardOf(layout, k))).size, 8);
  });

  it('takes the continue token from the head of a list body', () => {
    const table: Array<[string, string]> = [
      ['{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5","continue":"eyJ2IjoxfQ"},"items":[{"metadata":{"continue":"no"}}]}', 'eyJ2IjoxfQ'],
      ['{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"data":{"continue":"no"}}]}', ''],
      [`{"items":[{"data":{"x":"${'y'.repeat(5000)}"}}],"metadata":{"continue":"late"}}`, 'late'],
    ];
    for (const [body, want] of table) assert.equal(continueToken(Buffer.from(body)), want);
  });

  it('paces a worker without bursting after it fell behind', async () => {
    const pace = pacer(200); // 5 ms apart
    const t0 = performance.now();
    for (let i = 0; i < 11; i++) await pace();
    assert.ok(performance.now() - t0 >= 45, 'ten intervals of 5 ms take at least 45 ms');
    assert.equal(await Promise.race([pacer(0)().then(() => 'now'), new Promise((r) => setTimeout(() => r('later'), 5))]), 'now', 'rate 0 is unpaced');
  });

  it('parses /proc status and stat lines', () => {
    assert.equal(parseVmRssKiB('Name:\tnode\nVmPeak:\t 900 kB\nVmRSS:\t  123456 kB\n'), 123456);
    assert.equal(parseVmRssKiB('Name:\tkthreadd\n'), undefined);
    assert.equal(parseVmRssKiB('VmRSS:\t 300 kB\nRssAnon:\t 200 kB\nRssFile:\t 100 kB\n', 'RssAnon'), 200);
    // Field 4 is the parent pid, 14 and 15 user and system ticks; the name may hold spaces and parentheses.
    const stat = '1234 (node (x) y) S 99 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 11 0 1 2 3';
    assert.deepEqual(parseStat(stat), { ppid: 99, ticks: 300 });
    assert.equal(parseStat('garbage'), undefined);
  });
});
