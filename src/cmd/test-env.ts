/**
 * `orch-test-env`: API servers for test suites in any language. Starts N in-process servers, prints their
 * kubeconfigs (or writes them, or prints KUBECONFIG lines for a shell), and serves until SIGINT/SIGTERM.
 * Flag parsing is pure (parseTestEnvFlags); every flag problem is an Error naming the flag.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NAMINGS, type Naming } from '../api/naming.js';
import { kubeconfigYaml } from '../server/kubeconfig.js';
import type { RunningServer } from '../server/index.js';

export interface TestEnvFlags {
  servers: number;
  naming: Naming;
  storage: 'memory' | 'sqlite';
  writeKubeconfig?: string;
  printEnv: boolean;
}

export const TEST_ENV_USAGE = `usage: orch-test-env [flags]

Starts API servers for tests and serves until interrupted (SIGINT or SIGTERM).

  --servers N               how many servers (default 1, at most 64)
  --naming k8s|orch         identifier spelling (default k8s, what existing clients expect)
  --storage memory|sqlite   store of each server (default memory)
  --write-kubeconfig DIR    write server-<i>.kubeconfig files into DIR instead of printing them
  --print-env               print KUBECONFIG lines for a shell (files go to --write-kubeconfig DIR or a temp dir)
  -h, --help                this text

Output ends with a line "# ready" once every server serves.
`;

const MAX_SERVERS = 64;

export function parseTestEnvFlags(argv: readonly string[]): TestEnvFlags | 'help' {
  const flags: TestEnvFlags = { servers: 1, naming: 'k8s', storage: 'memory', printEnv: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const value = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name}: a value is required`);
      return next;
    };
    switch (name) {
      case '--servers': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > MAX_SERVERS) throw new Error(`--servers: ${JSON.stringify(v)} must be a whole number from 1 to ${MAX_SERVERS}`);
        flags.servers = Number(v);
        break;
      }
      case '--naming': {
        const v = value();
        if (!(NAMINGS as readonly string[]).includes(v)) throw new Error(`--naming: ${JSON.stringify(v)} must be one of ${NAMINGS.join(', ')}`);
        flags.naming = v as Naming;
        break;
      }
      case '--storage': {
        const v = value();
        if (v !== 'memory' && v !== 'sqlite') throw new Error(`--storage: ${JSON.stringify(v)} must be memory or sqlite`);
        flags.storage = v;
        break;
      }
      case '--write-kubeconfig': {
        const v = value();
        if (v === '') throw new Error('--write-kubeconfig: a folder is required');
        flags.writeKubeconfig = v;
        break;
      }
      case '--print-env':
        if (eq >= 0) throw new Error('--print-env: takes no value');
        flags.printEnv = true;
        break;
      default:
        throw new Error(`${name}: unknown flag`);
    }
  }
  return flags;
}

/** A value a POSIX shell reads back as is. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface TestEnvIo {
  out(text: string): void;
  err(text: string): void;
}

/** Starts the servers and writes what the flags ask for; resolves with a function that stops everything. */
export async function runTestEnv(flags: TestEnvFlags, io: TestEnvIo): Promise<() => Promise<void>> {
  const { startServer } = await import('../server/index.js');
  const work = mkdtempSync(join(tmpdir(), 'orch-test-env-'));
  const servers: RunningServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.close()));
    rmSync(work, { recursive: true, force: true });
  };
  try {
    for (let i = 1; i <= flags.servers; i++) {
      const dataDir = join(work, `server-${i}`);
      const storage = flags.storage === 'sqlite' ? { type: 'sqlite' as const, path: join(dataDir, 'orch.db') } : { type: 'memory' as const };
      servers.push(await startServer({ port: 0, dataDir, storage, naming: flags.naming }));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const configs = servers.map((s) => kubeconfigYaml({ server: s.url, caCertPem: s.caCertPem, user: 'admin', token: s.adminToken }));
  let text = '';
  if (flags.writeKubeconfig !== undefined || flags.printEnv) {
    const dir = flags.writeKubeconfig !== undefined ? resolve(flags.writeKubeconfig) : join(work, 'kubeconfigs');
    mkdirSync(dir, { recursive: true });
    const paths = configs.map((c, i) => {
      const path = join(dir, `server-${i + 1}.kubeconfig`);
      writeFileSync(path, c, { mode: 0o600 });
      return path;
    });
    if (flags.printEnv) {
      text += `KUBECONFIG=${shellQuote(paths[0] as string)}\n`;
      paths.forEach((p, i) => (text += `KUBECONFIG_${i + 1}=${shellQuote(p)}\n`));
    } else paths.forEach((p, i) => (text += `# server ${i + 1}: ${servers[i]?.url} kubeconfig ${p}\n`));
  } else {
    configs.forEach((c, i) => (text += `${i > 0 ? '---\n' : ''}# server ${i + 1}: ${servers[i]?.url}\n${c}`));
  }
  io.out(`${text}# ready\n`);
  io.err(`orch-test-env: ${servers.length} server(s) ready (naming ${flags.naming}, storage ${flags.storage}); stop with SIGINT or SIGTERM\n`);
  return stop;
}

/** The command: parse, run, stop cleanly on a signal. */
export async function main(argv: readonly string[]): Promise<void> {
  let flags: TestEnvFlags | 'help';
  try {
    flags = parseTestEnvFlags(argv);
  } catch (e) {
    process.stderr.write(`orch-test-env: ${(e as Error).message}\n\n${TEST_ENV_USAGE}`);
    process.exit(1);
  }
  if (flags === 'help') {
    process.stdout.write(TEST_ENV_USAGE);
    return;
  }
  let stop: () => Promise<void>;
  try {
    stop = await runTestEnv(flags, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
  } catch (e) {
    process.stderr.write(`orch-test-env: ${(e as Error).message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`orch-test-env: ${signal}: stopping\n`);
    stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`orch-test-env: stopping failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
}
