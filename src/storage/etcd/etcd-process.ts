/**
 * A throwaway single-member etcd for tests: free loopback ports, a temp data dir, killed with the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface EtcdProcess {
  /** Client URL, e.g. http://127.0.0.1:40123. */
  readonly endpoint: string;
  /** Kills etcd and removes its data dir. */
  stop(): Promise<void>;
  /** Kills etcd (SIGKILL, like a crash) and starts it again on the same ports and data dir. */
  restart(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;

/** The etcd binary on PATH, or undefined. */
export function etcdBinary(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, 'etcd');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function etcdAvailable(): boolean {
  return etcdBinary() !== undefined;
}

/** A port nothing listens on right now (the kernel picks it; we release it for etcd). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Children still running, killed synchronously if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
/** Kills `child` if this process exits first; forget it with untrackChild once it has exited. */
export function trackChild(child: ChildProcess): void {
  installExitHook();
  running.add(child);
}
export function untrackChild(child: ChildProcess): void {
  running.delete(child);
}
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export async function startEtcd(): Promise<EtcdProcess> {
  const bin = etcdBinary();
  if (!bin) throw new Error('etcd is not on PATH (Debian: apt-get install etcd-server)');
  installExitHook();
  // Two attempts: another process may grab a port between our probe and etcd's bind.
  for (let attempt = 1; ; attempt++) {
    const dataDir = await mkdtemp(join(tmpdir(), 'orch-etcd-'));
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const instance = new EtcdInstance(bin, dataDir, clientPort, peerPort);
    try {
      await instance.start();
      return instance;
    } catch (e) {
      await instance.stop();
      if (attempt >= 2) throw e;
    }
  }
}

class EtcdInstance implements EtcdProcess {
  readonly endpoint: string;
  private child: ChildProcess | undefined;
  private log = '';

  constructor(
    private readonly bin: string,
    private readonly dataDir: string,
    private readonly clientPort: number,
    private readonly peerPort: number,
  ) {
    this.endpoint = `http://127.0.0.1:${clientPort}`;
  }

  async start(): Promise<void> {
    const peerUrl = `http://127.0.0.1:${this.peerPort}`;
    const name = `orch-test-${this.clientPort}`;
    const args = [
      `--name=${name}`,
      `--data-dir=${this.dataDir}`,
      `--listen-client-urls=${this.endpoint}`,
      `--advertise-client-urls=${this.endpoint}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=${name}=${peerUrl}`,
      `--initial-cluster-token=${name}`,
      '--initial-cluster-state=new', // ignored on restart: the data dir already holds the cluster
      '--logger=zap',
      '--log-outputs=stderr',
      '--log-level=warn',
    ];
    const child = spawn(this.bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    running.add(child);
    this.log = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (this.log = (this.log + chunk).slice(-4000)));
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) => {
        running.delete(child);
        reject(new Error(`etcd exited during start (code ${code}, signal ${signal}):\n${this.log}`));
      });
      child.once('error', (e) => reject(e));
    });
    exited.catch(() => undefined); // only observed while starting
    await Promise.race([this.waitHealthy(), exited]);
    // From here on the child must not keep the test process alive; the exit hook kills it.
    child.unref();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  private async waitHealthy(): Promise<void> {
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (!this.child || this.child.exitCode !== null) return; // the exit is reported by start()
      if (await healthy(`${this.endpoint}/health`)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`etcd did not become healthy in ${START_TIMEOUT_MS} ms:\n${this.log}`);
  }

  private async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    running.delete(child);
  }

  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    await this.start();
  }

  async stop(): Promise<void> {
    await this.kill('SIGTERM');
    await rm(this.dataDir, { recursive: true, force: true });
  }
}

/** GET /health answers {"health":"true"} once the member has a leader and serves requests. */
export function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"')));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
