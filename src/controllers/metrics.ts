/**
 * The controller manager's /metrics families, named as the reference's: work queue depth, adds and retries
 * per queue, leader status per lease, and controller restarts. One registry per manager, so two managers
 * in one process (tests, two in-process servers) keep separate counts.
 */
import { WorkQueue, type WorkQueueOptions } from '../client/index.js';
import { MetricsRegistry, type Counter, type Gauge } from '../metrics/index.js';
import type { CounterSeries } from '../metrics/metric.js';

export class ControllerManagerMetrics {
  readonly registry: MetricsRegistry;
  private readonly depth: Gauge;
  private readonly adds: Counter;
  private readonly retries: Counter;
  private readonly leader: Gauge;
  private readonly restarts: Counter;
  /** Live queues, read at scrape time for their depth. */
  private readonly queues = new Map<string, Set<WorkQueue<unknown>>>();

  constructor(registry = new MetricsRegistry()) {
    this.registry = registry;
    this.depth = registry.gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      stability: 'ALPHA',
      collect: () => this.collectDepth(),
    });
    this.adds = registry.counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], stability: 'ALPHA' });
    this.retries = registry.counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], stability: 'ALPHA' });
    this.leader = registry.gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. \'name\' is the string used to identify the lease. Please make sure to group by name.',
      labelNames: ['name'],
      stability: 'ALPHA',
    });
    this.restarts = registry.counter({
      name: 'controller_manager_controller_restarts_total',
      help: 'Times a controller stopped with an error and was started again, by controller',
      labelNames: ['controller'],
      stability: 'ALPHA',
    });
  }

  setLeader(lease: string, leading: boolean): void {
    this.leader.with(lease).set(leading ? 1 : 0);
  }

  restarted(controller: string): void {
    this.restarts.with(controller).inc();
  }

  /** A work queue counted under `name`; it leaves the depth gauge when shut down. */
  queue<K>(name: string, opts: WorkQueueOptions<K> = {}): WorkQueue<K> {
    const q = new InstrumentedQueue<K>(opts, this.adds.with(name), this.retries.with(name), () => this.queues.get(name)?.delete(q as WorkQueue<unknown>));
    let set = this.queues.get(name);
    if (!set) this.queues.set(name, (set = new Set()));
    set.add(q as WorkQueue<unknown>);
    // A queue never used still shows depth 0, as the reference's do once created.
    this.depth.with(name).set(0);
    return q;
  }

  private collectDepth(): void {
    for (const [name, set] of this.queues) {
      let n = 0;
      for (const q of set) n += q.len();
      this.depth.with(name).set(n);
    }
  }

  text(): Promise<string> {
    return this.registry.text();
  }
}

/** Counts into the manager's families; the queue's own rules are unchanged. */
class InstrumentedQueue<K> extends WorkQueue<K> {
  constructor(opts: WorkQueueOptions<K>, private readonly addsSeries: CounterSeries, private readonly retriesSeries: CounterSeries, private readonly onShutDown: () => void) {
    super(opts);
  }

  override add(item: K): void {
    if (!this.isShuttingDown()) this.addsSeries.inc();
    super.add(item);
  }

  override addRateLimited(item: K): void {
    if (!this.isShuttingDown()) this.retriesSeries.inc();
    super.addRateLimited(item);
  }

  override shutDown(): void {
    this.onShutDown();
    super.shutDown();
  }
}
