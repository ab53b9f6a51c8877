/**
 * `npm run cluster -- [--dir D] [--servers 3]`: a three-member etcd cluster on loopback and several
 * `orch-apiserver` processes on it, each serving every request. The servers share one data dir (CA, serving
 * certificate, admin token, service-account key), so one kubeconfig works against any of them. Ctrl-C stops
 * everything; with --dir the etcd data and credentials are kept and a later run resumes them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { kubeconfigYaml } from '../src/server/kubeconfig.js';
import { startEtcdCluster, type EtcdCluster } from '../src/storage/etcd/etcd-cluster-process.js';

const BIN = new URL('../bin/orch-apiserver.js', import.meta.url).pathname;

interface ApiServer {
  child: ChildProcess;
  url: string;
}

const { values } = parseArgs({
  options: { dir: { type: 'string' }, servers: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  strict: true,
});
if (values.help) {
  process.stdout.write('usage: npx tsx scripts/etcd-cluster.ts [--dir D] [--servers 3]\n');
  process.exit(0);
}
const count = Number(values.servers ?? 3);
if (!Number.isInteger(count) || count < 1 || count > 9) {
  process.stderr.write(`--servers: expected 1 to 9, not ${JSON.stringify(values.servers)}\n`);
  process.exit(1);
}
const temp = values.dir === undefined;
const dir = values.dir ? resolve(values.dir) : mkdtempSync(join(tmpdir(), 'orch-cluster-'));
mkdirSync(dir, { recursive: true });

const say = (m: string) => process.stderr.write(`cluster: ${m}\n`);
const servers: ApiServer[] = [];
let etcd: EtcdCluster | undefined;
let stopping = false;

async function stopAll(code: number): Promise<never> {
  stopping = true;
  say('stopping');
  await Promise.all(servers.map((s) => stopChild(s.child)));
  await etcd?.stop();
  if (temp) rmSync(dir, { recursive: true, force: true });
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  etcd = await startEtcdCluster({ dir: join(dir, 'etcd') });
  say(`etcd members: ${etcd.endpoints.join(' ')}`);
  const dataDir = join(dir, 'apiserver');
  // The first server creates the CA, certificates and tokens alone; the others then only read them.
  servers.push(await startServer(dataDir, etcd.endpoints, 1));
  servers.push(...(await Promise.all(Array.from({ length: count - 1 }, (_, i) => startServer(dataDir, etcd!.endpoints, i + 2)))));
  const kubeconfig = writeKubeconfig(dataDir, servers[0]!.url, join(dir, 'cluster.kubeconfig'));
  process.stdout.write(
    `${servers.map((s, i) => `apiserver ${i + 1}: ${s.url}`).join('\n')}\n` +
      `etcd: ${etcd.endpoints.join(',')}\n` +
      `kubeconfig: ${kubeconfig}\n` +
      `try: kubectl --kubeconfig ${kubeconfig} get namespaces\n` +
      `     kubectl --kubeconfig ${kubeconfig} --server ${servers[servers.length - 1]!.url} get namespaces\n` +
      'Ctrl-C stops everything\n',
  );
} catch (e) {
  say(`failed: ${(e as Error).message}`);
  await stopAll(1);
}

/** Starts one server on a free port and resolves its URL once it listens. */
function startServer(dataDir: string, endpoints: string[], n: number): Promise<ApiServer> {
  const args = [
    BIN,
    '--secure-port=0',
    `--data-dir=${dataDir}`,
    '--storage-backend=etcd',
    `--etcd-servers=${endpoints.join(',')}`,
    '--shutdown-delay-duration=0s',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  createInterface({ input: child.stderr! }).on('line', (l) => say(`apiserver ${n}: ${l}`));
  return new Promise((resolveStart, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m) resolveStart({ child, url: m[1]! });
    });
    child.once('exit', (code, signal) => {
      reject(new Error(`apiserver ${n} exited (${code ?? signal})`));
      if (!stopping) {
        say(`apiserver ${n} exited (${code ?? signal}); stopping the rest`);
        void stopAll(1);
      }
    });
  });
}

/** One admin kubeconfig (the shared CA and token) for the first server; `--server` picks another. */
function writeKubeconfig(dataDir: string, url: string, file: string): string {
  const written = parse(readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8'));
  const caCertPem = Buffer.from(written.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
  const user = written.users[0];
  writeFileSync(file, kubeconfigYaml({ server: url, caCertPem, user: user.name, token: user.user.token }), { mode: 0o600 });
  return file;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}
