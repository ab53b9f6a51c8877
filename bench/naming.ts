/**
 * `npm run bench -- naming [starts]`: what `startServer({ naming: 'k8s' })` costs next to the default naming
 * (issue 21). The first k8s start in a process loads that naming's server bundle (building it when it is
 * missing or older than the sources); later starts reuse the loaded graph.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type ServerOptions } from '../src/index.js';
import { percentile } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const K8S_BUNDLE_DIR = join(ROOT, 'node_modules', '.cache', 'orch', 'k8s');
const OPTS: ServerOptions = { port: 0, storage: { type: 'memory' } };

async function timedStart(opts: ServerOptions): Promise<number> {
  const t = performance.now();
  const s = await startServer(opts);
  const ms = performance.now() - t;
  await s.close();
  return ms;
}

/** Time of the first k8s start in a fresh process whose bundle is already built. */
function firstStartInNewProcess(): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--first-start'], { cwd: ROOT, encoding: 'utf8' });
  return Number(out.trim());
}

export async function main(args: string[]): Promise<void> {
  if (args[0] === '--first-start') {
    process.stdout.write(`${await timedStart({ ...OPTS, naming: 'k8s' })}\n`);
    return;
  }
  const starts = Number(args[0] ?? 20);
  await timedStart(OPTS); // warm the default graph's lazy imports
  rmSync(K8S_BUNDLE_DIR, { recursive: true, force: true });
  const coldFirst = await timedStart({ ...OPTS, naming: 'k8s' });
  const second = await timedStart({ ...OPTS, naming: 'k8s' });
  const warmFirst = firstStartInNewProcess();
  const orch: number[] = [];
  const k8s: number[] = [];
  for (let i = 0; i < starts; i++) {
    orch.push(await timedStart(OPTS));
    k8s.push(await timedStart({ ...OPTS, naming: 'k8s' }));
  }
  const p50 = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const f = (ms: number) => `${ms.toFixed(0)} ms`;
  console.log('startServer() with the memory store');
  console.log(`  k8s, first in process, bundle built now    ${f(coldFirst)}`);
  console.log(`  k8s, first in a new process, bundle built  ${f(warmFirst)}`);
  console.log(`  k8s, second in process                     ${f(second)}`);
  console.log(`  p50 of ${starts} starts: orch ${f(p50(orch))}, k8s ${f(p50(k8s))} (ratio ${(p50(k8s) / p50(orch)).toFixed(2)})`);
}

if (process.argv[2] === '--first-start') await main(process.argv.slice(2));
