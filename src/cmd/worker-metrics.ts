/**
 * `/metrics` with `--workers`: the worker that gets the scrape asks the supervisor, the supervisor asks
 * every serving worker (the asking one included) for its snapshot, and hands all of them back; the
 * asking worker combines them (prom-client's aggregation: counters and histograms summed, gauges by each
 * family's rule). A worker that does not answer in time is left out rather than holding the scrape.
 */
import type { Worker } from 'node:cluster';
import type { MetricSnapshot } from '../metrics/index.js';
import type { MetricsPeers } from '../server/metrics-setup.js';

export type MetricsMessage =
  | { orch: 'metrics-gather'; id: number }
  | { orch: 'metrics-collect'; id: string }
  | { orch: 'metrics-part'; id: string; part: MetricSnapshot[] }
  | { orch: 'metrics-parts'; id: number; parts: MetricSnapshot[][] };

/** How long the supervisor waits for the workers' snapshots. */
const COLLECT_TIMEOUT_MS = 2_000;
/** How long a worker waits for the supervisor's answer before answering with its own figures alone. */
const GATHER_TIMEOUT_MS = 4_000;

const isMetricsMessage = (m: unknown): m is MetricsMessage => typeof m === 'object' && m !== null && String((m as { orch?: unknown }).orch).startsWith('metrics-');

interface Gathering {
  requester: Worker;
  requestId: number;
  waiting: Set<Worker>;
  parts: MetricSnapshot[][];
  timer: NodeJS.Timeout;
}

/** Supervisor side: relays one scrape to every serving worker and the snapshots back. */
export class SupervisorMetricsRelay {
  private next = 1;
  private readonly open = new Map<string, Gathering>();

  constructor(private readonly serving: () => Iterable<Worker>) {}

  /** Handles a metrics message from `w`; false when the message is not one. */
  receive(w: Worker, m: unknown): boolean {
    if (!isMetricsMessage(m)) return false;
    if (m.orch === 'metrics-gather') this.start(w, m.id);
    else if (m.orch === 'metrics-part') {
      const g = this.open.get(m.id);
      if (g && g.waiting.delete(w)) {
        g.parts.push(m.part);
        if (g.waiting.size === 0) this.finish(m.id);
      }
    }
    return true;
  }

  /** A worker that exits answers nothing more. */
  forget(w: Worker): void {
    for (const [id, g] of this.open) if (g.waiting.delete(w) && g.waiting.size === 0) this.finish(id);
  }

  private start(requester: Worker, requestId: number): void {
    const id = `${this.next++}`;
    const waiting = new Set([...this.serving()].filter((x) => x.isConnected()));
    waiting.add(requester);
    const g: Gathering = { requester, requestId, waiting, parts: [], timer: setTimeout(() => this.finish(id), COLLECT_TIMEOUT_MS) };
    this.open.set(id, g);
    for (const x of waiting) x.send({ orch: 'metrics-collect', id } satisfies MetricsMessage, () => undefined);
  }

  private finish(id: string): void {
    const g = this.open.get(id);
    if (!g) return;
    this.open.delete(id);
    clearTimeout(g.timer);
    if (g.requester.isConnected()) g.requester.send({ orch: 'metrics-parts', id: g.requestId, parts: g.parts } satisfies MetricsMessage, () => undefined);
  }
}

/** Worker side: answers the supervisor's collections and asks it for everyone's snapshots. */
export function ipcMetricsPeers(): MetricsPeers {
  let next = 1;
  const waiting = new Map<number, (parts: MetricSnapshot[][] | undefined) => void>();
  const send = (m: MetricsMessage) => process.send?.(m, undefined, {}, () => undefined);
  process.on('message', (m: unknown) => {
    if (isMetricsMessage(m) && m.orch === 'metrics-parts') waiting.get(m.id)?.(m.parts);
  });
  return {
    answer(collect) {
      const onMessage = (m: unknown) => {
        if (!isMetricsMessage(m) || m.orch !== 'metrics-collect') return;
        void collect().then(
          (part) => send({ orch: 'metrics-part', id: m.id, part }),
          () => send({ orch: 'metrics-part', id: m.id, part: [] }),
        );
      };
      process.on('message', onMessage);
      return () => void process.off('message', onMessage);
    },
    gather() {
      const id = next++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => done(undefined), GATHER_TIMEOUT_MS);
        const done = (parts: MetricSnapshot[][] | undefined) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(parts);
        };
        waiting.set(id, done);
        send({ orch: 'metrics-gather', id });
      });
    },
  };
}
