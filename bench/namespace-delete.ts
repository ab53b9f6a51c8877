/**
 * Namespace deletion benchmark (issue 19): a namespace holding 10,000 ConfigMaps must be gone within 15 s of
 * its delete. The namespace controller runs as a client of an in-process server started without its own
 * controllers, so the time is this controller's (discovery, delete-collection, finalize) and the server's.
 *
 *   npm run bench -- namespace-delete [count] [sqlite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, isNotFound } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import type { ControllerContext } from '../src/controllers/contract.js';
import { namespaceController } from '../src/controllers/namespace/index.js';
import { startServer } from '../src/index.js';
import { fmt } from './stats.js';

const LIMIT_MS = 15_000;
const NS = { group: '', version: 'v1', plural: 'namespaces' };
const CM = { group: '', version: 'v1', plural: 'configmaps' };

export async function main(args: string[]): Promise<void> {
  const count = Number(args[0] ?? 10_000);
  if (!Number.isInteger(count) || count < 1) throw new Error(`namespace-delete: the count must be a positive integer, not ${JSON.stringify(args[0])}`);
  const dir = args[1] === 'sqlite' ? mkdtempSync(join(tmpdir(), 'orch-bench-ns-')) : undefined;
  const server = await startServer({ controllers: false, storage: dir ? { type: 'sqlite', path: join(dir, 'orch.db') } : { type: 'memory' } });
  const client = new Client(connectionForServer(server));
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await client.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-sweep' } });
    const cms = client.resource(CM, 'bench-sweep');
    let made = 0;
    const f0 = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (made < count) {
          const name = `cm-${made++}`;
          await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(256) } });
        }
      }),
    );
    const fillPerSecond = count / ((performance.now() - f0) / 1000);
    const ctx: ControllerContext = {
      client,
      informers: client.informerFactory(),
      signal: stop.signal,
      log: (m) => console.error(m),
      now: () => Date.now(),
      settings: { clusterSigningDurationMs: 365 * 86_400_000, terminatedPodGcThreshold: 12_500, concurrency: () => 10 },
    };
    running = namespaceController.run(ctx);
    const t0 = performance.now();
    await client.resource(NS).delete('bench-sweep');
    for (;;) {
      const gone = await client
        .resource(NS)
        .get('bench-sweep')
        .then(() => false, (e: unknown) => (isNotFound(e) ? true : Promise.reject(e)));
      if (gone) break;
      if (performance.now() - t0 > 4 * LIMIT_MS) throw new Error('namespace-delete: the namespace is still there after 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = performance.now() - t0;
    console.table([
      { step: `create ${count} ConfigMaps (64 in flight)`, 'ops/s': fmt(fillPerSecond), ms: '' },
      { step: 'delete namespace until gone', 'ops/s': '', ms: fmt(ms), limit: `${LIMIT_MS}`, verdict: ms <= LIMIT_MS ? 'ok' : 'TOO SLOW' },
    ]);
  } finally {
    stop.abort();
    await running;
    client.close();
    await server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
