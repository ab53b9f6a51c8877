/**
 * A local etcd cluster of several members on loopback, for fault tests and `npm run cluster`: each member has
 * its own client and peer port and data dir under one directory; members can be stopped and started again
 * (same ports, same data) to take away and give back quorum.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdBinary, freePort, trackChild, untrackChild } from './etcd-process.js';

export interface EtcdMemberInfo {
  name: string;
  /** Client URL, e.g. http://127.0.0.1:40123 (what `--etcd-servers` lists). */
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
}

export interface EtcdClusterOptions {
  /** Members (default 3). */
  size?: number;
  /**
   * Where the members' data dirs and `cluster.json` (names and ports) live. A dir from an earlier run is
   * reused as it is: same ports, same data. Default: a temp dir, removed by stop().
   */
  dir?: string;
  /** Raft timing (defaults 100 ms / 1000 ms, etcd's own); a busy machine wants more slack. */
  heartbeatMs?: number;
  electionMs?: number;
  /** Called with each member's stderr lines (etcd logs at warn level). */
  onLog?: (member: string, line: string) => void;
}

export interface EtcdCluster {
  readonly dir: string;
  readonly members: readonly EtcdMemberInfo[];
  /** Every member's client URL, in member order. */
  readonly endpoints: string[];
  isRunning(index: number): boolean;
  /** Stops one member (SIGTERM, or SIGKILL like a crash); its data dir stays. */
  stopMember(index: number, how?: 'term' | 'kill'): Promise<void>;
  /** Starts a stopped member on its old ports and data; resolves once it answers on its client port. */
  startMember(index: number): Promise<void>;
  /** Resolves once every running member has a leader and serves reads (etcd's /health). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every member (SIGTERM, or SIGKILL when nothing needs a clean exit); removes a temp dir. */
  stop(how?: 'term' | 'kill'): Promise<void>;
}

interface ClusterLayout {
  token: string;
  members: { name: string; clientPort: number; peerPort: number }[];
}

const START_TIMEOUT_MS = 30_000;
const LAYOUT_FILE = 'cluster.json';

/** Starts (or resumes, for a dir that holds one) a cluster and waits until it is healthy. */
export async function startEtcdCluster(opts: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const bin = etcdBinary();
  if (!bin) throw new Error('etcd is not on PATH (Debian: apt-get install etcd-server)');
  const size = opts.size ?? 3;
  if (!Number.isInteger(size) || size < 1 || size > 9) throw new Error(`etcd cluster size must be 1 to 9, not ${size}`);
  // Fresh temp clusters get a second try: another process may take a probed port before etcd binds it.
  for (let attempt = 1; ; attempt++) {
    const temp = opts.dir === undefined;
    const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'orch-etcd-cluster-')));
    mkdirSync(dir, { recursive: true });
    const cluster = new LocalEtcdCluster(bin, dir, await layoutFor(dir, size), temp, opts);
    try {
      await Promise.all(cluster.members.map((_, i) => cluster.startMember(i)));
      await cluster.waitHealthy(START_TIMEOUT_MS);
      return cluster;
    } catch (e) {
      await cluster.stop();
      if (!temp || attempt >= 2) throw e;
    }
  }
}

/** The dir's saved layout, or a new one on free ports (saved for the next run). */
async function layoutFor(dir: string, size: number): Promise<ClusterLayout> {
  const file = join(dir, LAYOUT_FILE);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as ClusterLayout;
    if (saved.members.length !== size) {
      throw new Error(`${file} describes ${saved.members.length} members, not ${size}; use another dir`);
    }
    return saved;
  }
  const members: ClusterLayout['members'] = [];
  for (let i = 0; i < size; i++) members.push({ name: `member-${i}`, clientPort: await freePort(), peerPort: await freePort() });
  const layout = { token: `orch-${randomBytes(6).toString('hex')}`, members };
  writeFileSync(file, `${JSON.stringify(layout, null, 2)}\n`);
  return layout;
}

class LocalEtcdCluster implements EtcdCluster {
  readonly members: EtcdMemberInfo[];
  readonly endpoints: string[];
  private readonly children: (ChildProcess | undefined)[];
  private readonly logs: string[];

  constructor(
    private readonly bin: string,
    readonly dir: string,
    private readonly layout: ClusterLayout,
    private readonly temp: boolean,
    private readonly opts: EtcdClusterOptions,
  ) {
    this.members = layout.members.map((m) => ({
      name: m.name,
      clientUrl: `http://127.0.0.1:${m.clientPort}`,
      peerUrl: `http://127.0.0.1:${m.peerPort}`,
      dataDir: join(dir, m.name),
    }));
    this.endpoints = this.members.map((m) => m.clientUrl);
    this.children = this.members.map(() => undefined);
    this.logs = this.members.map(() => '');
  }

  isRunning(index: number): boolean {
    return this.children[index] !== undefined;
  }

  async startMember(index: number): Promise<void> {
    const m = this.member(index);
    if (this.children[index]) return;
    const initialCluster = this.members.map((x) => `${x.name}=${x.peerUrl}`).join(',');
    const args = [
      `--name=${m.name}`,
      `--data-dir=${m.dataDir}`,
      `--listen-client-urls=${m.clientUrl}`,
      `--advertise-client-urls=${m.clientUrl}`,
      `--listen-peer-urls=${m.peerUrl}`,
      `--initial-advertise-peer-urls=${m.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${this.layout.token}`,
      '--initial-cluster-state=new', // ignored once the data dir holds the cluster
      `--heartbeat-interval=${this.opts.heartbeatMs ?? 100}`,
      `--election-timeout=${this.opts.electionMs ?? 1000}`,
      '--logger=zap',
      '--log-outputs=stderr',
      '--log-level=warn',
    ];
    const child = spawn(this.bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    this.children[index] = child;
    trackChild(child);
    this.logs[index] = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.logs[index] = ((this.logs[index] ?? '') + chunk).slice(-4000);
      if (this.opts.onLog) for (const line of chunk.split('\n')) if (line.trim()) this.opts.onLog(m.name, line);
    });
    child.once('exit', () => {
      untrackChild(child);
      if (this.children[index] === child) this.children[index] = undefined;
    });
    child.unref();
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    // A restarted member cannot be healthy without a quorum, so "started" means "answers on its client port".
    const deadline = Date.now() + START_TIMEOUT_MS;
    while ((await probe(`${m.clientUrl}/health`)) === undefined) {
      if (this.children[index] !== child) throw new Error(`etcd ${m.name} exited during start:\n${this.logs[index]}`);
      if (Date.now() > deadline) throw new Error(`etcd ${m.name} did not listen in ${START_TIMEOUT_MS} ms:\n${this.logs[index]}`);
      await sleep(100);
    }
  }

  async stopMember(index: number, how: 'term' | 'kill' = 'term'): Promise<void> {
    this.member(index);
    const child = this.children[index];
    if (!child) return;
    this.children[index] = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(how === 'kill' ? 'SIGKILL' : 'SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async waitHealthy(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const running = this.members.filter((_, i) => this.isRunning(i));
      const answers = await Promise.all(running.map((m) => probe(`${m.clientUrl}/health`)));
      if (answers.every((a) => a?.status === 200 && a.body.includes('"true"'))) return;
      if (Date.now() > deadline) {
        const states = running.map((m, i) => `${m.name}: ${answers[i] ? `${answers[i]?.status} ${answers[i]?.body}` : 'no answer'}`);
        throw new Error(`etcd cluster not healthy in ${timeoutMs} ms (${states.join('; ')}):\n${this.logs.join('\n')}`);
      }
      await sleep(100);
    }
  }

  async stop(how: 'term' | 'kill' = 'term'): Promise<void> {
    await Promise.all(this.members.map((_, i) => this.stopMember(i, how)));
    if (this.temp) await rm(this.dir, { recursive: true, force: true });
  }

  private member(index: number): EtcdMemberInfo {
    const m = this.members[index];
    if (!m) throw new Error(`etcd cluster has no member ${index}`);
    return m;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One GET: the status and body, or undefined when nothing answers. */
function probe(url: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 3000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}
