/** `orch-apiserver` / `npm start`: flag parsing and wiring only. */
import cluster from 'node:cluster';
import type { ServerOptions } from '../server/index.js';
import { parseFlags, USAGE, type CliOptions } from './apiserver-flags.js';

let cli: CliOptions | 'help';
try {
  cli = parseFlags(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`orch-apiserver: ${(e as Error).message}\n\n${USAGE}`);
  process.exit(1);
}
if (cli === 'help') {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (cli.workers > 1) {
  // The supervisor loads no server code; each worker runs one server (src/cmd/workers.ts).
  const { supervise, serveAsWorker } = await import('./workers.js');
  if (cluster.isPrimary) supervise(cli.workers, cli.server);
  else await serveAsWorker(cli.server);
} else await serveOne(cli.server);

async function serveOne(opts: ServerOptions): Promise<void> {
  const { startServer } = await import('../server/index.js');
  const started = Date.now();
  try {
    const server = await startServer({ ...opts, log: (m) => process.stderr.write(`${m}\n`) });
    process.stdout.write(
      `orch-apiserver listening on ${server.url} (storage: ${server.backend.name}, ready in ${Date.now() - started} ms)\n` +
        `try: kubectl --kubeconfig ${server.kubeconfigPath} get namespaces\n`,
    );
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`orch-apiserver: ${signal}: draining and shutting down\n`);
      void server.shutdown().then(
        () => process.exit(0),
        (e) => {
          process.stderr.write(`orch-apiserver: shutdown failed: ${String(e)}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  } catch (e) {
    process.stderr.write(`orch-apiserver: ${(e as Error).message}\n`);
    process.exit(1);
  }
}
