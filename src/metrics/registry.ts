/**
 * One registry per server (two servers in one process keep separate counts). Families are defined with
 * their stability class and deprecation; the rules of stability.ts decide their help text and whether
 * they are exposed at all. Exposition and cross-process aggregation are prom-client's.
 */
import promClient from 'prom-client';
import { Counter, Gauge, Histogram, type FamilyOptions, type HistogramOptions, type MetricSnapshot } from './metric.js';
import { deprecationState, helpText, type MinorVersion, type StabilityLevel } from './stability.js';

export interface Stability {
  stability: StabilityLevel;
  /** `<major>.<minor>` of the release that deprecated the metric. */
  deprecatedVersion?: string;
}

export interface MetricsRegistryOptions {
  /** `--show-hidden-metrics-for-version`, already checked (stability.ts checkShowHiddenVersion). */
  showHidden?: MinorVersion;
  /** Deprecation warnings at registration go here. */
  log?: (msg: string) => void;
  /** The release to judge deprecations against (tests); default the current one. */
  current?: MinorVersion;
}

/** The text exposition format's media type. */
export const METRICS_CONTENT_TYPE = promClient.Registry.PROMETHEUS_CONTENT_TYPE;

export class MetricsRegistry {
  private readonly registry = new promClient.Registry();
  private readonly hidden = new Set<string>();

  constructor(private readonly opts: MetricsRegistryOptions = {}) {}

  counter(o: FamilyOptions & Stability): Counter {
    return this.register(new Counter(o), o);
  }

  gauge(o: FamilyOptions & Stability): Gauge {
    return this.register(new Gauge(o), o);
  }

  histogram(o: HistogramOptions & Stability): Histogram {
    return this.register(new Histogram(o), o);
  }

  /**
   * A hidden family still records (callers need not know), but is never exposed: like the reference, it is
   * simply not registered.
   */
  private register<F extends Counter | Gauge | Histogram>(family: F, o: Stability & { help: string }): F {
    const state = deprecationState(o.deprecatedVersion, this.opts.showHidden, this.opts.current);
    family.help = helpText(o.help, o.stability, state, o.deprecatedVersion);
    if (state === 'hidden') {
      this.hidden.add(family.name);
      return family;
    }
    if (state === 'deprecated') this.opts.log?.(`metric ${family.name} is deprecated from release ${o.deprecatedVersion} and will be hidden in a later release`);
    this.registry.registerMetric(family as unknown as promClient.Metric);
    return family;
  }

  /** Names of the families left out because they are hidden. */
  hiddenNames(): string[] {
    return [...this.hidden];
  }

  /** Registered families as prom-client's JSON (what workers send for aggregation). */
  async snapshot(): Promise<MetricSnapshot[]> {
    return (await this.registry.getMetricsAsJSON()) as unknown as MetricSnapshot[];
  }

  /** The Prometheus text format of this registry alone. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** One text answer from the snapshots of several processes, each family combined by its aggregator. */
export function aggregateSnapshots(parts: MetricSnapshot[][]): Promise<string> {
  const merged = promClient.AggregatorRegistry.aggregate(parts as unknown as Parameters<typeof promClient.AggregatorRegistry.aggregate>[0]);
  return merged.metrics();
}
