/**
 * The API server's metric families (names, labels, buckets and classes of the reference release 1.31) and
 * the small recording calls the request path uses. Families read from server state (object counts, watch
 * cache sizes, audit drops, reload times) are filled at scrape time through `collect` hooks instead.
 */
import { SYSTEM_NAMESPACE } from '../api/naming.js';
import { exponentialBuckets, type Counter, type CounterSeries, type Gauge, type GaugeSeries, type Histogram, type HistogramSeries } from './metric.js';
import { MetricsRegistry, type MetricsRegistryOptions } from './registry.js';

/** Request latency buckets of `apiserver_request_duration_seconds` and of the storage latency family. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
export const WEBHOOK_DURATION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
export const WATCH_EVENT_SIZE_BUCKETS = exponentialBuckets(1024, 2, 8);
export const AUTHENTICATION_DURATION_BUCKETS = exponentialBuckets(0.001, 2, 15);

/** The `component` label of requests this server answers. */
const COMPONENT = 'apiserver';

/** What a request is, as its metric labels need it (filled from the request info). */
export interface RequestLabels {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
}

/** The series a watch records its events in, found once per watch. */
export interface WatchSeries {
  events: CounterSeries;
  sizes: HistogramSeries;
  watchers: GaugeSeries;
}

/** Scrape-time sources the server fills in (server/metrics-setup.ts). */
export interface MetricSources {
  /** Objects per resource (`resource` label as `<plural>.<group>`). */
  storageObjects?(): Iterable<[resource: string, count: number]>;
  /** Events each watch cache holds. */
  watchCacheSizes?(): Iterable<[resource: string, size: number]>;
  /** Requests in progress by kind (`readOnly`, `mutating`): the most seen since the last scrape. */
  inflight?(): { readOnly: number; mutating: number };
  /** Audit events lost, by backend (`plugin` label). */
  auditDropped?(): Iterable<[plugin: string, dropped: number]>;
  /** Seconds since the epoch of the last automatic authentication-config reload, and its outcome. */
  authenticationReload?(): { seconds: number; status: 'success' | 'failure' } | undefined;
}

export class ApiserverMetrics {
  readonly registry: MetricsRegistry;
  readonly requests: Counter;
  readonly requestDurations: Histogram;
  readonly inflight: Gauge;
  readonly longRunning: Gauge;
  readonly registeredWatchers: Gauge;
  readonly watchEvents: Counter;
  readonly watchEventSizes: Histogram;
  readonly storageObjects: Gauge;
  readonly storageDurations: Histogram;
  readonly watchCacheCapacity: Gauge;
  readonly auditEvents: Counter;
  readonly auditErrors: Counter;
  readonly authenticationAttempts: Counter;
  readonly authenticationDurations: Histogram;
  readonly authenticatedUsers: Counter;
  readonly webhookDurations: Histogram;
  readonly deprecatedApis: Gauge;
  readonly authenticationReload: Gauge;
  private sources: MetricSources = {};

  constructor(opts: MetricsRegistryOptions & { apiserverIdHash?: string } = {}) {
    const r = (this.registry = new MetricsRegistry(opts));
    const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    this.requests = r.counter({ name: 'apiserver_request_total', stability: 'STABLE', labelNames: [...requestLabels, 'code'], help: 'Requests answered, by verb, dry run, group, version, resource, subresource, scope, component and HTTP status code.' });
    this.requestDurations = r.histogram({ name: 'apiserver_request_duration_seconds', stability: 'STABLE', labelNames: requestLabels, buckets: REQUEST_DURATION_BUCKETS, help: 'How long requests took to answer in seconds, by verb, dry run, group, version, resource, subresource, scope and component.' });
    this.inflight = r.gauge({
      name: 'apiserver_current_inflight_requests',
      stability: 'STABLE',
      labelNames: ['request_kind'],
      help: 'Highest number of requests in progress since the previous scrape, by kind (readOnly or mutating).',
      collect: () => {
        const now = this.sources.inflight?.();
        if (!now) return;
        this.inflight.with('readOnly').set(now.readOnly);
        this.inflight.with('mutating').set(now.mutating);
      },
    });
    this.longRunning = r.gauge({ name: 'apiserver_longrunning_requests', stability: 'STABLE', labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'], help: 'Long-running requests (watches) open now, by verb, group, version, resource, subresource, scope and component.' });
    this.registeredWatchers = r.gauge({ name: 'apiserver_registered_watchers', stability: 'ALPHA', labelNames: ['group', 'version', 'kind'], help: 'Watches open now, by group, version and kind.' });
    this.watchEvents = r.counter({ name: 'apiserver_watch_events_total', stability: 'ALPHA', labelNames: ['group', 'version', 'kind'], help: 'Events sent to watch clients, by group, version and kind.' });
    this.watchEventSizes = r.histogram({ name: 'apiserver_watch_events_sizes', stability: 'ALPHA', labelNames: ['group', 'version', 'kind'], buckets: WATCH_EVENT_SIZE_BUCKETS, help: 'Sizes in bytes of the events sent to watch clients, by group, version and kind.' });
    this.storageObjects = r.gauge({
      name: 'apiserver_storage_objects',
      stability: 'STABLE',
      labelNames: ['resource'],
      aggregator: 'max', // every worker sees the same store
      help: 'Objects stored at the last check, by resource.',
      collect: () => this.refill(this.storageObjects, this.sources.storageObjects?.()),
    });
    this.storageDurations = r.histogram({ name: 'etcd_request_duration_seconds', stability: 'ALPHA', labelNames: ['operation', 'type'], buckets: REQUEST_DURATION_BUCKETS, help: 'How long storage operations took in seconds, by operation and resource type (whatever the storage backend).' });
    this.watchCacheCapacity = r.gauge({
      name: 'apiserver_watch_cache_capacity',
      stability: 'ALPHA',
      labelNames: ['resource'],
      help: 'Events the watch cache holds for resumable watches, by resource.',
      collect: () => this.refill(this.watchCacheCapacity, this.sources.watchCacheSizes?.()),
    });
    this.auditEvents = r.counter({ name: 'apiserver_audit_event_total', stability: 'ALPHA', help: 'Audit events generated and handed to the audit backends.' });
    this.auditErrors = r.counter({
      name: 'apiserver_audit_error_total',
      stability: 'ALPHA',
      labelNames: ['plugin'],
      help: 'Audit events that a backend failed to write, by backend.',
      collect: () => {
        const dropped = this.sources.auditDropped?.();
        if (!dropped) return;
        this.auditErrors.clear(); // the backends keep the totals
        for (const [plugin, n] of dropped) this.auditErrors.with(plugin).inc(n);
      },
    });
    this.authenticationAttempts = r.counter({ name: 'authentication_attempts', stability: 'ALPHA', labelNames: ['result'], help: 'Authentication attempts, by result (success, failure or error).' });
    this.authenticationDurations = r.histogram({ name: 'authentication_duration_seconds', stability: 'ALPHA', labelNames: ['result'], buckets: AUTHENTICATION_DURATION_BUCKETS, help: 'How long authentication took in seconds, by result.' });
    this.authenticatedUsers = r.counter({ name: 'authenticated_user_requests', stability: 'ALPHA', labelNames: ['username'], help: 'Authenticated requests, by a coarse class of user name.' });
    this.webhookDurations = r.histogram({ name: 'apiserver_admission_webhook_admission_duration_seconds', stability: 'STABLE', labelNames: ['name', 'type', 'operation', 'rejected'], buckets: WEBHOOK_DURATION_BUCKETS, help: 'How long admission webhook calls took in seconds, by webhook name, type (admit or validate), operation and whether the request was rejected.' });
    this.deprecatedApis = r.gauge({ name: 'apiserver_requested_deprecated_apis', stability: 'STABLE', labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'], aggregator: 'max', help: 'Set to 1 for each deprecated API that has been requested, by group, version, resource, subresource and the release that removes it.' });
    const idHash = opts.apiserverIdHash ?? '';
    this.authenticationReload = r.gauge({
      name: 'apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds',
      stability: 'ALPHA',
      labelNames: ['status', 'apiserver_id_hash'],
      aggregator: 'max',
      help: 'Time of the last automatic reload of the authentication configuration, in seconds since the epoch, by outcome.',
      collect: () => {
        const last = this.sources.authenticationReload?.();
        if (last) this.authenticationReload.with(last.status, idHash).set(last.seconds);
      },
    });
  }

  /** Connects the scrape-time sources (the server does this once its parts exist). */
  setSources(s: MetricSources): void {
    this.sources = { ...this.sources, ...s };
  }

  private refill(g: Gauge, entries: Iterable<[string, number]> | undefined): void {
    if (!entries) return;
    g.clear();
    for (const [label, value] of entries) g.with(label).set(value);
  }

  /** One answered request: its count by code and its latency. */
  request(l: RequestLabels, code: number, seconds: number): void {
    this.requests.with(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, COMPONENT, code).inc();
    this.requestDurations.with(l.verb, l.dryRun, l.group, l.version, l.resource, l.subresource, l.scope, COMPONENT).observe(seconds);
  }

  /** The gauge of open long-running requests for this request (the caller increments, then decrements). */
  longRunningSeries(l: RequestLabels): GaugeSeries {
    return this.longRunning.with(l.verb, l.group, l.version, l.resource, l.subresource, l.scope, COMPONENT);
  }

  watchSeries(group: string, version: string, kind: string): WatchSeries {
    return { events: this.watchEvents.with(group, version, kind), sizes: this.watchEventSizes.with(group, version, kind), watchers: this.registeredWatchers.with(group, version, kind) };
  }

  authentication(result: 'success' | 'failure' | 'error', seconds: number, username?: string): void {
    this.authenticationAttempts.with(result).inc();
    this.authenticationDurations.with(result).observe(seconds);
    if (username !== undefined) this.authenticatedUsers.with(compressUsername(username)).inc();
  }

  deprecatedApi(group: string, version: string, resource: string, subresource: string, removedRelease: string): void {
    this.deprecatedApis.with(group, version, resource, subresource, removedRelease).set(1);
  }

  webhook(name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, seconds: number): void {
    this.webhookDurations.with(name, type, operation, rejected ? 'true' : 'false').observe(seconds);
  }
}

/** User names kept as labels as they are; any other name would make the label set unbounded. */
const KNOWN_USERNAMES = new Set(['admin', 'client', `system:serviceaccount:${SYSTEM_NAMESPACE}:default`]);

/** As the reference: a few well-known names as they are, e-mail addresses as one class, the rest as another. */
export function compressUsername(username: string): string {
  if (KNOWN_USERNAMES.has(username)) return username;
  if (username.includes('@')) return 'email_id';
  return 'other';
}
