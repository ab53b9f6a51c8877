/**
 * Three API servers on a three-member etcd cluster (issue 23, "Scale-out on an existing distributed store"):
 * cross-server watches, and faults under 64-writer load (a killed API server, one and two etcd members
 * stopped, the members restarted), ending with every acknowledged write readable through every server.
 * The steps share one cluster and run in order; each asserts its own fault.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { etcdAvailable } from '../src/storage/etcd/etcd-process.js';
import { startEtcdCluster, type EtcdCluster } from '../src/storage/etcd/etcd-cluster-process.js';
import { startApiserver, stopAll, tempDir, until, type StartedServer } from './helpers/apiserver-process.js';
import { Endpoint, ResumingWatcher, Writers } from './helpers/cluster-load.js';

const NS = 'load';
const WRITERS = 64;

describe('three API servers on a three-member etcd cluster (issue 23 scale-out, reference behaviour)', {
  skip: !etcdAvailable() && 'etcd is not installed (Debian: apt-get install etcd-server)',
  timeout: 180_000,
}, () => {
  let etcd: EtcdCluster;
  let dataDir: string;
  const procs: (StartedServer | undefined)[] = [];
  const eps: (Endpoint | undefined)[] = [];
  const servers = () => eps;
  /** Watchers opened before any fault, one per server, that live through all of them. */
  const longWatchers: ResumingWatcher[] = [];
  let startRv = 0;
  /** The newest acknowledged write before quorum was lost. */
  let rvBeforeOutage = 0;
  /** Every acknowledged write of every step. */
  const acked = new Map<string, number>();

  const args = () => [
    `--data-dir=${dataDir}`,
    '--storage-backend=etcd',
    `--etcd-servers=${etcd.endpoints.join(',')}`,
    '--shutdown-delay-duration=0s',
  ];
  const startOne = async (i: number) => {
    const p = await startApiserver(args(), { processGroup: true });
    procs[i] = p;
    eps[i]?.close();
    eps[i] = new Endpoint(p.target);
  };
  const ep = (i: number) => eps[i] as Endpoint;
  const collect = (w: Writers) => w.acked.forEach((rv, name) => acked.set(name, rv));
  const allWriters: Writers[] = [];
  const load = (prefix: string, only?: number[]) => {
    const w = new Writers(servers, NS, prefix, WRITERS, only);
    allWriters.push(w);
    return w;
  };

  before(async () => {
    // Slack for a busy two-core machine: a missed heartbeat must not start an election.
    etcd = await startEtcdCluster({ heartbeatMs: 200, electionMs: 2000 });
    dataDir = tempDir('orch-cluster-');
    // The first server creates the CA, certificates and admin token; the others reuse them.
    await startOne(0);
    await Promise.all([startOne(1), startOne(2)]);
    const ns = await ep(0).call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    assert.equal(ns.status, 201, ns.text);
    const list = await ep(0).call('GET', `/api/v1/namespaces/${NS}/configmaps`);
    startRv = Number(list.json.metadata.resourceVersion);
    for (let i = 0; i < 3; i++) longWatchers.push(new ResumingWatcher(servers, i, NS, startRv));
  });

  after(async () => {
    // Writers of a failed step are still running: stop them, then take the servers away under them.
    const stopping = [...allWriters, ...longWatchers].map((w) => w.stop());
    stopAll();
    eps.forEach((e) => e?.close());
    await Promise.all(stopping);
    await etcd?.stop('kill');
  });

  it('one admin credential and CA work against every server (issue 23 topology)', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await ep(i).call('GET', `/api/v1/namespaces/${NS}`);
      assert.equal(res.status, 200, `server ${i}: ${res.text}`);
    }
    assert.equal(new Set(procs.map((p) => p?.target.caCertPem)).size, 1);
    assert.equal(new Set(procs.map((p) => p?.target.adminToken)).size, 1);
  });

  it('a watch on one server sees writes made through the others in resourceVersion order without gaps (issue 23)', async (t) => {
    const list = await ep(0).call('GET', `/api/v1/namespaces/${NS}/configmaps`);
    const from = Number(list.json.metadata.resourceVersion);
    const watcher = new ResumingWatcher(servers, 0, NS, from);
    const writers = load('cross', [1, 2]);
    await until('writes through servers 1 and 2', () => writers.acked.size >= 300, 60_000);
    await writers.stop();
    collect(writers);
    report(t, writers);
    await until('the watch on server 0 has every acknowledged write', () => watcher.missing(writers.acked, from).length === 0, 30_000)
      .catch(() => assert.fail(`missing on server 0: ${watcher.missing(writers.acked, from).slice(0, 10).join(' ')}`));
    await watcher.stop();
    assert.deepEqual(watcher.orderViolations, []);
    assert.equal(watcher.relists, 0, 'a healthy cluster needs no relist');
  });

  it('SIGKILL of one API server: writers that move to another server lose no acknowledged write (issue 23)', async (t) => {
    const writers = load('kill');
    await until('load on all three servers', () => [0, 1, 2].every((s) => writers.ackedSince(0, s) >= 30), 60_000);
    const victim = procs[2] as StartedServer;
    process.kill(-victim.child.pid!, 'SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    await until('writes go on through the other servers', () => writers.ackedSince(killedAt) >= 300, 60_000);
    await writers.stop();
    collect(writers);
    report(t, writers);
    // Every acknowledged write is there, at its resourceVersion, on both survivors.
    for (const s of [0, 1]) {
      const items = await listed(ep(s));
      const lost = [...writers.acked].filter(([name, rv]) => items.get(name) !== rv);
      assert.deepEqual(lost.slice(0, 10), [], `server ${s} lacks ${lost.length} acknowledged writes`);
    }
    // The killed server comes back on the same data dir and store.
    await startOne(2);
  });

  it('one etcd member stopped: requests go on through every server (issue 23)', async (t) => {
    const writers = load('one-down');
    await until('load on all three servers', () => [0, 1, 2].every((s) => writers.ackedSince(0, s) >= 20), 60_000);
    // Member 0 is the first endpoint, the one each server's connection starts on.
    await etcd.stopMember(0);
    const stoppedAt = Date.now();
    await until('every server acknowledges writes with one member down', () => [0, 1, 2].every((s) => writers.ackedSince(stoppedAt, s) >= 50), 60_000);
    await writers.stop();
    collect(writers);
    report(t, writers);
    const bad = writers.failures.filter((f) => f.at >= stoppedAt && !f.statusBody);
    assert.deepEqual(bad.slice(0, 5), [], 'every failure is a Status answer, not a broken connection or a hang');
    for (let s = 0; s < 3; s++) {
      await until(`server ${s} /readyz with a quorum`, async () => (await ep(s).call('GET', '/readyz')).status === 200, 20_000);
    }
  });

  it('two etcd members stopped: clear 5xx Status answers, /readyz names the reason, /livez stays ok (issue 23)', async (t) => {
    const writers = load('two-down');
    await until('load before the fault', () => writers.acked.size >= 50, 60_000);
    collect(writers);
    rvBeforeOutage = Math.max(...acked.values());
    await etcd.stopMember(1);
    await Promise.all([0, 1, 2].map(async (s) => {
      // A write and a consistent read both fail with a Status in bounded time.
      const [w, r] = await Promise.all([
        ep(s).call('POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `noquorum-${s}` } }, 60_000),
        ep(s).call('GET', `/api/v1/namespaces/${NS}/configmaps/noquorum-x`, undefined, 60_000),
      ]);
      for (const res of [w, r]) {
        assert.ok(res.status >= 500 && res.status <= 504, `server ${s}: ${res.status} ${res.text}`);
        assert.equal(res.json?.kind, 'Status', res.text);
        assert.equal(res.json.code, res.status);
        assert.match(res.json.message, /etcd|storage/i);
        assert.ok(res.ms < 30_000, `answered after ${Math.round(res.ms)} ms`);
      }
      const ready = await ep(s).call('GET', '/readyz', undefined, 10_000);
      assert.equal(ready.status, 500, ready.text);
      assert.match(ready.text, /\[-\]etcd failed/);
      const reason = await ep(s).call('GET', '/readyz/etcd', undefined, 10_000);
      assert.equal(reason.status, 500, reason.text);
      assert.match(reason.text, /quorum|unreachable|leader/i);
      const live = await ep(s).call('GET', '/livez', undefined, 10_000);
      assert.equal(live.status, 200, live.text);
    }));
    await writers.stop();
    collect(writers);
    report(t, writers);
    const hangs = writers.failures.filter((f) => f.status === 0);
    assert.deepEqual(hangs.slice(0, 5), [], 'no broken connection or hang while etcd has no quorum');
  });

  it('members restarted: servers recover without a restart and watches miss no acknowledged write (issue 23)', async (t) => {
    const writers = load('healed');
    await Promise.all([etcd.startMember(0), etcd.startMember(1)]);
    await etcd.waitHealthy(60_000);
    const healedAt = Date.now();
    await until('every server acknowledges writes again', () => [0, 1, 2].every((s) => writers.ackedSince(healedAt, s) >= 30), 90_000);
    await writers.stop();
    collect(writers);
    report(t, writers);
    for (let s = 0; s < 3; s++) {
      await until(`server ${s} /readyz`, async () => (await ep(s).call('GET', '/readyz')).status === 200, 30_000);
    }
    // A watch that re-connects after the outage from its last resourceVersion gets every later write.
    const rewatch = [0, 1, 2].map((s) => new ResumingWatcher(servers, s, NS, rvBeforeOutage));
    for (const [s, w] of rewatch.entries()) {
      await until(`re-watch on server ${s} caught up`, () => w.missing(acked, rvBeforeOutage).length === 0, 60_000)
        .catch(() => assert.fail(`re-watch on server ${s} missed ${w.missing(acked, rvBeforeOutage).slice(0, 5).join(' ')}`));
      await w.stop();
      assert.deepEqual(w.orderViolations.slice(0, 5), [], `re-watch on server ${s} saw events out of order`);
    }
    // The watchers opened before every fault learned every acknowledged write, as an event or by a relist.
    for (const [i, w] of longWatchers.entries()) {
      await until(`watcher ${i} caught up`, () => w.missing(acked, startRv).length === 0, 60_000)
        .catch(() => assert.fail(`watcher ${i} missed ${w.missing(acked, startRv).length}: ${w.missing(acked, startRv).slice(0, 5).join(' ')}`));
      assert.deepEqual(w.orderViolations.slice(0, 5), [], `watcher ${i} saw events out of order`);
      t.diagnostic(`watcher ${i}: ${w.seen.size} objects, ${w.reconnects} reconnects, ${w.relists} relists`);
    }
  });

  it('every acknowledged write is readable through every server after the faults heal (issue 23)', async () => {
    assert.ok(acked.size > 1000, `only ${acked.size} acknowledged writes`);
    for (let s = 0; s < 3; s++) {
      const items = await listed(ep(s));
      const lost = [...acked].filter(([name, rv]) => items.get(name) !== rv);
      assert.deepEqual(lost.slice(0, 10), [], `server ${s} lacks ${lost.length} acknowledged writes`);
    }
  });
});

/** What a step's load did, for the log of a slow or flaky run. */
function report(t: { diagnostic(m: string): void }, w: Writers): void {
  const byStatus = new Map<number, number>();
  for (const f of w.failures) byStatus.set(f.status, (byStatus.get(f.status) ?? 0) + 1);
  const failed = [...byStatus].map(([status, n]) => `${n} x ${status || 'socket error'}`).join(', ') || 'none';
  const sample = w.failures[0] ? ` (first: ${w.failures[0].message.slice(0, 160)})` : '';
  t.diagnostic(`${w.acked.size} acknowledged writes; failures: ${failed}${sample}`);
}

/** name -> resourceVersion of every ConfigMap in the namespace, by a consistent list. */
async function listed(ep: Endpoint): Promise<Map<string, number>> {
  const res = await ep.call('GET', `/api/v1/namespaces/${NS}/configmaps`);
  assert.equal(res.status, 200, res.text.slice(0, 500));
  return new Map(res.json.items.map((i: any) => [i.metadata.name, Number(i.metadata.resourceVersion)]));
}
