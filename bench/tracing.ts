/**
 * Tracing cost, in process (issue 20): create and get throughput of one memory-backed server with tracing
 * off, on at samplingRatePerMillion 0, and on at 1,000,000 (every request traced and exported to an
 * OTLP/gRPC collector in this process). Run in that order: once a span has been current, Node 20's
 * AsyncLocalStorage keeps its promise hooks on for the rest of the process.
 *
 *   npm run bench -- tracing        (BENCH_PHASE_MS sets each phase's length, default 4000)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { TRACING_CONFIG_GROUP } from '../src/api/naming.js';
import { startServer } from '../src/index.js';
import { connectAll, request } from './api.js';
import { fmt, runFor } from './stats.js';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 4000);

async function collector(): Promise<{ endpoint: string; received: () => number; close(): void }> {
  const defs = protoLoader.loadSync('trace-service.proto', { includeDirs: [fileURLToPath(new URL('../src/tracing/otlp/', import.meta.url))], keepCase: true, longs: String, bytes: Buffer });
  const pkg = grpc.loadPackageDefinition(defs) as any;
  let n = 0;
  const server = new grpc.Server();
  server.addService(pkg.opentelemetry.proto.collector.trace.v1.TraceService.service, {
    Export(call: any, cb: (e: null, r: object) => void) {
      for (const rs of call.request.resource_spans) for (const ss of rs.scope_spans) n += ss.spans.length;
      cb(null, {});
    },
  });
  const port = await new Promise<number>((res, rej) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
  return { endpoint: `127.0.0.1:${port}`, received: () => n, close: () => server.forceShutdown() };
}

async function measure(label: string, tracingConfigFile: string | undefined): Promise<{ create: number; get: number }> {
  const server = await startServer({ port: 0, storage: { type: 'memory' }, ...(tracingConfigFile ? { tracingConfigFile } : {}) });
  const t = { url: server.url, token: server.adminToken, ca: server.caCertPem };
  const sessions = await connectAll(t, 8);
  const path = '/api/v1/namespaces/default/configmaps';
  const create = await runFor(PHASE_MS, 64, (w, i) => request(sessions[w % 8]!, t, 'POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${label}-${w}-${i}` }, data: { a: 'x'.repeat(1024) } }));
  const get = await runFor(PHASE_MS, 64, (w) => request(sessions[w % 8]!, t, 'GET', `${path}/${label}-${w}-0`));
  for (const s of sessions) s.close();
  await server.close();
  console.log(`${label.padEnd(12)} create ${fmt(create.perSecond)}/s (errors ${create.errors})   get ${fmt(get.perSecond)}/s (errors ${get.errors})`);
  return { create: create.perSecond, get: get.perSecond };
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-tracing-'));
  const c = await collector();
  const file = (rate: number) => {
    const f = join(dir, `tracing-${rate}.yaml`);
    writeFileSync(f, `apiVersion: ${TRACING_CONFIG_GROUP}/v1beta1\nkind: TracingConfiguration\nendpoint: ${c.endpoint}\nsamplingRatePerMillion: ${rate}\n`);
    return f;
  };
  const off = await measure('off', undefined);
  const zero = await measure('rate-0', file(0));
  const all = await measure('rate-1e6', file(1_000_000));
  const ratio = (x: number, y: number) => `${((x / y) * 100).toFixed(1)} %`;
  console.log(`rate 0 vs off:   create ${ratio(zero.create, off.create)}, get ${ratio(zero.get, off.get)}`);
  console.log(`rate 1e6 vs off: create ${ratio(all.create, off.create)}, get ${ratio(all.get, off.get)}; spans received ${c.received()}`);
  c.close();
  rmSync(dir, { recursive: true, force: true });
}
