/**
 * Metrics wiring (spec 3.4, issue 20): the server's registry, the storage latency decorator, the scrape-time
 * sources (object counts, watch cache sizes, audit drops, authentication-config reloads) and the `/metrics`
 * answer, aggregated over every worker process when the server runs several (`--workers`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { aggregateSnapshots, ApiserverMetrics, checkShowHiddenVersion, METRICS_CONTENT_TYPE, type MetricSnapshot } from '../metrics/index.js';
import type { HistogramSeries } from '../metrics/metric.js';
import { ROOT } from '../registry/keys.js';
import type { Registry, ResourceType } from '../registry/index.js';
import { InstrumentedBackend, type Backend, type StorageCallHook, type StorageOperation } from '../storage/index.js';
import { sendBytes, type Res } from './http.js';

export interface MetricsOptions {
  /** `--show-hidden-metrics-for-version`: the previous release (`1.30`) shows the metrics hidden in this one. */
  showHiddenMetricsForVersion?: string;
  /**
   * The other processes of one server (`--workers`): `/metrics` answers with the sum of all of them. The
   * server answers their requests with `collect` and asks them with `gather` (cmd/workers.ts).
   */
  metricsPeers?: MetricsPeers;
}

export interface MetricsPeers {
  /** Serves this process's snapshot to the others; returns the function that stops serving. */
  answer(collect: () => Promise<MetricSnapshot[]>): () => void;
  /** Snapshots of every process, this one included; undefined when the others cannot be asked now. */
  gather(): Promise<MetricSnapshot[][] | undefined>;
}

/** Checked before anything is opened: an invalid flag value is a start-up error. */
export function createServerMetrics(opts: MetricsOptions, log: (msg: string) => void): ApiserverMetrics {
  const showHidden = checkShowHiddenVersion(opts.showHiddenMetricsForVersion);
  // The reference labels its reload metrics with a hash of the server's identity, not the identity itself.
  const apiserverIdHash = `sha256:${createHash('sha256').update(`apiserver-${randomUUID()}`).digest('hex')}`;
  return new ApiserverMetrics({ ...(showHidden ? { showHidden } : {}), log, apiserverIdHash });
}

/** The `resource` label of a type: `<plural>` for the core group, `<plural>.<group>` otherwise. */
export function resourceLabel(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}

/** Storage key (`core/pods`) to the resource label, for the storage latency family. */
export function storageKeyLabels(types: readonly ResourceType[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of types) if (!out.has(t.storageKey)) out.set(t.storageKey, resourceLabel(t));
  return out;
}

/** Keeps `labels` (storageKeyLabels) current while custom types are added: their storage gets its resource label. */
export function followStorageKeyLabels(registry: Registry, labels: Map<string, string>): () => void {
  return registry.onTypesChange(({ added }) => {
    for (const t of added) if (!labels.has(t.storageKey)) labels.set(t.storageKey, resourceLabel(t));
  });
}

/**
 * Times each storage operation into `etcd_request_duration_seconds` (the reference's name, whatever the
 * backend). Watches are streams, not timed. The key's storage identity is cut out of the key (no string is
 * built), and its series is found through the family's maps.
 */
export class TimedBackend extends InstrumentedBackend<number> {
  constructor(inner: Backend, metrics: ApiserverMetrics, labels: Map<string, string>) {
    super(inner, timingHook(metrics, labels));
  }
}

/** The state is the start time; the series is looked up once the call has settled. */
function timingHook(metrics: ApiserverMetrics, labels: Map<string, string>): StorageCallHook<number> {
  const series = (operation: StorageOperation, key: string): HistogramSeries => {
    let type = key;
    if (key.startsWith(ROOT)) {
      const groupEnd = key.indexOf('/', ROOT.length);
      const end = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
      type = key.slice(ROOT.length, end < 0 ? key.length : end);
    }
    return metrics.storageDurations.with(operation, labels.get(type) ?? type);
  };
  return {
    start: () => performance.now(),
    finish: (started, operation, key) => series(operation, key).observe((performance.now() - started) / 1000),
  };
}

/** Lost events of an audit backend that counts them (`droppedEvents`); 0 for one that does not. */
function droppedBy(sink: object): number {
  const n = (sink as { droppedEvents?: unknown }).droppedEvents;
  return typeof n === 'number' ? n : 0;
}

/** Connects the scrape-time families to the server's parts. */
export function connectMetricSources(
  metrics: ApiserverMetrics,
  parts: { registry: Registry; auditSinks?: readonly [plugin: string, sink: object][]; jwt?: { lastReloadTimestampSeconds: number | undefined } },
): void {
  const { registry } = parts;
  // One watch cache per storage identity (views of one resource share it): counted once.
  const cachedTypes = () => {
    const seen = new Map<string, ResourceType>();
    for (const t of registry.types) if (!seen.has(t.storageKey)) seen.set(t.storageKey, t);
    return [...seen.values()];
  };
  metrics.setSources({
    storageObjects: () => cachedTypes().map((t) => [resourceLabel(t), registry.reader(t).cacher.count(registry.reader(t).cacher.prefix)] as [string, number]),
    watchCacheSizes: () => cachedTypes().map((t) => [resourceLabel(t), registry.reader(t).cacher.eventCount] as [string, number]),
    ...(parts.auditSinks ? { auditDropped: () => (parts.auditSinks ?? []).map(([plugin, s]) => [plugin, droppedBy(s)] as [string, number]) } : {}),
    ...(parts.jwt
      ? {
          authenticationReload: () => {
            const seconds = parts.jwt?.lastReloadTimestampSeconds;
            return seconds === undefined ? undefined : { seconds, status: 'success' as const };
          },
        }
      : {}),
  });
}

/** The `/metrics` answer: this process's families, or every worker's combined. */
export async function serveMetrics(res: Res, metrics: ApiserverMetrics, peers: MetricsPeers | undefined): Promise<void> {
  const parts = peers ? await peers.gather() : undefined;
  const text = parts && parts.length > 0 ? await aggregateSnapshots(parts) : await metrics.registry.text();
  sendBytes(res, 200, METRICS_CONTENT_TYPE, Buffer.from(text));
}
