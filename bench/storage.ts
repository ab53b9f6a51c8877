/**
 * Storage benchmark: for each backend, creates/s with 1 and 64 writers, compare-and-swap updates/s with 64,
 * point gets/s, a 10,000-key list, and watch delivery latency (write issued -> event received).
 * `npm run bench -- storage [memory|sqlite|etcd ...]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../src/storage/index.js';
import { MemoryBackend } from '../src/storage/index.js';
import { SqliteBackend } from '../src/storage/sqlite/sqlite-backend.js';
import { fmt, percentile, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 3000);
const value = new TextEncoder().encode('v'.repeat(1024));

type Row = Record<string, string>;

async function measure(name: string, b: Backend): Promise<Row> {
  const c1 = await runFor(PHASE_MS, 1, (w, i) => b.create(`/bench/c1/${i}`, value));
  const c64 = await runFor(PHASE_MS, 64, (w, i) => b.create(`/bench/c64/${w}/${i}`, value));
  const revs = await Promise.all(Array.from({ length: 64 }, (_, w) => b.create(`/bench/cas/${w}`, value)));
  const mod = revs.map((kv) => kv.modRevision);
  const cas = await runFor(PHASE_MS, 64, async (w) => {
    const kv = await b.update(`/bench/cas/${w}`, value, mod[w]!);
    mod[w] = kv.modRevision;
  });
  const gets = await runFor(PHASE_MS, 64, (w, i) => b.get(`/bench/c64/${w}/${i % 50}`));
  for (let i = 0; i < 10_000; i += 500) {
    await Promise.all(Array.from({ length: 500 }, (_, j) => b.create(`/bench/list/${String(i + j).padStart(6, '0')}`, value)));
  }
  const listTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const r = await b.list('/bench/list/');
    if (r.items.length !== 10_000) throw new Error(`list returned ${r.items.length}`);
    listTimes.push(performance.now() - t);
  }
  const latency = await watchLatency(b);
  return {
    backend: name,
    'create/s (1)': fmt(c1.perSecond),
    'create/s (64)': fmt(c64.perSecond),
    'create p99 ms (64)': fmt(c64.p99, 1),
    'CAS update/s (64)': fmt(cas.perSecond),
    'get/s (64)': fmt(gets.perSecond),
    'list 10k ms': fmt(Math.min(...listTimes), 1),
    'watch p50 ms': fmt(latency.p50, 2),
    'watch p99 ms': fmt(latency.p99, 2),
  };
}

/** 2,000 writes from 8 writers; latency from issuing the write to receiving its event on a watch. */
async function watchLatency(b: Backend): Promise<{ p50: number; p99: number }> {
  const ac = new AbortController();
  const issued = new Map<string, number>();
  const latencies: number[] = [];
  const total = 2000;
  const w = b.watch('/bench/watch/', await b.currentRevision(), ac.signal);
  const consumer = (async () => {
    for await (const e of w) {
      if (e.type !== 'PUT') continue;
      latencies.push(performance.now() - (issued.get(e.kv.key) ?? NaN));
      if (latencies.length === total) break;
    }
  })();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < total) {
        const key = `/bench/watch/${next++}`;
        issued.set(key, performance.now());
        await b.create(key, value);
        await new Promise((r) => setTimeout(r, 1)); // a steady stream, not a burst
      }
    }),
  );
  await consumer;
  ac.abort();
  latencies.sort((x, y) => x - y);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

export async function main(args: string[]): Promise<void> {
  const wanted = args.length ? args : ['memory', 'sqlite', 'etcd'];
  const rows: Row[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-'));
  try {
    for (const name of wanted) {
      if (name === 'memory') rows.push(await measure('memory', new MemoryBackend({ compactIntervalMs: 0 })).finally(() => undefined));
      else if (name === 'sqlite') {
        const b = new SqliteBackend({ path: join(dir, 'bench.db'), history: { compactIntervalMs: 0 } });
        rows.push(await measure('sqlite (WAL, synchronous=FULL)', b));
        await b.close();
      } else if (name === 'etcd') {
        const etcd = await import('./storage-etcd.js');
        rows.push(...(await etcd.measureEtcd(measure)));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`storage benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${PHASE_MS} ms per phase`);
  console.table(rows);
}
