/** `orch-controller-manager` / `npm run controller-manager`: flag parsing and wiring only. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveClientConfig } from '../client/config/index.js';
import { Client } from '../client/index.js';
import { ALL_CONTROLLERS, ControllerManager, controllerSettings, delegatedAuthorizer, startManagerServer, type RunningManagerServer } from '../controllers/index.js';
import { METRICS_CONTENT_TYPE } from '../metrics/index.js';
import { ensureServingCerts } from '../server/tls.js';
import { parseControllerManagerFlags, USAGE, type ControllerManagerCli } from './controller-manager-flags.js';

const NAME = 'orch-controller-manager';

function fail(msg: string): never {
  process.stderr.write(`${NAME}: ${msg}\n`);
  process.exit(1);
}

function readPem(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    return fail(`--${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
}

let cli: ControllerManagerCli | 'help';
try {
  cli = parseControllerManagerFlags(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`${NAME}: ${(e as Error).message}\n\n${USAGE}`);
  process.exit(1);
}
if (cli === 'help') {
  process.stdout.write(USAGE);
  process.exit(0);
}
await run(cli);

async function run(c: ControllerManagerCli): Promise<void> {
  let connection;
  try {
    connection = resolveClientConfig(c.kubeconfig !== undefined ? { kubeconfig: c.kubeconfig } : {}, process.env, { userAgent: NAME }).connection;
  } catch (e) {
    fail(`--kubeconfig: ${(e as Error).message}`);
  }
  const clusterSigning = c.clusterSigningCertFile && c.clusterSigningKeyFile ? { certPem: readPem('cluster-signing-cert-file', c.clusterSigningCertFile), keyPem: readPem('cluster-signing-key-file', c.clusterSigningKeyFile) } : undefined;
  const rootCaPem = c.rootCaFile ? readPem('root-ca-file', c.rootCaFile) : connection.caPem;
  const log = (m: string) => process.stderr.write(`${new Date().toISOString()} ${m}\n`);
  const manager = new ControllerManager({
    connection,
    descriptors: ALL_CONTROLLERS,
    controllers: c.controllers,
    leaderElection: c.leaderElection,
    useServiceAccountCredentials: c.useServiceAccountCredentials,
    controllerStartIntervalMs: c.controllerStartIntervalMs,
    settings: controllerSettings({ ...c.settings, ...(clusterSigning ? { clusterSigning } : {}), ...(rootCaPem !== undefined ? { rootCaPem } : {}) }),
    log,
  });

  let secure: RunningManagerServer | undefined;
  const reviewer = new Client(connection);
  if (c.securePort > 0) {
    // A throwaway self-signed serving certificate, as the reference makes when given none.
    const dir = mkdtempSync(join(tmpdir(), `${NAME}-`));
    try {
      const hosts = c.bindAddress === '0.0.0.0' || c.bindAddress === '::' ? [] : [c.bindAddress];
      const certs = await ensureServingCerts(dir, { hosts });
      secure = await startManagerServer({
        bindAddress: c.bindAddress,
        port: c.securePort,
        certPem: certs.certPem,
        keyPem: certs.keyPem,
        checks: () => manager.healthChecks(),
        metrics: () => manager.metrics.text(),
        metricsContentType: METRICS_CONTENT_TYPE,
        authorize: delegatedAuthorizer(reviewer),
      });
    } catch (e) {
      fail(`--secure-port: cannot serve on ${c.bindAddress}:${c.securePort}: ${(e as Error).message}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  manager.start();
  process.stdout.write(
    `${NAME}: controllers ${manager.enabled().join(', ') || '(none)'}; leader election ${c.leaderElection.leaderElect ? `on (${c.leaderElection.resourceNamespace}/${c.leaderElection.resourceName}, identity ${manager.identity})` : 'off'}` +
      (secure ? `; serving /healthz and /metrics on https://${c.bindAddress}:${secure.port}` : '') +
      '\n',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${NAME}: ${signal}: stopping controllers and releasing the lease`);
    void Promise.all([manager.stop(), secure?.close()]).then(
      () => {
        reviewer.close();
        process.exit(0);
      },
      (e: unknown) => fail(`shutdown failed: ${String(e)}`),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
