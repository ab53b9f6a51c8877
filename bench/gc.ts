/**
 * Garbage collector benchmark (issue 19): the 10,000 dependents of a deleted owner must be gone within
 * 15 s of the owner's delete. The collector runs as a client of an in-process server started without its
 * own controllers, so the time is the collector's (graph, queue, deletes) and the server's.
 *
 *   npm run bench -- gc [count] [Background|Foreground] [sqlite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import { startGarbageCollector } from '../src/controllers/garbagecollector/index.js';
import { startServer } from '../src/index.js';
import { fmt } from './stats.js';

const LIMIT_MS = 15_000;
const NS = { group: '', version: 'v1', plural: 'namespaces' };
const CM = { group: '', version: 'v1', plural: 'configmaps' };

export async function main(args: string[]): Promise<void> {
  const count = Number(args[0] ?? 10_000);
  if (!Number.isInteger(count) || count < 1) throw new Error(`gc: the count must be a positive integer, not ${JSON.stringify(args[0])}`);
  const policy = args[1] ?? 'Background';
  if (policy !== 'Background' && policy !== 'Foreground') throw new Error(`gc: the policy must be Background or Foreground, not ${JSON.stringify(policy)}`);
  const dir = args[2] === 'sqlite' ? mkdtempSync(join(tmpdir(), 'orch-bench-gc-')) : undefined;
  const server = await startServer({ controllers: false, storage: dir ? { type: 'sqlite', path: join(dir, 'orch.db') } : { type: 'memory' } });
  const client = new Client(connectionForServer(server));
  const stop = new AbortController();
  let stopped: Promise<void> | undefined;
  try {
    await client.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-gc' } });
    const cms = client.resource(CM, 'bench-gc');
    const owner = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid as string, blockOwnerDeletion: policy === 'Foreground' };
    const started = await startGarbageCollector({
      client,
      informers: client.informerFactory(),
      signal: stop.signal,
      log: (m) => console.error(m),
      now: () => Date.now(),
      settings: { clusterSigningDurationMs: 365 * 86_400_000, terminatedPodGcThreshold: 12_500, concurrency: () => 20 },
    });
    stopped = started.done;
    let made = 0;
    const f0 = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (made < count) {
          const name = `dep-${made++}`;
          await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: [ref] }, data: { payload: 'x'.repeat(256) } });
        }
      }),
    );
    const fillPerSecond = count / ((performance.now() - f0) / 1000);
    // The collector must know every dependent before the clock starts (its informers trail the creates).
    while (started.collector.graph.size < count + 1) await new Promise((r) => setTimeout(r, 20));
    const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
    const t0 = performance.now();
    await cms.delete('owner', { propagationPolicy: policy });
    for (;;) {
      if ((await cms.list({ limit: 1 })).items.length === 0) break;
      if (performance.now() - t0 > 4 * LIMIT_MS) throw new Error('gc: dependents are still there after 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = performance.now() - t0;
    console.table([
      { step: `create ${count} dependents (64 in flight)`, 'ops/s': fmt(fillPerSecond), ms: '', limit: '', verdict: '' },
      { step: `heap with the graph of ${count + 1} objects (MB, whole process)`, 'ops/s': '', ms: fmt(heapMb), limit: '', verdict: '' },
      { step: `delete owner (${policy}) until every dependent is gone`, 'ops/s': fmt(count / (ms / 1000)), ms: fmt(ms), limit: `${LIMIT_MS}`, verdict: ms <= LIMIT_MS ? 'ok' : 'TOO SLOW' },
    ]);
  } finally {
    stop.abort();
    await stopped;
    client.close();
    await server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
