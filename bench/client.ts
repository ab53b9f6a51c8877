/**
 * Client library benchmark: GETs and creates of ConfigMaps per second through src/client (node:http2, one
 * session) against the benchmark's own lean HTTP/2 client (bench/h2-client.ts, one connection), in the same
 * run against the same in-process server (memory store), 64 requests in flight.
 *
 *   npm run bench -- client
 */
import { Client, Http2Transport } from '../src/client/index.js';
import { startServer } from '../src/index.js';
import { H2Client } from './h2-client.js';
import { fmt, runFor } from './stats.js';
import { request } from './api.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 4000);
const CONCURRENCY = 64;
const CM = { group: '', version: 'v1', plural: 'configmaps' };

export async function main(): Promise<void> {
  const server = await startServer({ port: 0, storage: { type: 'memory' } });
  const target = { url: server.url, token: server.adminToken, ca: server.caCertPem };
  const client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
  const lean = await H2Client.connect(server.url, { ca: server.caCertPem });
  try {
    await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-client' } });
    const cms = client.resource(CM, 'bench-client');
    const base = '/api/v1/namespaces/bench-client/configmaps';
    const data = { payload: 'x'.repeat(1024) };
    const body = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    await cms.create(body('read-me'));
    const rows: Record<string, string>[] = [];
    const row = (op: string, via: string, r: Awaited<ReturnType<typeof runFor>>) =>
      rows.push({ op, via, 'ops/s': fmt(r.perSecond), 'p50 ms': fmt(r.p50, 1), 'p99 ms': fmt(r.p99, 1), errors: String(r.errors) });
    // Alternating order per pair would be fairer on a noisy machine; each phase is long enough that warm-up is small.
    row('get', 'bench h2-client', await runFor(PHASE_MS, CONCURRENCY, () => request(lean, target, 'GET', `${base}/read-me`).then((r) => r.json)));
    row('get', 'src/client', await runFor(PHASE_MS, CONCURRENCY, () => cms.get('read-me')));
    row('create', 'bench h2-client', await runFor(PHASE_MS, CONCURRENCY, (w, i) => request(lean, target, 'POST', base, body(`lean-${w}-${i}`)).then((r) => r.json)));
    row('create', 'src/client', await runFor(PHASE_MS, CONCURRENCY, (w, i) => cms.create(body(`client-${w}-${i}`))));
    console.table(rows);
    console.log(`src/client sessions opened: ${(client.transport as Http2Transport).sessionsOpened}`);
  } finally {
    lean.close();
    client.close();
    await server.close();
  }
}
