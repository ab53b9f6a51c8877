/**
 * Custom resource benchmark (issue 18):
 *  - create and get of a custom resource against the same of a ConfigMap (64 clients over HTTP/2, against
 *    orch-apiserver on SQLite started as a child process); the target is >= 80 % of the ConfigMap's rate;
 *  - start of a server whose store holds 200 CRDs, to /readyz 200 with all of them served (target <= 1.5 s);
 *  - a new CRD, created with those 200 registered, served (its list answers 200) within 1 s.
 *
 *   npm run bench -- crd
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/index.js';
import { connectAll, request, startChild, type Target } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const CLIENTS = 64;
const SESSIONS = 8;
const CRDS = '/apis/apiextensions.orch.io/v1/customresourcedefinitions';

/** A CRD in the style controller-gen writes, with a default and a status subresource. */
export function benchCrd(group: string, plural = 'widgets', kind = 'Widget') {
  return {
    apiVersion: 'apiextensions.orch.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { payload: { type: 'string' }, size: { type: 'integer', default: 1 } } },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
      ],
    },
  };
}

async function until(what: string, f: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function throughput(t: Target): Promise<Record<string, string>[]> {
  const sessions = await connectAll(t, SESSIONS);
  const s = (w: number) => sessions[w % SESSIONS]!;
  const ns = `bench-${Date.now().toString(36)}`;
  await request(s(0), t, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await request(s(0), t, 'POST', CRDS, benchCrd('bench.example.com'));
  const crBase = `/apis/bench.example.com/v1/namespaces/${ns}/widgets`;
  await until('CRD served', () => request(s(0), t, 'GET', crBase).then(() => true, () => false));
  const payload = 'x'.repeat(1024);
  const kinds = {
    configmap: { base: `/api/v1/namespaces/${ns}/configmaps`, body: (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload } }) },
    'custom resource': { base: crBase, body: (name: string) => ({ apiVersion: 'bench.example.com/v1', kind: 'Widget', metadata: { name }, spec: { payload } }) },
  };
  const rows: Record<string, string>[] = [];
  const rates: Record<string, number> = {};
  for (const [label, k] of Object.entries(kinds)) {
    const names: string[][] = Array.from({ length: CLIENTS }, () => []);
    const created = await runFor(PHASE_MS, CLIENTS, async (w, i) => {
      const name = `o-${w}-${i}`;
      await request(s(w), t, 'POST', k.base, k.body(name));
      names[w]!.push(name);
    });
    const got = await runFor(PHASE_MS, CLIENTS, (w, i) => request(s(w), t, 'GET', `${k.base}/${names[w]![i % names[w]!.length]}`));
    rates[`create ${label}`] = created.perSecond;
    rates[`get ${label}`] = got.perSecond;
    for (const [op, r] of [['create', created], ['get', got]] as const) rows.push({ op: `${op} ${label}`, 'ops/s': fmt(r.perSecond), 'p50 ms': fmt(r.p50, 1), 'p99 ms': fmt(r.p99, 1), errors: String(r.errors) });
  }
  for (const op of ['create', 'get']) {
    rows.push({ op: `${op}: custom resource / configmap`, 'ops/s': `${fmt((100 * rates[`${op} custom resource`]!) / rates[`${op} configmap`]!)} %`, 'p50 ms': '', 'p99 ms': '', errors: '' });
  }
  for (const x of sessions) x.close();
  return rows;
}

/** A store with 200 CRDs: start to /readyz with all served, then one more CRD until it is served. */
async function manyCrds(): Promise<{ readyMs: number; newCrdMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-crd-'));
  const opts = { port: 0, dataDir: join(dir, 'data'), storage: { type: 'sqlite' as const, path: join(dir, 'orch.db') } };
  try {
    const first = await startServer(opts);
    const post = (path: string, body: unknown) => fetchJson(first, 'POST', path, body);
    for (let i = 0; i < 200; i++) await post(CRDS, benchCrd(`g${i}.example.com`));
    await until('200 CRDs served', async () => (await fetchJson(first, 'GET', '/apis/g199.example.com/v1/widgets')).status === 200, 30_000);
    await first.close();
    const t0 = performance.now();
    const second = await startServer(opts);
    await until('readyz', async () => (await fetchJson(second, 'GET', '/readyz')).status === 200);
    const readyMs = performance.now() - t0;
    const served = (await fetchJson(second, 'GET', '/apis/g199.example.com/v1/widgets')).status;
    if (served !== 200) throw new Error(`after /readyz the 200th CRD answers ${served}`);
    const t1 = performance.now();
    await fetchJson(second, 'POST', CRDS, benchCrd('late.example.com'));
    await until('new CRD served', async () => (await fetchJson(second, 'GET', '/apis/late.example.com/v1/widgets')).status === 200);
    const newCrdMs = performance.now() - t1;
    await second.close();
    return { readyMs, newCrdMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function fetchJson(s: { url: string; adminToken: string; caCertPem: string }, method: string, path: string, body?: unknown): Promise<{ status: number }> {
  const { request: httpsRequest } = await import('node:https');
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpsRequest(new URL(path, s.url), { method, ca: s.caCertPem, headers: { authorization: `Bearer ${s.adminToken}`, ...(payload ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export async function main(): Promise<void> {
  const child = await startChild();
  let rows: Record<string, string>[];
  try {
    rows = await throughput(child.target);
  } finally {
    await child.stop();
  }
  const many = await manyCrds();
  console.log(`crd benchmark: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, ${CLIENTS} clients over ${SESSIONS} HTTP/2 connections, ${PHASE_MS} ms per phase, orch-apiserver on SQLite`);
  console.table(rows);
  console.log(`200 CRDs in the store: startServer() to /readyz 200 (all served) in ${fmt(many.readyMs)} ms (target <= 1500); a new CRD served after ${fmt(many.newCrdMs)} ms (target <= 1000)`);
}
