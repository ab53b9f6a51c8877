import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseFlags, type CliOptions } from '../src/cmd/apiserver-flags.js';
import { alive, failsToStart, startApiserver, stopAll, tempDir as makeTempDir, until, type StartedServer, type Target } from './helpers/apiserver-process.js';
import { client, watchEvents } from './helpers/client.js';

after(stopAll);
const tempDir = () => makeTempDir('orch-workers-');

/** The worker processes of a supervisor, with their slots (from /proc: parent pid and environment). */
function workersOf(supervisor: number): { pid: number; slot: number }[] {
  const out: { pid: number; slot: number }[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== supervisor) continue;
      const slot = /(?:^|\0)ORCH_WORKER_SLOT=(\d+)/.exec(readFileSync(`/proc/${d}/environ`, 'utf8'));
      if (slot) out.push({ pid: Number(d), slot: Number(slot[1]) });
    } catch {
      // the process went away while we looked
    }
  }
  return out.sort((a, b) => a.slot - b.slot);
}

/** How many established TCP connections on local port `port` process `pid` holds. */
function connectionsHeldBy(pid: number, port: number): number {
  const established = new Set<string>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      if (parseInt(cols[1]!.split(':')[1]!, 16) === port && cols[3] === '01') established.add(cols[9]!);
    }
  }
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m && established.has(m[1]!)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

/** A watch on its own connection: `opened` resolves with the response headers, `events` after `count` events. */
function openWatch(t: Target, path: string, count: number, timeoutMs = 10_000) {
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  return { opened: openedP, events: watchEvents(t, path, count, timeoutMs, opened) };
}

const CM = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('orch-apiserver --workers=N', () => {
  const dir = tempDir();
  let s: StartedServer;
  /** Every object the server acknowledged: name -> the data it was acknowledged with. */
  const acknowledged = new Map<string, Record<string, string>>();

  it('both workers serve on the one port: concurrent creates through 8 connections are readable from all of them, and a watch sees every one in order', async () => {
    s = await startApiserver(['--workers=2', `--data-dir=${dir}`]);
    await s.stderrLine(/all 2 workers serving/);
    const workers = workersOf(s.child.pid!);
    assert.deepEqual(workers.map((w) => w.slot), [0, 1], 'two worker processes, slots 0 and 1');

    const call = client(s.target);
    const rv = (await call('GET', CM)).json.metadata.resourceVersion as string;
    // Watches opened before the writes, each on its own connection; round-robin puts them on both workers.
    const watches = Array.from({ length: 4 }, () => openWatch(s.target, `${CM}?watch=1&resourceVersion=${rv}`, 40));
    await Promise.all(watches.map((w) => w.opened));
    for (const w of workers) assert.ok(connectionsHeldBy(w.pid, s.port) >= 1, `worker ${w.slot + 1} holds some of the watch connections`);

    const clients = Array.from({ length: 8 }, () => client(s.target));
    const names = Array.from({ length: 40 }, (_, i) => `cm-${i}`);
    const created = await Promise.all(names.map((n, i) => clients[i % 8]!('POST', CM, { body: configMap(n, { i: String(i) }) })));
    for (const r of created) assert.equal(r.status, 201, r.text);
    names.forEach((n, i) => acknowledged.set(n, { i: String(i) }));

    await Promise.all(
      clients.map(async (c) => {
        for (const n of names) assert.equal((await c('GET', `${CM}/${n}`)).status, 200, `${n} is readable from every connection`);
      }),
    );
    const revisions = created.map((r) => Number(r.json.metadata.resourceVersion));
    assert.equal(new Set(revisions).size, 40, 'every create has its own resourceVersion');
    for (const w of watches) {
      const events = await w.events;
      assert.ok(events.every((e) => e.type === 'ADDED'));
      const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b), 'in increasing resourceVersion order');
      assert.deepEqual(events.map((e) => e.object.metadata.name).sort(), [...names].sort(), 'each ConfigMap exactly once');
    }
  });

  it('optimistic concurrency holds across workers: 20 concurrent PUTs with one resourceVersion, exactly one succeeds', async () => {
    const call = client(s.target);
    const base = await call('POST', CM, { body: configMap('contended', { winner: 'none' }) });
    assert.equal(base.status, 201);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client(s.target)('PUT', `${CM}/contended`, { body: { ...base.json, data: { winner: String(i) } } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array<number>(19).fill(409)], JSON.stringify(statuses));
    acknowledged.set('contended', results.find((r) => r.status === 200)!.json.data);
  });

  it('a worker killed with SIGKILL is replaced in its slot, and the server keeps answering meanwhile', async () => {
    const [first, second] = workersOf(s.child.pid!);
    process.kill(first!.pid, 'SIGKILL');
    await s.stderrLine(new RegExp(`worker 1 \\(pid ${first!.pid}\\) was killed by SIGKILL; starting a replacement`));
    const call = client(s.target);
    for (let i = 0; i < 6; i++) assert.equal((await call('GET', `${CM}/cm-${i}`)).status, 200);
    await s.stderrLine(/worker 1 \(pid \d+\) replaced and serving/);
    const now = workersOf(s.child.pid!);
    assert.equal(now.length, 2);
    assert.notEqual(now[0]!.pid, first!.pid, 'slot 0 has a new process');
    assert.equal(now[1]!.pid, second!.pid, 'the other worker kept running');
    for (let i = 0; i < 6; i++) {
      const r = await call('POST', CM, { body: configMap(`after-kill-${i}`) });
      assert.equal(r.status, 201, r.text);
      acknowledged.set(`after-kill-${i}`, {});
    }
  });

  it('SIGTERM to the supervisor drains every worker and exits 0; a restart on the data dir has every acknowledged object', async () => {
    const workers = workersOf(s.child.pid!);
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
    for (const w of workers) assert.equal(alive(w.pid), false, `worker ${w.slot + 1} is gone`);

    const again = await startApiserver([`--data-dir=${dir}`]);
    try {
      const list = await client(again.target)('GET', CM);
      assert.equal(list.status, 200);
      const stored = new Map<string, Record<string, string>>(list.json.items.map((o: any) => [o.metadata.name, o.data ?? {}]));
      for (const [name, data] of acknowledged) assert.deepEqual(stored.get(name), data, `${name} survived`);
    } finally {
      again.child.kill('SIGTERM');
      assert.equal(await again.exited, 0);
    }
  });

  it('Ctrl-C in a terminal (SIGINT to the supervisor and every worker at once) shuts down cleanly with exit 0', async () => {
    const t = await startApiserver(['--workers=2', `--data-dir=${tempDir()}`], { processGroup: true });
    await t.stderrLine(/all 2 workers serving/);
    const workers = workersOf(t.child.pid!);
    process.kill(-t.child.pid!, 'SIGINT');
    assert.equal(await t.exited, 0);
    for (const w of workers) assert.equal(alive(w.pid), false);
    assert.deepEqual(t.stdout.filter((l) => /draining/.test(l)), ['orch-apiserver: SIGINT: draining and shutting down']);
    await assert.rejects(t.stderrLine(/while shutting down/, 0), 'no worker failed');
  });

  it('start-up errors name --workers (or report worker 1\'s error) and exit 1', async () => {
    const tokens = join(tempDir(), 'users.csv');
    writeFileSync(tokens, 'good-token,alice,uid-1\nbroken-line-only-two,bob\n');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const port = (busy.address() as AddressInfo).port;
      const [zero, word, memory, badTokens, portInUse] = await Promise.all([
        failsToStart(['--workers=0']),
        failsToStart(['--workers=abc']),
        failsToStart(['--workers=2', '--storage-backend=memory']),
        failsToStart(['--workers=2', '--secure-port=0', `--data-dir=${tempDir()}`, `--token-auth-file=${tokens}`]),
        failsToStart(['--workers=2', `--secure-port=${port}`, `--data-dir=${tempDir()}`]),
      ]);
      assert.match(zero, /--workers: invalid worker count "0"/);
      assert.match(word, /--workers: invalid worker count "abc"/);
      assert.match(memory, /--workers: the memory storage backend cannot be shared between worker processes; use sqlite or etcd/);
      assert.match(badTokens, /^orch-apiserver: .*users\.csv:2/m);
      assert.match(portInUse, /^orch-apiserver: .*EADDRINUSE/m);
    } finally {
      busy.close();
    }
  });

  it('--workers parses N and auto, defaults to 1, and rejects counts outside 1-64', () => {
    const workers = (args: string[]) => (parseFlags(args) as CliOptions).workers;
    assert.equal(workers([]), 1);
    assert.equal(workers(['--workers=3']), 3);
    assert.equal(workers(['--workers=auto']), Math.min(availableParallelism(), 64));
    assert.equal(workers(['--workers=1', '--storage-backend=memory']), 1);
    assert.equal('workers' in (parseFlags(['--workers=2']) as CliOptions).server, false, 'ServerOptions stay free of it');
    for (const bad of ['0', '-1', '1.5', '65', '', 'many']) assert.throws(() => parseFlags([`--workers=${bad}`]), /--workers: invalid worker count/);
  });
});
