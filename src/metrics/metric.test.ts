import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, exponentialBuckets, Histogram } from './metric.js';
import { aggregateSnapshots, MetricsRegistry } from './registry.js';
import { compressUsername } from './apiserver.js';
import { dryRunLabel, requestLabels, requestScope } from './request-labels.js';

describe('metric families', () => {
  it('spec 3.4: a series is found by its label values and kept (the same object each time)', () => {
    const c = new Counter({ name: 'x_total', help: 'x', labelNames: ['a', 'code'] });
    const s = c.with('p', 200);
    s.inc();
    c.with('p', 200).inc(2);
    assert.equal(s, c.with('p', 200));
    assert.equal(s.value, 3);
    assert.deepEqual(s.labels, { a: 'p', code: '200' });
    assert.throws(() => c.with('p'), /2 label values expected/);
  });

  it('spec 3.4: a histogram counts each observation in its bucket and exposes cumulative buckets, sum and count', async () => {
    const h = new Histogram({ name: 'lat_seconds', help: 'l', labelNames: ['op'], buckets: [0.1, 1] });
    const s = h.with('get');
    for (const x of [0.05, 0.1, 0.5, 3]) s.observe(x);
    const snap = await h.get();
    const line = (metricName: string, le?: string) => snap.values.find((v) => v.metricName === metricName && v.labels.le === le)?.value;
    assert.deepEqual([line('lat_seconds_bucket', '0.1'), line('lat_seconds_bucket', '1'), line('lat_seconds_bucket', '+Inf')], [2, 3, 4]);
    assert.equal(line('lat_seconds_sum'), 3.65);
    assert.equal(line('lat_seconds_count'), 4);
    assert.throws(() => new Histogram({ name: 'b', help: 'b', buckets: [1, 1] }), /buckets must increase/);
  });

  it('reference behaviour: exponential buckets', () => {
    assert.deepEqual(exponentialBuckets(1024, 2, 4), [1024, 2048, 4096, 8192]);
  });
});

describe('metrics registry (spec 3.4)', () => {
  it('spec 3.4: the text format carries the class in HELP; a deprecated metric says so and is logged; a hidden one is absent', async () => {
    const logs: string[] = [];
    const r = new MetricsRegistry({ log: (m) => logs.push(m) });
    r.counter({ name: 'a_total', help: 'Things.', stability: 'STABLE' }).with().inc(5);
    r.gauge({ name: 'b_old', help: 'Old things.', stability: 'ALPHA', deprecatedVersion: '1.30' }).with().set(2);
    const hidden = r.counter({ name: 'c_gone_total', help: 'Gone.', stability: 'BETA', deprecatedVersion: '1.28' });
    hidden.with().inc(); // recording into a hidden metric is harmless
    const text = await r.text();
    assert.match(text, /^# HELP a_total \[STABLE\] Things\.\n# TYPE a_total counter\na_total 5$/m);
    assert.match(text, /^# HELP b_old \[ALPHA\] \(Deprecated from 1\.30\) Old things\.\n# TYPE b_old gauge\nb_old 2$/m);
    assert.doesNotMatch(text, /c_gone_total/);
    assert.deepEqual(r.hiddenNames(), ['c_gone_total']);
    assert.equal(logs.length, 1);
    assert.match(logs[0] as string, /b_old is deprecated from release 1\.30/);
  });

  it('spec 3.4: --show-hidden-metrics-for-version=1.30 exposes the metrics hidden in 1.31', async () => {
    const r = new MetricsRegistry({ showHidden: { major: 1, minor: 30 } });
    r.counter({ name: 'c_gone_total', help: 'Gone.', stability: 'BETA', deprecatedVersion: '1.28' }).with().inc();
    assert.match(await r.text(), /# HELP c_gone_total \[BETA\] \(Deprecated from 1\.28\) Gone\.\n# TYPE c_gone_total counter\nc_gone_total 1/);
  });

  it('spec 3.4: two registries keep separate counts', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.counter({ name: 'n_total', help: 'n', stability: 'ALPHA' }).with().inc(3);
    b.counter({ name: 'n_total', help: 'n', stability: 'ALPHA' }).with().inc(1);
    assert.match(await a.text(), /^n_total 3$/m);
    assert.match(await b.text(), /^n_total 1$/m);
  });

  it('spec 3.4: snapshots of several processes combine: counters and histograms summed, max gauges by maximum', async () => {
    const make = (n: number) => {
      const r = new MetricsRegistry();
      r.counter({ name: 'req_total', help: 'r', stability: 'STABLE', labelNames: ['code'] }).with(200).inc(n);
      r.gauge({ name: 'objects', help: 'o', stability: 'STABLE', aggregator: 'max', labelNames: ['resource'] }).with('pods').set(10 + n);
      r.histogram({ name: 'lat_seconds', help: 'l', stability: 'STABLE', buckets: [1] }).with().observe(n);
      return r.snapshot();
    };
    const text = await aggregateSnapshots([await make(1), await make(2)]);
    assert.match(text, /^req_total\{code="200"\} 3$/m);
    assert.match(text, /^objects\{resource="pods"\} 12$/m);
    assert.match(text, /^lat_seconds_bucket\{le="1"\} 1$/m);
    assert.match(text, /^lat_seconds_bucket\{le="\+Inf"\} 2$/m);
    assert.match(text, /^lat_seconds_count 2$/m);
  });
});

describe('request labels (reference behaviour)', () => {
  const base = { isResourceRequest: true, apiGroup: 'apps', apiVersion: 'v1', namespace: '', resource: 'deployments', subresource: '', name: '' };
  const rows: [string, Partial<typeof base> & { verb: string }, string | undefined, string, string][] = [
    ['get of one object', { verb: 'get', namespace: 'ns', name: 'd' }, undefined, 'GET', 'resource'],
    ['list in a namespace', { verb: 'list', namespace: 'ns' }, undefined, 'LIST', 'namespace'],
    ['list across namespaces', { verb: 'list' }, undefined, 'LIST', 'cluster'],
    ['watch', { verb: 'watch', namespace: 'ns' }, undefined, 'WATCH', 'namespace'],
    ['create (scope resource)', { verb: 'create', namespace: 'ns' }, 'application/json', 'POST', 'resource'],
    ['update', { verb: 'update', namespace: 'ns', name: 'd' }, 'application/json', 'PUT', 'resource'],
    ['merge patch', { verb: 'patch', namespace: 'ns', name: 'd' }, 'application/merge-patch+json', 'PATCH', 'resource'],
    ['server-side apply', { verb: 'patch', namespace: 'ns', name: 'd' }, 'application/apply-patch+yaml', 'APPLY', 'resource'],
    ['delete collection', { verb: 'deletecollection', namespace: 'ns' }, undefined, 'DELETE', 'namespace'],
    ['an unknown verb', { verb: 'frobnicate' }, undefined, 'other', 'cluster'],
  ];
  for (const [title, f, ct, verb, scope] of rows) {
    it(`reference behaviour: ${title} -> ${verb}, scope ${scope}`, () => {
      const l = requestLabels({ ...base, ...f }, new URLSearchParams(), ct);
      assert.deepEqual([l.verb, l.scope, l.group, l.version, l.resource, l.dryRun], [verb, scope, 'apps', 'v1', 'deployments', '']);
    });
  }
  it('reference behaviour: non-resource requests have the empty scope; dry run values', () => {
    assert.equal(requestScope({ ...base, isResourceRequest: false, verb: 'get' }), '');
    assert.equal(dryRunLabel(new URLSearchParams('dryRun=All')), 'All');
    assert.equal(dryRunLabel(new URLSearchParams('dryRun=Some')), 'invalid');
    assert.equal(dryRunLabel(new URLSearchParams('')), '');
  });
  it('reference behaviour: user names are reduced to a few classes', () => {
    assert.deepEqual(['admin', 'alice@example.com', 'alice', 'system:serviceaccount:orch-system:default'].map(compressUsername), ['admin', 'email_id', 'other', 'system:serviceaccount:orch-system:default']);
  });
});
