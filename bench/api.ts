/**
 * API benchmark: 64 concurrent clients over HTTP/2 create, get, update (get + put) and merge-patch 1 KiB
 * ConfigMaps, and create Deployments, for a fixed time each; it can be pointed at any server of this API family.
 * With both create phases selected they run interleaved (halves A, B, B, A), so their ratio is not skewed by
 * the order (a later phase meets a larger store).
 *
 *   npm run bench -- api                          # starts orch-apiserver (SQLite, durable) as a child process
 *   npm run bench -- api --url URL --token T [--ca FILE] [--insecure]
 *   npm run bench -- api --ops get,update          # only these phases (create,create-deployment,get,update,merge-patch)
 *   npm run bench -- api --workers=2               # the child runs with --workers=2
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { startServer } from '../src/index.js';
import { H2Client } from './h2-client.js';
import { fmt, percentile, runFor, type LoopResult } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const SESSIONS = 8;

export interface Target {
  url: string;
  token: string;
  ca?: string;
  insecure?: boolean;
}

/**
 * One request over the benchmark's own lean HTTP/2 client (bench/h2-client.ts): node:http2's client costs
 * ~90 µs of CPU per request, which on 2 cores would take a large share of the machine from the server
 * under test; this one costs ~20 µs.
 */
export async function request(s: H2Client, t: Target, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; readonly json: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${t.token}`, accept: 'application/json' };
  let payload: Buffer | undefined;
  if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body));
    headers['content-type'] = contentType;
  }
  const r = await s.request(method, path, headers, payload);
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${r.body.toString().slice(0, 200)}`);
  // Decoded on first read, by the callers that read it (update's GET): the load generator shares the
  // server's 2 cores. Later reads return the same object.
  let json: unknown;
  return {
    status: r.status,
    get json() {
      if (json === undefined && r.body.length > 0 && r.body[0] === 0x7b) json = JSON.parse(r.body.toString());
      return json;
    },
  };
}

/** Opens `n` connections to the target. */
export function connectAll(t: Target, n: number): Promise<H2Client[]> {
  return Promise.all(Array.from({ length: n }, () => H2Client.connect(t.url, { ...(t.ca ? { ca: t.ca } : {}), ...(t.insecure ? { insecure: true } : {}) })));
}

const OPS = ['create', 'create-deployment', 'get', 'update', 'merge-patch'] as const;
type Op = (typeof OPS)[number];

async function benchTarget(t: Target, ops: ReadonlySet<Op> = new Set(OPS)): Promise<Record<string, string>[]> {
  const sessions = await connectAll(t, SESSIONS);
  const s = (w: number) => sessions[w % SESSIONS]!;
  const ns = `bench-${Date.now().toString(36)}`;
  await request(s(0), t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const data = { payload: 'x'.repeat(1024) };
  const names: string[][] = Array.from({ length: CLIENTS }, () => []);
  const rows: Record<string, string>[] = [];
  let deployRow: LoopResult | undefined;
  const row = (op: string, r: LoopResult) =>
    rows.push({ op, 'ops/s': fmt(r.perSecond), 'p50 ms': fmt(r.p50, 1), 'p99 ms': fmt(r.p99, 1), errors: String(r.errors) });

  const create = async (w: number, i: number) => {
    const name = `cm-${w}-${i}`;
    await request(s(w), t, 'POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    names[w]!.push(name);
  };
  // A workload kind with defaults, a pod template and validation.
  const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const labels = { app: 'bench' };
  const spec = { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } };
  const createDeployment = (w: number, i: number) =>
    request(s(w), t, 'POST', deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `d-${w}-${i}` }, spec });
  if (ops.has('create') && ops.has('create-deployment')) {
    // Compared side by side, so neither runs on a store the other has grown more: halves in the order
    // ConfigMaps, Deployments, Deployments, ConfigMaps, each row summing its two halves.
    const [cms, deploys] = await alternating(PHASE_MS, CLIENTS, create, createDeployment);
    row('create', cms);
    deployRow = deploys;
  } else if (ops.has('create')) row('create', await runFor(PHASE_MS, CLIENTS, create));
  else await Promise.all(Array.from({ length: CLIENTS }, async (_, w) => { for (let i = 0; i < 8; i++) await create(w, i); })); // objects for the other phases
  const pick = (w: number, i: number) => names[w]![i % Math.max(1, names[w]!.length)]!;
  if (ops.has('get')) row('get', await runFor(PHASE_MS, CLIENTS, (w, i) => request(s(w), t, 'GET', `${base}/${pick(w, i)}`)));
  if (ops.has('update')) row('update (get+put)', await runFor(PHASE_MS, CLIENTS, async (w, i) => {
    const path = `${base}/${pick(w, i)}`;
    const cur = (await request(s(w), t, 'GET', path)).json;
    cur.data.counter = String(i);
    await request(s(w), t, 'PUT', path, cur);
  }));
  if (ops.has('merge-patch')) row('merge-patch', await runFor(PHASE_MS, CLIENTS, (w, i) =>
    request(s(w), t, 'PATCH', `${base}/${pick(w, i)}`, { data: { patched: String(i) } }, 'application/merge-patch+json'),
  ));
  // Alone, last, so its objects do not weigh on the ConfigMap read and write phases.
  if (ops.has('create-deployment')) row('create deployment', deployRow ?? (await runFor(PHASE_MS, CLIENTS, (w, i) => createDeployment(w, i + 1_000_000))));
  for (const x of sessions) x.close();
  return rows;
}

/**
 * Two operations for `ms` in all each, in halves ordered A, B, B, A: whatever grows or warms up over the
 * run (the store, the caches, the heap) weighs on both alike. Each result sums its halves.
 */
async function alternating(
  ms: number,
  concurrency: number,
  a: (worker: number, i: number) => Promise<unknown>,
  b: (worker: number, i: number) => Promise<unknown>,
): Promise<[LoopResult, LoopResult]> {
  const timed = (op: typeof a, into: number[], offset: number) => async (w: number, i: number) => {
    const t0 = performance.now();
    await op(w, i + offset);
    into.push(performance.now() - t0);
  };
  const latA: number[] = [];
  const latB: number[] = [];
  // The second half of each continues the numbering of its first, so names stay unique.
  const halves = [
    await runFor(ms / 2, concurrency, timed(a, latA, 0)),
    await runFor(ms / 2, concurrency, timed(b, latB, 0)),
    await runFor(ms / 2, concurrency, timed(b, latB, 1_000_000)),
    await runFor(ms / 2, concurrency, timed(a, latA, 1_000_000)),
  ];
  const sum = (x: LoopResult, y: LoopResult, lat: number[]): LoopResult => {
    lat.sort((p, q) => p - q);
    const seconds = x.seconds + y.seconds;
    return { ops: x.ops + y.ops, seconds, perSecond: (x.ops + y.ops) / seconds, p50: percentile(lat, 50), p99: percentile(lat, 99), errors: x.errors + y.errors };
  };
  return [sum(halves[0]!, halves[3]!, latA), sum(halves[1]!, halves[2]!, latB)];
}

/** Starts orch-apiserver as a child process on a fresh data dir; resolves once /readyz answers 200. */
export async function startChild(
  extraArgs: string[] = [],
  prepare?: (dir: string) => void,
): Promise<{ target: Target; readyMs: number; dir: string; idleRssMiB: number; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-api-'));
  prepare?.(dir);
  const t0 = performance.now();
  const bin = new URL('../bin/orch-apiserver.js', import.meta.url).pathname;
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the server under test.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, bin, `--data-dir=${dir}`, '--secure-port=0', ...extraArgs.map((a) => a.replace('{dir}', dir))], { stdio: ['ignore', 'pipe', 'pipe'] });
  // With --workers, the measurement starts once every worker serves (the supervisor says so on stderr).
  const multi = extraArgs.some((a) => /^--workers=(?!1$)/.test(a));
  const allServing = new Promise<void>((resolve) => {
    let err = '';
    child.stderr!.on('data', (c) => {
      process.stderr.write(c);
      err += c;
      if (/all \d+ workers serving/.test(err)) resolve();
    });
    if (!multi) resolve();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`orch-apiserver exited ${code}`)));
  });
  const cfg = parse(readFileSync(join(dir, 'admin.kubeconfig'), 'utf8'));
  const target: Target = {
    url,
    token: cfg.users[0].user.token,
    ca: Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
  };
  const session = await H2Client.connect(url, { ca: target.ca! });
  for (;;) {
    const ok = await request(session, target, 'GET', '/readyz').then(() => true, () => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  await allServing;
  session.close();
  // Resident memory of the idle server (every type registered, empty store), before any load.
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return {
    target,
    readyMs,
    dir,
    idleRssMiB: rss ? Number(rss[1]) / 1024 : NaN,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** In-process start-up with the memory store, median of several runs. */
async function inProcessStartMs(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const s = await startServer({ port: 0, storage: { type: 'memory' } });
    times.push(performance.now() - t0);
    await s.close();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { url: { type: 'string' }, token: { type: 'string' }, ca: { type: 'string' }, insecure: { type: 'boolean' }, ops: { type: 'string' }, workers: { type: 'string' }, 'server-arg': { type: 'string', multiple: true } } });
  const ops = new Set((values.ops ?? OPS.join(',')).split(',').map((o) => o.trim()));
  for (const o of ops) if (!(OPS as readonly string[]).includes(o)) throw new Error(`--ops: unknown operation "${o}" (known: ${OPS.join(', ')})`);
  const header = `api benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${CLIENTS} clients over ${SESSIONS} HTTP/2 connections, ${PHASE_MS} ms per phase`;
  if (values.url) {
    if (!values.token) throw new Error('--token is required with --url');
    const rows = await benchTarget({ url: values.url, token: values.token, ...(values.ca ? { ca: readFileSync(values.ca, 'utf8') } : {}), ...(values.insecure ? { insecure: true } : {}) }, ops as Set<Op>);
    console.log(header);
    console.table(rows);
    return;
  }
  const startMs = await inProcessStartMs();
  // --server-arg=--controllers= (repeatable) passes a flag to the server under test.
  const child = await startChild([...(values.workers ? [`--workers=${values.workers}`] : []), ...(values['server-arg'] ?? [])]);
  try {
    const rows = await benchTarget(child.target, ops as Set<Op>);
    console.log(header);
    console.log(`orch-apiserver (SQLite, synchronous=FULL, ${values.workers ?? 1} worker(s)): process start to /readyz 200 in ${fmt(child.readyMs)} ms (idle RSS ${fmt(child.idleRssMiB, 1)} MiB); startServer() with the memory store: ${fmt(startMs, 1)} ms (median of 7)`);
    console.table(rows);
  } finally {
    await child.stop();
  }
}
