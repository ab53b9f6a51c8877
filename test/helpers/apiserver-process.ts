import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** Real `orch-apiserver` processes for integration tests; `stopAll` in an `after` hook cleans up. */
export const APISERVER_BIN = fileURLToPath(new URL('../../bin/orch-apiserver.js', import.meta.url));

const children: ChildProcess[] = [];
const groupLeaders = new WeakSet<ChildProcess>();
const dirs: string[] = [];

export function tempDir(prefix = 'orch-proc-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Kills every process started here (whole process group when detached) and removes the temp dirs. */
export function stopAll(): void {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    try {
      if (groupLeaders.has(c)) process.kill(-c.pid!, 'SIGKILL');
      else c.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
}

export interface Target {
  url: string;
  caCertPem: string;
  adminToken: string;
}

export interface StartedServer {
  child: ChildProcess;
  target: Target;
  port: number;
  kubeconfig: string;
  exited: Promise<number | null>;
  stdout: string[];
  /** Resolves with the first stderr line (already seen or still to come) matching `re`. */
  stderrLine(re: RegExp, timeoutMs?: number): Promise<string>;
  stderr(): string;
}

export interface StartOptions {
  /** The server leads its own process group (as in a terminal), so `-pid` signals it and its workers. */
  processGroup?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Starts `orch-apiserver` (on a free port unless args name `--secure-port`) and waits for its kubeconfig line. */
export async function startApiserver(args: string[], opts: StartOptions = {}): Promise<StartedServer> {
  const portArgs = args.some((a) => a.startsWith('--secure-port=')) ? [] : ['--secure-port=0'];
  const child = spawn(process.execPath, [APISERVER_BIN, ...portArgs, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.processGroup === true,
    env: opts.env ?? process.env,
  });
  if (opts.processGroup) groupLeaders.add(child);
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const errLines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stderr! }).on('line', (l) => {
    errLines.push(l);
    waiters.forEach((w) => w());
  });
  const stderrLine = (re: RegExp, timeoutMs = 10_000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const hit = errLines.find((l) => re.test(l));
        if (!hit) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no stderr line matching ${re} within ${timeoutMs} ms:\n${errLines.join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  let url = '';
  const stdout: string[] = [];
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      stdout.push(l);
      const m = /listening on (\S+)/.exec(l);
      if (m) url = m[1]!;
      const k = /--kubeconfig (\S+)/.exec(l);
      if (k) resolve(k[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${errLines.join('\n')}`)));
  });
  return {
    child,
    target: targetOf(kubeconfig, url),
    port: Number(new URL(url).port),
    kubeconfig,
    exited,
    stdout,
    stderrLine,
    stderr: () => errLines.join('\n'),
  };
}

/** The URL, CA and admin token a server's admin.kubeconfig names (the URL may be overridden). */
export function targetOf(kubeconfigPath: string, url?: string): Target {
  const cfg = parse(readFileSync(kubeconfigPath, 'utf8'));
  return {
    url: url ?? cfg.clusters[0].cluster.server,
    caCertPem: Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
    adminToken: cfg.users[0].user.token as string,
  };
}

/** Runs the binary expecting a start-up failure; resolves its stderr. */
export async function failsToStart(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [APISERVER_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(code, 1, stderr);
  return stderr;
}

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
