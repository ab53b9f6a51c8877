/** `orch-apiserver` / `npm start`: flag parsing and wiring only. */
import { startServer } from '../server/index.js';
import { parseFlags, USAGE } from './apiserver-flags.js';

let opts;
try {
  opts = parseFlags(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`orch-apiserver: ${(e as Error).message}\n\n${USAGE}`);
  process.exit(1);
}
if (opts === 'help') {
  process.stdout.write(USAGE);
  process.exit(0);
}
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
