/**
 * Soak (issue 23): a long run of mixed load against one orch-apiserver to show that memory stays flat and
 * latency steady. Paced writers cycle a bounded working set of ConfigMaps (create, get + put, merge patch,
 * apply, delete), paced readers get and list (full and paginated), and watches stay open the whole time,
 * counting their events against the acknowledged writes. The server's RSS (with its workers) is sampled every
 * 10 s; at the end it prints the samples, the RSS slope after the warm-up, per-minute p99 per verb, totals and
 * errors, and writes everything as JSON.
 *
 *   npm run bench -- soak                        # 30 minutes; starts orch-apiserver (SQLite) on a temp dir
 *   npm run bench -- soak --minutes 3 --out soak.json
 *   npm run bench -- soak --url URL --token T [--ca FILE] [--insecure] [--pid PID]   # a running server
 * Load: --writers 16 --readers 4 --write-rate 300 --read-rate 200 (requests/s; 0 = unpaced) --objects 3000
 * --namespaces 8 --watchers 200; --workers N for the started server; --warmup M minutes (default min(10, minutes/3)).
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectAll, request, startChild, type Target } from './api.js';
import { childPidWith, sampleTree } from './proc-sample.js';
import { Load, watchSpecs, type Layout } from './soak-load.js';
import { LatencyBook, p99Table, rssTrend, watchShortfall } from './soak-stats.js';
import { WatchFleet, type WatchSpec } from './soak-watch.js';
import { fmt } from './stats.js';

const SAMPLE_MS = 10_000;
const CATCH_UP_MS = 60_000;

interface RssSample {
  t: number;
  rssMiB: number;
  anonMiB: number;
  processes: Array<{ pid: number; rssMiB: number; anonMiB: number }>;
  serverCpuPct: number;
  loadCpuPct: number;
  loadRssMiB: number;
}

const options = {
  minutes: { type: 'string', default: '30' },
  warmup: { type: 'string' },
  writers: { type: 'string', default: '16' },
  readers: { type: 'string', default: '4' },
  'write-rate': { type: 'string', default: '300' },
  'read-rate': { type: 'string', default: '200' },
  objects: { type: 'string', default: '3000' },
  namespaces: { type: 'string', default: '8' },
  watchers: { type: 'string', default: '200' },
  connections: { type: 'string', default: '4' },
  workers: { type: 'string' },
  out: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  pid: { type: 'string' },
} as const;

function num(values: Record<string, unknown>, name: string, min: number): number {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name}: expected a number ≥ ${min}, got "${values[name]}"`);
  return n;
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options });
  const minutes = num(values, 'minutes', 0.1);
  // The server keeps 5 minutes of watch history (DEFAULT_HISTORY_WINDOW_MS): its memory climbs until that
  // window is full, so the trend is fitted after it.
  const warmupMinutes = values.warmup !== undefined ? num(values, 'warmup', 0) : Math.min(10, minutes / 3);
  const cfg = {
    minutes,
    warmupMinutes,
    writers: num(values, 'writers', 1),
    readers: num(values, 'readers', 0),
    writeRate: num(values, 'write-rate', 0),
    readRate: num(values, 'read-rate', 0),
    objects: num(values, 'objects', 1),
    namespaces: num(values, 'namespaces', 1),
    watchers: num(values, 'watchers', 0),
    connections: num(values, 'connections', 1),
  };
  const out = values.out ?? join(tmpdir(), `orch-soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);

  let target: Target;
  let pid: number | undefined;
  let stopServer = async (): Promise<void> => undefined;
  let serverLabel: string;
  if (values.url) {
    if (!values.token) throw new Error('--token is required with --url');
    target = { url: values.url, token: values.token, ...(values.ca ? { ca: readFileSync(values.ca, 'utf8') } : {}), ...(values.insecure ? { insecure: true } : {}) };
    pid = values.pid !== undefined ? num(values, 'pid', 1) : undefined;
    serverLabel = `${values.url}${pid ? ` (pid ${pid})` : ' (no --pid: RSS not sampled)'}`;
  } else {
    const child = await startChild(values.workers ? [`--workers=${values.workers}`] : []);
    target = child.target;
    pid = childPidWith(`--data-dir=${child.dir}`);
    stopServer = child.stop;
    serverLabel = `orch-apiserver (SQLite, synchronous=FULL, ${values.workers ?? 1} worker(s)), pid ${pid ?? '?'}`;
  }

  try {
    const id = Date.now().toString(36);
    const namespaces = Array.from({ length: cfg.namespaces }, (_, i) => `soak-${id}-${i}`);
    const [admin] = await connectAll(target, 1);
    const startRv = new Map<string, number>();
    for (const ns of namespaces) {
      await request(admin!, target, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      startRv.set(ns, Number((await request(admin!, target, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion));
    }
    const { specs, shards } = watchSpecs(namespaces, cfg.watchers);
    const layout: Layout = { namespaces, objects: cfg.objects, shards };
    const fleet = new WatchFleet(target, specs, Math.max(1, Math.ceil(cfg.watchers / 25)));
    fleet.start(startRv);

    const t0 = performance.now();
    const book = new LatencyBook(t0, Math.ceil(minutes) - 1);
    const load = new Load(target, layout, book, cfg);
    const samples: RssSample[] = [];
    let lastCpu = { server: pid ? sampleTree(pid)?.cpuSeconds ?? 0 : 0, load: process.cpuUsage(), at: t0 };
    const sample = () => {
      const now = performance.now();
      const tree = pid ? sampleTree(pid) : undefined;
      const wall = (now - lastCpu.at) / 1000;
      const loadCpu = process.cpuUsage(lastCpu.load);
      samples.push({
        t: Math.round((now - t0) / 1000),
        rssMiB: tree?.rssMiB ?? NaN,
        anonMiB: tree?.anonMiB ?? NaN,
        processes: tree?.perProcess ?? [],
        serverCpuPct: tree && wall > 0 ? ((tree.cpuSeconds - lastCpu.server) / wall) * 100 : NaN,
        loadCpuPct: wall > 0 ? ((loadCpu.user + loadCpu.system) / 1e6 / wall) * 100 : NaN,
        loadRssMiB: process.memoryUsage.rss() / 2 ** 20,
      });
      lastCpu = { server: tree?.cpuSeconds ?? lastCpu.server, load: process.cpuUsage(), at: now };
    };
    sample();
    const sampler = setInterval(sample, SAMPLE_MS);
    const stopAt = setTimeout(() => load.stop(), minutes * 60_000);
    const onInt = () => (console.error('soak: interrupted, finishing early'), load.stop());
    process.once('SIGINT', onInt);
    console.error(`soak: ${fmt(minutes, 1)} min against ${serverLabel}; results also go to ${out}`);
    const progress = setInterval(() => console.error(`soak: ${fmt((performance.now() - t0) / 60_000, 1)} min, ${fmt(load.writes)} writes acknowledged, RSS ${fmt(samples.at(-1)?.rssMiB ?? NaN, 1)} MiB`), 60_000);
    await load.run();
    const loadSeconds = (performance.now() - t0) / 1000;
    clearTimeout(stopAt);
    clearInterval(progress);
    process.off('SIGINT', onInt);

    // Every counted watch should reach the number of acknowledged writes it covers.
    const expectedOf = (s: WatchSpec) => load.acked.get(s.key) ?? 0;
    const caughtUp = () => fleet.states.every((w) => w.relisted || w.received >= expectedOf(w.spec));
    const deadline = performance.now() + CATCH_UP_MS;
    while (!caughtUp() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const catchUpSeconds = (performance.now() - t0) / 1000 - loadSeconds;
    clearInterval(sampler);
    sample();
    fleet.close();
    // A server we did not start keeps running: leave it without the soak's objects.
    if (values.url) for (const ns of namespaces) await request(admin!, target, 'DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    admin!.close();

    const watch = {
      watchers: cfg.watchers,
      ...watchShortfall(fleet.states.map((w) => ({ expected: expectedOf(w.spec), received: w.received, excluded: w.relisted }))),
      relisted: fleet.states.filter((w) => w.relisted).length,
      reconnects: fleet.states.reduce((a, w) => a + w.reconnects, 0),
      outOfOrder: fleet.states.reduce((a, w) => a + w.outOfOrder, 0),
      errors: fleet.states.reduce((a, w) => a + w.errors, 0),
      catchUpSeconds,
      errorSamples: fleet.errorSamples,
    };
    const trend = rssTrend(samples, warmupMinutes * 60);
    const minuteRows = book.minuteRows();
    const totals = book.totals();
    const errors = [...load.errorSamples].map(([message, count]) => ({ count, message }));
    const header = `soak: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${serverLabel}; ${fmt(loadSeconds / 60, 1)} min; ${cfg.writers} writers at ${cfg.writeRate || 'unpaced'} req/s, ${cfg.readers} readers at ${cfg.readRate || 'unpaced'} req/s, ${fmt(cfg.objects)} ConfigMap names (1 KiB) in ${cfg.namespaces} namespaces, ${cfg.watchers} watches`;
    writeFileSync(out, JSON.stringify({ header, config: cfg, server: serverLabel, loadSeconds, rssSamples: samples, rssTrend: trend, minutes: minuteRows, totals, watch, writesAcknowledged: load.writes, errors }, null, 1));

    console.log(header);
    console.log('\nRSS samples (MiB, every 10 s; server CPU and load generator CPU in % of one core over the last interval):');
    console.table(rssRows(samples));
    console.log(`RSS after ${fmt(warmupMinutes, 1)} min warm-up: ${trend.samples} samples, mean ${fmt(trend.meanMiB, 1)} MiB, slope ${fmt(trend.slopeMiBPer10Min, 2)} MiB per 10 min (R² ${fmt(trend.r2, 2)}), threshold ${fmt(trend.thresholdMiBPer10Min, 1)}: ${trend.verdict.toUpperCase()}`);
    console.log('\np99 ms per minute:');
    console.table(p99Table(minuteRows, book.verbs(), (n) => fmt(n, 1)));
    console.log('\nTotals (latency over answered requests, ms):');
    console.table(totals.map((t) => ({ verb: t.verb, ok: fmt(t.ok), '404/409': fmt(t.expected), errors: fmt(t.errors), 'per s': fmt((t.ok + t.expected) / loadSeconds, 1), p50: fmt(t.p50, 1), p99: fmt(t.p99, 1), max: fmt(t.max, 1) })));
    const verdict = watch.missing === 0 && watch.outOfOrder === 0 ? 'no event missing' : 'EVENTS MISSING OR OUT OF ORDER';
    console.log(`\nWatches: ${watch.counted}/${watch.watchers} counted (${watch.relisted} relisted after 410), ${fmt(load.writes)} writes acknowledged, ${fmt(watch.expected)} events expected, ${fmt(watch.received)} received, ${fmt(watch.missing)} missing over ${watch.watchersShort} watches, ${fmt(watch.extra)} extra, ${watch.outOfOrder} out of order, ${watch.reconnects} reconnects, ${watch.errors} watch errors; caught up ${fmt(catchUpSeconds, 1)} s after the load stopped: ${verdict}`);
    const errorTotal = totals.reduce((a, t) => a + t.errors, 0);
    console.log(`Errors (non-2xx other than 404/409, or no answer): ${fmt(errorTotal)}`);
    for (const e of errors.sort((a, b) => b.count - a.count).slice(0, 20)) console.log(`  ${e.count} × ${e.message}`);
    for (const m of watch.errorSamples) console.log(`  watch: ${m}`);
    console.log(`JSON: ${out}`);
  } finally {
    await stopServer();
  }
}

/** Six samples per line: one line per minute keeps a 30-minute run readable. */
function rssRows(samples: readonly RssSample[]): Record<string, string>[] {
  const rows: Record<string, string>[] = [];
  for (let i = 0; i < samples.length; i += 6) {
    const part = samples.slice(i, i + 6);
    const avg = (f: (s: RssSample) => number) => {
      const xs = part.map(f).filter(Number.isFinite);
      return xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : NaN;
    };
    rows.push({
      from: `${part[0]!.t} s`,
      'RSS MiB': part.map((s) => fmt(s.rssMiB, 1)).join('  '),
      'of which anonymous (last)': fmt(part.at(-1)!.anonMiB, 1),
      processes: String(part.at(-1)!.processes.length),
      'server CPU %': fmt(avg((s) => s.serverCpuPct)),
      'load CPU %': fmt(avg((s) => s.loadCpuPct)),
      'load RSS MiB': fmt(part.at(-1)!.loadRssMiB),
    });
  }
  return rows;
}
