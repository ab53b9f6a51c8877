/**
 * `npm run bench -- testenv`: what a test suite pays for its API server (issue 21). startServer() p50/p99
 * over sequential starts, RSS with many servers alive in one process, reset() with 1,000 objects, and the
 * time to start the etcd binary alone (the floor of the reference's test environments, before its server).
 */
import { startServer, type TestServer } from '../src/index.js';
import { etcdAvailable, startEtcd } from '../src/storage/etcd/index.js';
import { AdminClient } from '../src/testing/admin-client.js';
import { percentile } from './stats.js';

const ms = (n: number) => `${n.toFixed(1)} ms`;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

async function sequentialStarts(n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const s = await startServer({ port: 0 });
    times.push(performance.now() - t);
    await s.close();
  }
  return times;
}

async function aliveTogether(n: number): Promise<{ rssMb: number; perServerMb: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  const servers: TestServer[] = [];
  for (let i = 0; i < n; i++) servers.push(await startServer({ port: 0 }));
  global.gc?.();
  const rss = process.memoryUsage().rss;
  await Promise.all(servers.map((s) => s.close()));
  return { rssMb: rss / 2 ** 20, perServerMb: (rss - before) / n / 2 ** 20 };
}

async function createConfigMaps(server: TestServer, count: number, tag: string): Promise<void> {
  const admin = new AdminClient(server.url, server.caCertPem, server.adminToken);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const i = next++;
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${tag}-${i}` }, data: { i: String(i) } });
        const r = await admin.call('POST', '/api/v1/namespaces/default/configmaps', { text: body, contentType: 'application/json' });
        if (r.status !== 201) throw new Error(`create answered ${r.status}`);
      }
    }),
  );
  admin.close();
}

/** reset() timings: 1,000 objects held by the snapshot with 10 changed, and 1,000 created after it. */
async function resets(rounds: number): Promise<{ kept: number[]; created: number[] }> {
  const server = await startServer({ port: 0 });
  const kept: number[] = [];
  const created: number[] = [];
  try {
    await createConfigMaps(server, 1000, 'base');
    await server.snapshot();
    for (let r = 0; r < rounds; r++) {
      await createConfigMaps(server, 10, `small${r}`);
      const t = performance.now();
      await server.reset();
      kept.push(performance.now() - t);
    }
    await server.reset();
    const fresh = await startServer({ port: 0 });
    try {
      for (let r = 0; r < rounds; r++) {
        await createConfigMaps(fresh, 1000, `bulk${r}`);
        const t = performance.now();
        await fresh.reset();
        created.push(performance.now() - t);
      }
    } finally {
      await fresh.close();
    }
  } finally {
    await server.close();
  }
  return { kept, created };
}

async function etcdStarts(n: number): Promise<number[] | undefined> {
  if (!etcdAvailable()) return undefined;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const etcd = await startEtcd();
    times.push(performance.now() - t);
    await etcd.stop();
  }
  return times;
}

export async function main(args: string[]): Promise<void> {
  const starts = Number(args[0] ?? 50);
  const alive = Number(args[1] ?? 50);
  await sequentialStarts(3); // warm the module graph and the JIT
  const s = stats(await sequentialStarts(starts));
  console.log(`startServer() x${starts} sequential: p50 ${ms(s.p50)}, p99 ${ms(s.p99)}`);
  const a = await aliveTogether(alive);
  console.log(`${alive} servers alive in one process: RSS ${a.rssMb.toFixed(0)} MB (${a.perServerMb.toFixed(1)} MB per server)`);
  const r = await resets(10);
  const kept = stats(r.kept);
  const created = stats(r.created);
  console.log(`reset(), 1,000 objects in the snapshot, 10 added: p50 ${ms(kept.p50)}, p99 ${ms(kept.p99)}`);
  console.log(`reset(), 1,000 objects added since the snapshot: p50 ${ms(created.p50)}, p99 ${ms(created.p99)}`);
  const e = await etcdStarts(5);
  console.log(e ? `etcd binary alone, start until healthy x5: p50 ${ms(stats(e).p50)}` : 'etcd binary: not installed');
}
