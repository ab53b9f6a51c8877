/**
 * Server-side apply (issue 5): 64 concurrent clients apply a 30-field ConfigMap (each to its own object,
 * one value changing per apply, so every apply merges, tracks ownership and writes).
 * `npm run bench -- apply [--workers=N]`, or `-- apply --url URL --token T [--ca FILE]` against a running server
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);

async function applyBench(t: Target): Promise<Record<string, string>[]> {
  const sessions = await connectAll(t, 8);
  const config = (w: number, i: number) => {
    const data: Record<string, string> = {};
    for (let f = 0; f < 28; f++) data[`field-${f}`] = f === 0 ? String(i) : `value-${f}`;
    return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `applied-${w}`, labels: { app: 'bench', worker: String(w) } }, data };
  };
  const apply = (w: number, i: number) =>
    request(sessions[w % 8]!, t, 'PATCH', `/api/v1/namespaces/default/configmaps/applied-${w}?fieldManager=bench`, config(w, i), 'application/apply-patch+yaml');
  const first = await runFor(Math.min(PHASE_MS, 2000), 64, (w, i) => apply(w, i));
  const steady = await runFor(PHASE_MS, 64, (w, i) => apply(w, i + 1_000_000));
  for (const s of sessions) s.close();
  return [
    { phase: 'warm-up (creates, then applies)', 'applies/s': fmt(first.perSecond), 'p50 ms': fmt(first.p50, 1), 'p99 ms': fmt(first.p99, 1), errors: String(first.errors) },
    { phase: 'steady (each apply changes one field)', 'applies/s': fmt(steady.perSecond), 'p50 ms': fmt(steady.p50, 1), 'p99 ms': fmt(steady.p99, 1), errors: String(steady.errors) },
  ];
}

/** `[--workers=N]` for the child server, or `--url URL --token T [--ca FILE]` for a running one. */
export async function main(args: string[] = []): Promise<void> {
  const { values } = parseArgs({ args, options: { workers: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, ca: { type: 'string' } } });
  const header = (server: string) =>
    `apply benchmark: ${cpus().length} cores, node ${process.version}, ${new Date().toISOString().slice(0, 10)}, 64 clients over 8 HTTP/2 connections, ${server}`;
  if (values.url) {
    if (!values.token) throw new Error('--token is required with --url');
    const rows = await applyBench({ url: values.url, token: values.token, ...(values.ca ? { ca: readFileSync(values.ca, 'utf8') } : {}) });
    console.log(header(values.url));
    console.table(rows);
    return;
  }
  const child = await startChild(values.workers ? [`--workers=${values.workers}`] : []);
  try {
    const rows = await applyBench(child.target);
    console.log(header(`orch-apiserver (SQLite, synchronous=FULL, ${values.workers ?? 1} worker(s))`));
    console.table(rows);
  } finally {
    await child.stop();
  }
}
