/**
 * The controller manager: picks controllers by the `Controllers` list (spec 2.12), campaigns for the lease
 * when leader election is on, and while leading runs every chosen controller with the client of its
 * identity (its own ServiceAccount with --use-service-account-credentials) and the informers shared by that
 * identity. A controller that throws is started again after a growing pause; losing the lease stops every
 * controller and its informers, and the manager campaigns again.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { SYSTEM_NAMESPACE } from '../api/naming.js';
import { Client, LeaderElector, backoffDelay, stripManagedFields, type ClusterConnection, type InformerFactory } from '../client/index.js';
import { isControllerEnabled } from '../config/controller-names.js';
import type { ControllerContext, ControllerDescriptor, ControllerManagerSettings } from './contract.js';
import { ControllerManagerMetrics } from './metrics.js';
import { ensureServiceAccount, serviceAccountConnection } from './service-account-credentials.js';

export interface ManagerLeaderElection {
  leaderElect: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ControllerManagerOptions {
  /** The manager's own connection (and the controllers' unless useServiceAccountCredentials). */
  connection: ClusterConnection;
  /** Every controller this manager knows (src/controllers/registry.ts); `controllers` picks among them. */
  descriptors: readonly ControllerDescriptor[];
  /** The normalized `--controllers` list (config/controller-names.ts); default `*`. */
  controllers?: readonly string[];
  leaderElection: ManagerLeaderElection;
  /** The lease holder identity; default `<hostname>_<uuid>`, as the reference. */
  identity?: string;
  useServiceAccountCredentials?: boolean;
  settings: ControllerManagerSettings;
  /** `Generic.ControllerStartInterval`: pause between starting two controllers. */
  controllerStartIntervalMs?: number;
  /** Pause before restarting a failed controller: doubles from `initialMs` up to `maxMs`. */
  restartBackoff?: { initialMs: number; maxMs: number };
  metrics?: ControllerManagerMetrics;
  log?: (msg: string) => void;
  now?: () => number;
}

/** What /healthz shows for one controller. */
interface ControllerState {
  running: boolean;
  /** Set while waiting to be started again after an error. */
  failure?: string;
  restarts: number;
}

const DEFAULT_RESTART = { initialMs: 1000, maxMs: 60_000 };
/** How long past its lease duration a leader may go without renewing before /healthz fails (the reference's 20 s). */
export const LEADER_HEALTH_TOLERANCE_MS = 20_000;

export class ControllerManager {
  readonly identity: string;
  readonly metrics: ControllerManagerMetrics;
  private readonly root: Client;
  private readonly log: (msg: string) => void;
  private readonly chosen: ControllerDescriptor[];
  private readonly states = new Map<string, ControllerState>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private leading = false;
  private electionFailure: string | undefined;
  private leaderName = '';
  /** The current campaign's elector (its renewals decide the leaderElection health check). */
  private elector: LeaderElector | undefined;

  constructor(private readonly o: ControllerManagerOptions) {
    this.identity = o.identity ?? `${hostname()}_${randomUUID()}`;
    this.metrics = o.metrics ?? new ControllerManagerMetrics();
    this.log = o.log ?? (() => undefined);
    this.root = new Client(o.connection);
    setMaxListeners(0, this.stopping.signal);
    const list = o.controllers ?? ['*'];
    this.chosen = o.descriptors.filter((d) => isControllerEnabled(list, d.name));
    for (const d of this.chosen) this.states.set(d.name, { running: false, restarts: 0 });
  }

  /** Names of the controllers this manager runs while leading. */
  enabled(): string[] {
    return this.chosen.map((d) => d.name);
  }

  /** Controllers running now (none unless leading). */
  running(): string[] {
    return [...this.states].filter(([, s]) => s.running).map(([n]) => n);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** The lease holder last seen ('' before any). */
  leader(): string {
    return this.leaderName;
  }

  /** Starts campaigning (or, without leader election, the controllers); returns at once. */
  start(): void {
    if (this.loop) return;
    this.metrics.setLeader(this.o.leaderElection.resourceName, false);
    this.loop = this.campaign().catch((e: unknown) => {
      this.electionFailure = e instanceof Error ? e.message : String(e);
      this.log(`controller manager: leader election stopped: ${this.electionFailure}`);
    });
  }

  /** Stops every controller, releases the lease, and closes the clients. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    this.root.close();
  }

  /** Health checks by name (`leaderElection` and one per chosen controller): each throws when failing. */
  healthChecks(): { name: string; check: () => void }[] {
    const checks = [] as { name: string; check: () => void }[];
    if (this.o.leaderElection.leaderElect) {
      checks.push({
        name: 'leaderElection',
        check: () => {
          if (this.electionFailure) throw new Error(`leader election stopped: ${this.electionFailure}`);
          this.elector?.checkHealth(LEADER_HEALTH_TOLERANCE_MS);
        },
      });
    }
    for (const d of this.chosen) {
      checks.push({
        name: d.name,
        check: () => {
          const s = this.states.get(d.name);
          if (s?.failure) throw new Error(`failed, restarting (${s.restarts} restarts so far): ${s.failure}`);
        },
      });
    }
    return checks;
  }

  private async campaign(): Promise<void> {
    const stop = this.stopping.signal;
    const le = this.o.leaderElection;
    if (!le.leaderElect) {
      this.setLeading(true);
      await this.lead(stop);
      this.setLeading(false);
      return;
    }
    while (!stop.aborted) {
      let led: Promise<void> | undefined;
      const elector = new LeaderElector({
        client: this.root,
        resourceLock: le.resourceLock,
        resourceName: le.resourceName,
        resourceNamespace: le.resourceNamespace,
        identity: this.identity,
        leaseDurationMs: le.leaseDurationMs,
        renewDeadlineMs: le.renewDeadlineMs,
        retryPeriodMs: le.retryPeriodMs,
        callbacks: {
          onStartedLeading: (signal) => {
            this.log(`controller manager: ${this.identity} became leader of ${le.resourceNamespace}/${le.resourceName}`);
            this.setLeading(true);
            led = this.lead(signal);
          },
          onStoppedLeading: () => {
            this.setLeading(false);
            if (!stop.aborted) this.log(`controller manager: ${this.identity} lost the lease ${le.resourceNamespace}/${le.resourceName}; controllers stopped`);
          },
          onNewLeader: (id) => {
            this.leaderName = id;
            if (id !== this.identity) this.log(`controller manager: the leader is ${id}`);
          },
        },
      });
      this.elector = elector;
      await elector.run(stop);
      // Everything started while leading has stopped before another campaign (or the end).
      await led;
    }
  }

  private setLeading(on: boolean): void {
    this.leading = on;
    this.metrics.setLeader(this.o.leaderElection.resourceName, on);
  }

  /**
   * Runs the chosen controllers until `signal` aborts; returns once they and their informers stopped. As in
   * the reference, the informers are the manager's own (one list-watch per resource for all controllers)
   * and a controller's service account is used for its API calls, so its role need not grant reads.
   */
  private async lead(signal: AbortSignal): Promise<void> {
    setMaxListeners(0, signal); // every controller, informer and pause listens for the end of leadership
    // Controllers never read managed fields: caches without them hold a fraction of the memory.
    const informers = this.root.informerFactory({ transform: stripManagedFields });
    informers.start(signal);
    const clients = new Map<string, Client>();
    const clientFor = (d: ControllerDescriptor) => {
      if (!this.o.useServiceAccountCredentials) return this.root;
      let c = clients.get(d.serviceAccountName);
      if (!c) clients.set(d.serviceAccountName, (c = new Client(serviceAccountConnection(this.o.connection, this.root, SYSTEM_NAMESPACE, d.serviceAccountName))));
      return c;
    };
    const runs: Promise<void>[] = [];
    for (const [i, d] of this.chosen.entries()) {
      if (signal.aborted) break;
      if (i > 0 && this.o.controllerStartIntervalMs) await pause(this.o.controllerStartIntervalMs, signal);
      runs.push(this.supervise(d, () => ({ client: clientFor(d), informers }), signal));
    }
    await Promise.all(runs);
    await informers.stop();
    for (const c of clients.values()) c.close();
  }

  /** Runs one controller, starting it again after an error (or an early return) until `signal` aborts. */
  private async supervise(d: ControllerDescriptor, identity: () => { client: Client; informers: InformerFactory }, signal: AbortSignal): Promise<void> {
    const state = this.states.get(d.name) as ControllerState;
    const backoff = this.o.restartBackoff ?? DEFAULT_RESTART;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (this.o.useServiceAccountCredentials) await ensureServiceAccount(this.root, SYSTEM_NAMESPACE, d.serviceAccountName, signal);
        const { client, informers } = identity();
        const ctx: ControllerContext = {
          client,
          informers,
          signal,
          log: (m) => this.log(`${d.name}: ${m}`),
          now: this.o.now ?? Date.now,
          settings: this.o.settings,
          newQueue: (opts) => this.metrics.queue(opts?.name ?? d.name, opts),
        };
        state.running = true;
        state.failure = undefined;
        await d.run(ctx);
        if (signal.aborted) break;
        throw new Error('returned before the manager stopped it');
      } catch (e) {
        if (signal.aborted) break;
        failures++;
        state.restarts++;
        state.failure = e instanceof Error ? e.message : String(e);
        this.metrics.restarted(d.name);
        const wait = backoffDelay({ initialMs: backoff.initialMs, factor: 2, capMs: backoff.maxMs }, Math.min(failures - 1, 30));
        this.log(`${d.name}: stopped with an error (${state.failure}); starting it again in ${wait} ms`);
        state.running = false;
        await pause(wait, signal);
      } finally {
        state.running = false;
      }
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
