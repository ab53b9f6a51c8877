/**
 * Helpers of the orchctl tests of this family (auth, create, exec): orchctl run in-process through
 * `runCli` with buffered I/O, or as the real `bin/orchctl.js` process, and kubectl beside it.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** orchctl in this process, with `--kubeconfig` first; stdin and terminals as given. */
export async function orchctl(kubeconfig: string, args: string[], o: { stdin?: string; stdoutIsTTY?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--kubeconfig', kubeconfig, ...args], {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    readStdin: async () => o.stdin ?? '',
    stdinIsTTY: false,
    stdoutIsTTY: o.stdoutIsTTY ?? false,
    env: o.env ?? {},
  });
  return { code, stdout, stderr };
}

export const ORCHCTL_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orchctl.js');

/** A real process: `bin/orchctl.js` or `kubectl`, never rejecting; the exit code is in the result. */
export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv = process.env, stdin?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(file, args, { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end(stdin ?? '');
  });
}

export const orchctlProcess = (args: string[], env: NodeJS.ProcessEnv = process.env, stdin?: string) => runProcess(process.execPath, [ORCHCTL_BIN, ...args], env, stdin);
export const kubectlProcess = (kubeconfig: string, args: string[]) => runProcess('kubectl', ['--kubeconfig', kubeconfig, ...args]);
