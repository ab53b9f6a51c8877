/**
 * `npm run bench -- controllers [seconds]`: the idle cost of the in-process controller manager (issue 19
 * target: an idle server with all controllers uses < 1 % of a core). Starts a server with every controller
 * (`*` plus the two that are off by default), lets it settle, then measures this process's CPU time over the
 * window, and the same for a server without the manager for comparison.
 */
import { KNOWN_CONTROLLERS } from '../src/config/controller-names.js';
import { startServer } from '../src/index.js';

const SETTLE_MS = 3000;

async function idleCpu(controllers: string[] | undefined, windowMs: number): Promise<number> {
  const server = await startServer(controllers === undefined ? {} : { controllers });
  try {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const start = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, windowMs));
    const used = process.cpuUsage(start);
    const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
    return ((used.user + used.system) / wallUs) * 100;
  } finally {
    await server.close();
  }
}

export async function main(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 10);
  if (!(seconds > 0)) throw new Error(`controllers bench: the window must be a positive number of seconds, got ${args[0]}`);
  const all = ['*', ...KNOWN_CONTROLLERS.filter((n) => n === 'bootstrap-signer-controller' || n === 'token-cleaner-controller')];
  const withManager = await idleCpu(all, seconds * 1000);
  const without = await idleCpu([], seconds * 1000);
  console.log(`idle CPU over ${seconds} s (% of one core, process.cpuUsage):`);
  console.log(`  server with all controllers   ${withManager.toFixed(2)} %   (target < 1 %)`);
  console.log(`  server without the manager    ${without.toFixed(2)} %`);
}
