/**
 * Running orchctl in tests: the real `bin/orchctl.js` as a process (what users run), or `runCli` in-process
 * with buffers (fast, for many cases). Both resolve to the exit code and the two output streams.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.js';

export const ORCHCTL_BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'bin', 'orchctl.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs `bin/orchctl.js args` (with `--kubeconfig kubeconfig` first when given). Never rejects on a non-zero exit. */
export function orchctlProcess(kubeconfig: string | undefined, args: string[], o: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const argv = [ORCHCTL_BIN, ...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...args];
    const child = execFile(process.execPath, argv, { env: o.env ?? process.env, cwd: o.cwd, timeout: o.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      if (err && code === -1) reject(new Error(`orchctl ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve({ code, stdout, stderr });
    });
    child.stdin?.end(o.input ?? '');
  });
}

/** Starts `bin/orchctl.js` and leaves it running (for `get -w`); the caller kills it. */
export function orchctlSpawn(kubeconfig: string, args: string[]): { child: ChildProcess; output: () => string; waitFor: (text: string, ms?: number) => Promise<void> } {
  const child = spawn(process.execPath, [ORCHCTL_BIN, '--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const waitFor = (text: string, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const tick = () => {
        if (out.includes(text)) return resolve();
        if (Date.now() - started > ms || child.exitCode !== null) return reject(new Error(`orchctl ${args.join(' ')}: "${text}" not printed; stdout:\n${out}\nstderr:\n${err}`));
        setTimeout(tick, 20);
      };
      tick();
    });
  return { child, output: () => out, waitFor };
}

/** Runs orchctl in this process through `runCli`, with buffers for its streams. */
export async function orchctlInProcess(kubeconfig: string | undefined, args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...(kubeconfig ? ['--kubeconfig', kubeconfig] : []), ...args], {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    readStdin: async () => o.input ?? '',
    stdinIsTTY: false,
    stdoutIsTTY: false,
    env: o.env ?? { HOME: '/nonexistent-home' },
  });
  return { code, stdout, stderr };
}
