/**
 * `orch-apiserver --workers=N`: a supervisor process and N worker processes (node:cluster). Each worker is a
 * full server (`startServer()`) on the same data dir and store, with its own watch caches fed by the storage
 * change feed; they share the listening port (cluster round-robin: the supervisor accepts each connection
 * and hands it to the next worker).
 *
 * - Worker 1 (slot 0) starts first and alone: on a first start it creates the data dir, certificates, tokens,
 *   service account key, admin.kubeconfig, default namespaces and RBAC roles. The server is ready when it
 *   listens; the other workers then start in parallel. Only slot 0 runs the in-process controllers and the
 *   history compaction.
 * - Slots are stable: a worker that dies is replaced in its slot (a new slot 0 runs the controllers again).
 *   Too many deaths in a short time stop everything (exit 1).
 * - SIGTERM/SIGINT to the supervisor: every worker gets SIGTERM and drains as a single server does; the
 *   supervisor exits when all have exited (0, or 1 if one of them failed).
 * - Commit notifications: after each group commit a worker tells the supervisor, which tells the others, and
 *   their change feeds read the new rows at once instead of at their next poll (CommitPeers).
 */
import cluster, { type Worker } from 'node:cluster';
import type { ServerOptions, RunningServer } from '../server/index.js';
import type { BackendSpec, CommitPeers } from '../storage/open.js';
import { SupervisorAuditLog, SupervisorLineWriter, type AuditLinesMessage } from './worker-audit.js';
import { ipcMetricsPeers, SupervisorMetricsRelay } from './worker-metrics.js';

/** The worker's slot, 0..N-1 (slot 0 = worker 1). */
const SLOT_ENV = 'ORCH_WORKER_SLOT';
/** Set for the first start of slot 0: it writes admin.kubeconfig (later starts would only rewrite it). */
const BOOTSTRAP_ENV = 'ORCH_WORKER_BOOTSTRAP';
/** This many deaths within the window stop the supervisor. */
const MAX_DEATHS = 5;
const DEATH_WINDOW_MS = 10_000;

type FromWorker =
  | { orch: 'ready'; url: string; storage: string; kubeconfigPath?: string }
  | { orch: 'failed'; message: string }
  | { orch: 'commit'; revision: number }
  | AuditLinesMessage;

const isMessage = (m: unknown): m is FromWorker => typeof m === 'object' && m !== null && typeof (m as { orch?: unknown }).orch === 'string';
const ignore = () => undefined;

// ---- supervisor ----

/** Runs the supervisor (in the cluster primary) until every worker has exited; then exits the process. */
export function supervise(count: number, opts: Pick<ServerOptions, 'auditLog' | 'auditPolicyFile'> = {}): void {
  const started = Date.now();
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_RR;
  const slots: (Worker | undefined)[] = Array.from({ length: count }, () => undefined);
  const slotOf = new Map<Worker, number>();
  const startError = new Map<Worker, string>();
  const ready = new Set<Worker>();
  const deaths: number[] = [];
  let url = '';
  let listening = false;
  let allServing = false;
  let stopping = false;
  let exitCode = 0;
  const say = (m: string) => process.stderr.write(`orch-apiserver: ${m}\n`);
  // The one writer of the audit log: workers send it their lines (worker-audit.ts).
  let auditLog: SupervisorAuditLog | undefined;
  try {
    if (opts.auditLog && opts.auditPolicyFile) auditLog = new SupervisorAuditLog(opts.auditLog, say);
  } catch (e) {
    say((e as Error).message);
    process.exit(1);
  }

  // `/metrics` of one worker answers for all of them (worker-metrics.ts).
  const metricsRelay = new SupervisorMetricsRelay(() => ready);
  const fork = (slot: number, bootstrap: boolean) => {
    const w = cluster.fork({ [SLOT_ENV]: String(slot), ...(bootstrap ? { [BOOTSTRAP_ENV]: '1' } : {}) });
    slots[slot] = w;
    slotOf.set(w, slot);
    w.on('error', ignore); // an IPC send to a worker that just died
    w.on('message', (m: unknown) => {
      if (!isMessage(m) || metricsRelay.receive(w, m)) return;
      if (m.orch === 'commit') {
        for (const other of slots) if (other && other !== w && other.isConnected()) other.send(m, ignore);
      } else if (m.orch === 'audit') auditLog?.receive(m, (ack) => w.isConnected() && w.send(ack, ignore));
      else if (m.orch === 'failed') startError.set(w, m.message);
      else if (m.orch === 'ready') onReady(w, slot, m);
    });
  };

  const onReady = (w: Worker, slot: number, m: Extract<FromWorker, { orch: 'ready' }>) => {
    ready.add(w);
    if (!listening) {
      listening = true;
      url = m.url;
      if (stopping) return;
      process.stdout.write(
        `orch-apiserver listening on ${m.url} (storage: ${m.storage}, ready in ${Date.now() - started} ms, ${count} workers)\n` +
          `try: kubectl --kubeconfig ${m.kubeconfigPath ?? '<data-dir>/admin.kubeconfig'} get namespaces\n`,
      );
      for (let s = 1; s < count; s++) fork(s, false);
      return;
    }
    if (m.url !== url) say(`worker ${slot + 1} listens on ${m.url}, not ${url}`);
    if (!allServing) {
      if (ready.size === count) {
        allServing = true;
        say(`all ${count} workers serving (${Date.now() - started} ms)`);
      }
    } else say(`worker ${slot + 1} (pid ${w.process.pid}) replaced and serving`);
  };

  const stopAll = (code: number) => {
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    for (const w of slots) w?.process.kill('SIGTERM');
    if (slots.every((w) => !w)) process.exit(exitCode);
  };

  cluster.on('exit', (w, code, signal) => {
    const slot = slotOf.get(w) ?? -1;
    slotOf.delete(w);
    ready.delete(w);
    metricsRelay.forget(w);
    const why = startError.get(w);
    startError.delete(w);
    if (slots[slot] === w) slots[slot] = undefined;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    if (stopping) {
      // Killed by SIGTERM/SIGINT itself: the signal came before the worker installed its handlers, so it was
      // not serving yet (a serving worker drains and exits 0).
      if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') {
        exitCode = 1;
        say(`worker ${slot + 1} (pid ${w.process.pid}) ${how} while shutting down`);
      }
      if (slots.every((x) => !x)) process.exit(exitCode);
      return;
    }
    if (!listening) {
      // Worker 1 could not start: report it as the single-process server would.
      say(why ?? `worker 1 ${how} before it was ready`);
      stopAll(1);
      return;
    }
    say(`worker ${slot + 1} (pid ${w.process.pid}) ${how}${why ? `: ${why}` : ''}; starting a replacement`);
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && (deaths[0] as number) <= now - DEATH_WINDOW_MS) deaths.shift();
    if (deaths.length >= MAX_DEATHS) {
      say(`${deaths.length} workers died within ${DEATH_WINDOW_MS / 1000} s; stopping`);
      stopAll(1);
      return;
    }
    fork(slot, false);
  });

  const onSignal = (signal: string) => {
    if (stopping) return;
    process.stdout.write(`orch-apiserver: ${signal}: draining and shutting down\n`);
    stopAll(0);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  fork(0, true);
}

// ---- worker ----

/** Runs one worker: a full server in its slot, reporting to the supervisor over IPC. */
export async function serveAsWorker(opts: ServerOptions): Promise<void> {
  const slot = Number(process.env[SLOT_ENV] ?? '0');
  const name = `worker ${slot + 1}`;
  let server: RunningServer | undefined;
  let stopping = false;
  const drain = (s: RunningServer) =>
    void s.shutdown().then(
      () => process.exit(0),
      (e) => {
        process.stderr.write(`orch-apiserver: ${name}: shutdown failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  // Installed before start-up: a signal during it (or the second one of a terminal's Ctrl-C, which reaches
  // the whole process group besides the supervisor's SIGTERM) must not kill the worker half-way.
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (server) drain(server);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const { startServer } = await import('../server/index.js');
  try {
    server = await startServer({
      ...opts,
      metricsPeers: ipcMetricsPeers(),
      storage: withPeers(opts.storage),
      ...(opts.auditLog ? { auditLogWriter: new SupervisorLineWriter((m, sent) => (process.send ? process.send(m, undefined, {}, sent) : (sent(new Error('no supervisor')), false))) } : {}),
      controllers: slot === 0 ? (opts.controllers ?? true) : false,
      // History compaction works on the shared store, so one worker does it for all.
      ...(slot === 0 ? {} : { history: { ...opts.history, compactIntervalMs: 0 } }),
      writeKubeconfig: opts.writeKubeconfig === true && process.env[BOOTSTRAP_ENV] === '1',
      log: (m) => process.stderr.write(`${name}: ${m}\n`),
    });
  } catch (e) {
    send({ orch: 'failed', message: (e as Error).message }, () => process.exit(1));
    return;
  }
  send({ orch: 'ready', url: server.url, storage: server.backend.name, ...(server.kubeconfigPath ? { kubeconfigPath: server.kubeconfigPath } : {}) });
  if (stopping) drain(server);
}

function send(m: FromWorker, done: () => void = ignore): void {
  if (process.send && process.connected) process.send(m, undefined, {}, () => done());
  else done();
}

function withPeers(storage: BackendSpec | undefined): BackendSpec | undefined {
  return storage?.type === 'sqlite' ? { ...storage, peers: ipcPeers() } : storage;
}

/** Commit notifications through the supervisor: one message per group commit. */
function ipcPeers(): CommitPeers {
  return {
    announce: (revision) => send({ orch: 'commit', revision }),
    subscribe(onPeerCommit) {
      const onMessage = (m: unknown) => {
        if (isMessage(m) && m.orch === 'commit') onPeerCommit(m.revision);
      };
      process.on('message', onMessage);
      return () => void process.off('message', onMessage);
    },
  };
}
