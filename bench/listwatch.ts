/**
 * List and watch at scale (issue 4): lists of 17,000 and 100,000 1 KiB ConfigMaps (consistent, rv=0, paged
 * by 500) with the server's RSS growth during each, RSS per stored object, and watch fan-out: 1,000 watchers
 * while a writer creates 50 objects/s. Runs against a fresh `orch-apiserver` child process (SQLite).
 *   npm run bench -- listwatch [--objects 17000,100000] [--watchers 1000] [--seconds 30]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { fmt, percentile } from './stats.js';

interface Srv {
  child: ChildProcess;
  url: string;
  token: string;
  ca: string;
  dir: string;
}

async function startChild(existingDir?: string): Promise<Srv> {
  const dir = existingDir ?? mkdtempSync(join(tmpdir(), 'orch-bench-lw-'));
  const bin = new URL('../bin/orch-apiserver.js', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--max-old-space-size=4096', bin, `--data-dir=${dir}`, '--secure-port=0', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}`)));
  });
  const cfg = parse(readFileSync(join(dir, 'admin.kubeconfig'), 'utf8'));
  return { child, url, dir, token: cfg.users[0].user.token, ca: Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString() };
}

function rssMB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function req(s: ClientHttp2Session, srv: Srv, method: string, path: string, body?: unknown, keepAll = true): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const h: Record<string, string> = { ':method': method, ':path': path, authorization: `Bearer ${srv.token}` };
    if (body) h['content-type'] = 'application/json';
    const r = s.request(h);
    let status = 0;
    let bytes = 0;
    const keep: Buffer[] = [];
    r.on('response', (x) => (status = Number(x[':status'])));
    r.on('data', (c: Buffer) => {
      bytes += c.length;
      if (keepAll || keep.length < 2) keep.push(c);
    });
    r.on('end', () => resolve({ status, bytes, text: Buffer.concat(keep).toString() }));
    r.on('error', reject);
    r.end(body ? JSON.stringify(body) : undefined);
  });
}

async function fill(srv: Srv, sessions: ClientHttp2Session[], ns: string, from: number, to: number): Promise<void> {
  const data = { payload: 'x'.repeat(1024) };
  let next = from;
  await Promise.all(Array.from({ length: 64 }, async (_, w) => {
    while (next < to) {
      const i = next++;
      const r = await req(sessions[w % sessions.length]!, srv, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(6, '0')}` }, data });
      if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  }));
}

/** Times one list (all pages) while sampling the server's RSS every 10 ms. */
async function timedList(srv: Srv, s: ClientHttp2Session, path: string, paged: boolean): Promise<{ ms: number; growthMB: number; items: number }> {
  const pid = srv.child.pid!;
  const base = rssMB(pid);
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, rssMB(pid))), 10);
  const t0 = performance.now();
  let items = 0;
  let cont = '';
  for (;;) {
    const url = paged ? `${path}${path.includes('?') ? '&' : '?'}limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` : path;
    const r = await req(s, srv, 'GET', url, undefined, paged);
    if (r.status !== 200) throw new Error(`list ${r.status}`);
    if (!paged) {
      items = -1;
      break;
    }
    const body = JSON.parse(r.text);
    items += body.items?.length ?? 0;
    cont = body.metadata?.continue ?? '';
    if (!cont) break;
  }
  const ms = performance.now() - t0;
  clearInterval(timer);
  peak = Math.max(peak, rssMB(pid));
  return { ms, growthMB: peak - base, items };
}

async function fanOut(srv: Srv, watchers: number, seconds: number): Promise<Record<string, string>> {
  const sessions = Array.from({ length: 10 }, () => connect(srv.url, { ca: srv.ca }));
  const ns = 'fanout';
  await req(sessions[0]!, srv, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const rv = JSON.parse((await req(sessions[0]!, srv, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).text).metadata.resourceVersion;
  const acked = new Map<string, number>();
  const latencies: number[] = [];
  const received = new Array<number>(watchers).fill(0);
  const streams = Array.from({ length: watchers }, (_, w) => {
    const st = sessions[w % sessions.length]!.request({ ':path': `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, authorization: `Bearer ${srv.token}` });
    let buf = '';
    st.setEncoding('utf8');
    st.on('data', (c: string) => {
      buf += c;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const name = /"name":"([^"]+)"/.exec(line)?.[1];
        const at = name ? acked.get(name) : undefined;
        if (at !== undefined) latencies.push(performance.now() - at);
        received[w]!++;
      }
    });
    st.on('error', () => undefined);
    return st;
  });
  await new Promise((r) => setTimeout(r, 2000)); // let every watch start
  const total = 50 * seconds;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / 50;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const name = `w-${i}`;
    // Latency is measured from issuing the write (an upper bound of acknowledgement -> event): events often
    // reach watchers before the writer has read its own response.
    acked.set(name, performance.now());
    const r = await req(sessions[0]!, srv, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: String(i) } });
    if (r.status !== 201) throw new Error(`create ${r.status}`);
  }
  const deadline = performance.now() + 10_000;
  while (received.some((n) => n < total) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const st of streams) st.close();
  for (const s of sessions) s.close();
  latencies.sort((a, b) => a - b);
  const complete = received.filter((n) => n >= total).length;
  return {
    watchers: String(watchers),
    'events written': String(total),
    'watchers with every event': `${complete}/${watchers}`,
    'deliveries': fmt(latencies.length),
    'latency p50 ms (from write issued)': fmt(percentile(latencies, 50), 1),
    'latency p99 ms (from write issued)': fmt(percentile(latencies, 99), 1),
  };
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { objects: { type: 'string' }, watchers: { type: 'string' }, seconds: { type: 'string' } } });
  const sizes = (values.objects ?? '17000,100000').split(',').map(Number);
  let srv = await startChild();
  const rows: Record<string, string>[] = [];
  try {
    const sessions = Array.from({ length: 8 }, () => connect(srv.url, { ca: srv.ca }));
    const s = sessions[0]!;
    await req(s, srv, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bulk' } });
    const empty = rssMB(srv.child.pid!);
    let have = 0;
    let perObject = '';
    for (const n of sizes) {
      const t0 = performance.now();
      await fill(srv, sessions, 'bulk', have, n);
      const fillMs = performance.now() - t0;
      have = n;
      await new Promise((r) => setTimeout(r, 1000));
      const loaded = rssMB(srv.child.pid!);
      perObject = `${fmt(((loaded - empty) * 1024 * 1024) / n / 1000, 2)} KB`;
      for (const [label, path, paged] of [
        ['consistent', '/api/v1/namespaces/bulk/configmaps', false],
        ['resourceVersion=0', '/api/v1/namespaces/bulk/configmaps?resourceVersion=0', false],
        ['paged limit=500', '/api/v1/namespaces/bulk/configmaps', true],
      ] as const) {
        const r = await timedList(srv, s, path, paged);
        rows.push({ objects: fmt(n), list: label, items: r.items < 0 ? 'all' : fmt(r.items), ms: fmt(r.ms), 'RSS growth MB': fmt(r.growthMB, 1), 'RSS per object': perObject, 'filled in s': fmt(fillMs / 1000, 1) });
      }
    }
    for (const x of sessions) x.close();
    // Memory per stored object without the garbage of the fill: a fresh process loads the same store into its
    // watch caches; compare with a fresh process on an empty store.
    srv.child.kill('SIGTERM');
    await new Promise((r) => srv.child.once('exit', r));
    srv = await startChild(srv.dir);
    await new Promise((r) => setTimeout(r, 2000));
    const reloaded = rssMB(srv.child.pid!);
    const blank = await startChild();
    await new Promise((r) => setTimeout(r, 2000));
    const emptyFresh = rssMB(blank.child.pid!);
    blank.child.kill('SIGTERM');
    await new Promise((r) => blank.child.once('exit', r));
    rmSync(blank.dir, { recursive: true, force: true });
    const n = sizes[sizes.length - 1]!;
    console.log(`fresh process with ${fmt(n)} objects: RSS ${fmt(reloaded)} MB; fresh process with an empty store: ${fmt(emptyFresh)} MB; ${fmt(((reloaded - emptyFresh) * 1024 * 1024) / n / 1000, 2)} KB per stored 1 KiB object`);
    console.log(`listwatch benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${new Date().toISOString().slice(0, 10)}; server: orch-apiserver, SQLite synchronous=FULL`);
    console.table(rows);
    const fan = await fanOut(srv, Number(values.watchers ?? 1000), Number(values.seconds ?? 30));
    console.table([fan]);
  } finally {
    srv.child.kill('SIGTERM');
    await new Promise((r) => srv.child.once('exit', r));
    rmSync(srv.dir, { recursive: true, force: true });
  }
}
