/**
 * orchctl benchmark (issue 22): `orchctl get configmaps` against 1,000 objects, next to the real kubectl
 * (from PATH) listing the same namespace of the same server, in one run. Each round runs both commands
 * once, in alternating order, as fresh processes (start-up included, as a user sees it); the figure is the
 * median wall time. Target: orchctl <= 1.5 x kubectl.
 *
 *   npm run bench -- orchctl [rounds]
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, startServer } from '../src/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import { fmt, percentile } from './stats.js';

const run = promisify(execFile);
const OBJECTS = 1000;
const NAMESPACE = 'bench';
const TARGET_RATIO = 1.5;
const ORCHCTL = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orchctl.js');

/** Wall time of one command, checking it listed every object (a header, one line each; the namespace's CA map too). */
async function timed(file: string, args: string[]): Promise<number> {
  const started = performance.now();
  const { stdout } = await run(file, args, { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  const ms = performance.now() - started;
  const lines = stdout.split('\n').filter((l) => l !== '').length;
  if (lines < OBJECTS + 1) throw new Error(`${file} ${args.join(' ')} printed ${lines} lines, expected at least ${OBJECTS + 1}`);
  return ms;
}

export async function main(args: string[]): Promise<void> {
  const rounds = Number(args[0] ?? process.env.BENCH_ROUNDS ?? 15);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`rounds: "${args[0]}" is not a positive whole number`);
  const server = await startServer();
  const client = new Client(connectionForServer(server));
  try {
    const kubeconfig = server.writeKubeconfig();
    await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    const cms = client.resource({ group: '', version: 'v1', plural: 'configmaps' }, NAMESPACE);
    for (let i = 0; i < OBJECTS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, OBJECTS - i) }, (_, j) =>
          cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i + j).padStart(4, '0')}`, labels: { app: 'bench' } }, data: { key: 'value', index: String(i + j) } }),
        ),
      );
    }
    const orchctl = () => timed(process.execPath, [ORCHCTL, '--kubeconfig', kubeconfig, '-n', NAMESPACE, 'get', 'configmaps']);
    const kubectl = () => timed('kubectl', ['--kubeconfig', kubeconfig, '-n', NAMESPACE, 'get', 'configmaps']);
    // One untimed run each: disk caches and kubectl's discovery cache are warm for both, as for a user.
    await orchctl();
    await kubectl();
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        ours.push(await orchctl());
        theirs.push(await kubectl());
      } else {
        theirs.push(await kubectl());
        ours.push(await orchctl());
      }
    }
    ours.sort((a, b) => a - b);
    theirs.sort((a, b) => a - b);
    const oursMedian = percentile(ours, 50);
    const theirsMedian = percentile(theirs, 50);
    const ratio = oursMedian / theirsMedian;
    console.log(`get configmaps, ${OBJECTS} objects, ${rounds} rounds (median wall time of a fresh process)`);
    console.log(`  orchctl  p50 ${fmt(oursMedian)} ms   p90 ${fmt(percentile(ours, 90))} ms`);
    console.log(`  kubectl  p50 ${fmt(theirsMedian)} ms   p90 ${fmt(percentile(theirs, 90))} ms`);
    console.log(`  ratio    ${ratio.toFixed(2)} x (target <= ${TARGET_RATIO} x): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`);
  } finally {
    client.close();
    await server.close();
  }
}
