/**
 * Counter, gauge and histogram families whose series are plain objects found by label values through
 * nested maps. A caller that knows its labels once (a watch, a resource type) keeps the series and
 * records with a field update; prom-client's own metrics hash the label set on every call, which the
 * request path cannot afford. The families expose the shape prom-client's Registry reads (`get()`), so
 * the text format and the aggregation across worker processes stay prom-client's.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
/** How the series of several worker processes combine into one answer (prom-client aggregator names). */
export type Aggregation = 'sum' | 'max' | 'min' | 'first';

export interface MetricValue {
  value: number;
  labels: Record<string, string>;
  metricName?: string;
}

export interface MetricSnapshot {
  name: string;
  help: string;
  type: MetricType;
  aggregator: Aggregation;
  values: MetricValue[];
}

type Labels = Record<string, string>;
type LabelValue = string | number;

export interface FamilyOptions {
  name: string;
  help: string;
  labelNames?: readonly string[];
  aggregator?: Aggregation;
  /** Runs before each read: scrape-time families fill their series here. */
  collect?: () => void;
}

abstract class Family<S extends { labels: Labels }> {
  readonly name: string;
  help: string;
  readonly labelNames: readonly string[];
  readonly aggregator: Aggregation;
  private readonly collectFn: (() => void) | undefined;
  private root = new Map<LabelValue, unknown>();
  private series: S[] = [];
  private unlabelled: S | undefined;

  constructor(readonly type: MetricType, o: FamilyOptions, defaultAggregator: Aggregation) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames ?? [];
    this.aggregator = o.aggregator ?? defaultAggregator;
    this.collectFn = o.collect;
  }

  protected abstract create(labels: Labels): S;

  /** The series for these label values, in `labelNames` order (created at first use). */
  with(...values: LabelValue[]): S {
    const n = this.labelNames.length;
    if (values.length !== n) throw new Error(`metric ${this.name}: ${n} label values expected, got ${values.length}`);
    if (n === 0) return (this.unlabelled ??= this.add([]));
    let map = this.root;
    for (let i = 0; i < n - 1; i++) {
      const v = values[i] as LabelValue;
      let next = map.get(v) as Map<LabelValue, unknown> | undefined;
      if (!next) map.set(v, (next = new Map()));
      map = next;
    }
    const last = values[n - 1] as LabelValue;
    let s = map.get(last) as S | undefined;
    if (!s) map.set(last, (s = this.add(values)));
    return s;
  }

  private add(values: LabelValue[]): S {
    const labels: Labels = {};
    this.labelNames.forEach((name, i) => (labels[name] = String(values[i])));
    const s = this.create(labels);
    this.series.push(s);
    return s;
  }

  /** Drops every series (scrape-time families rebuild theirs in `collect`). */
  clear(): void {
    this.root = new Map();
    this.series = [];
    this.unlabelled = undefined;
  }

  protected abstract values(s: S, out: MetricValue[]): void;

  /** What prom-client's Registry reads. */
  async get(): Promise<MetricSnapshot> {
    this.collectFn?.();
    const values: MetricValue[] = [];
    for (const s of this.series) this.values(s, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** prom-client calls this on `resetMetrics()`. */
  reset(): void {
    this.clear();
  }
}

export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    this.value += by;
  }
}

export class Counter extends Family<CounterSeries> {
  constructor(o: FamilyOptions) {
    super('counter', o, 'sum');
  }
  protected create(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }
  protected values(s: CounterSeries, out: MetricValue[]): void {
    out.push({ value: s.value, labels: s.labels });
  }
}

export class GaugeSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
  set(v: number): void {
    this.value = v;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class Gauge extends Family<GaugeSeries> {
  constructor(o: FamilyOptions) {
    super('gauge', o, 'sum');
  }
  protected create(labels: Labels): GaugeSeries {
    return new GaugeSeries(labels);
  }
  protected values(s: GaugeSeries, out: MetricValue[]): void {
    out.push({ value: s.value, labels: s.labels });
  }
}

export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  /** Label sets of the exposed lines, built once (a scrape of many series must not rebuild them). */
  readonly bucketLabels: Labels[];
  constructor(readonly labels: Labels, readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
    this.bucketLabels = [...bounds.map((b) => ({ ...labels, le: String(b) })), { ...labels, le: '+Inf' }];
  }
  observe(v: number): void {
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= (b[i] as number)) {
        (this.counts[i] as number)++;
        break;
      }
    }
    this.sum += v;
    this.count++;
  }
}

export interface HistogramOptions extends FamilyOptions {
  buckets: readonly number[];
}

export class Histogram extends Family<HistogramSeries> {
  readonly buckets: readonly number[];
  private readonly bucketName: string;
  private readonly sumName: string;
  private readonly countName: string;
  constructor(o: HistogramOptions) {
    super('histogram', o, 'sum');
    for (let i = 1; i < o.buckets.length; i++) {
      if ((o.buckets[i] as number) <= (o.buckets[i - 1] as number)) throw new Error(`metric ${o.name}: buckets must increase`);
    }
    this.buckets = o.buckets;
    this.bucketName = `${o.name}_bucket`;
    this.sumName = `${o.name}_sum`;
    this.countName = `${o.name}_count`;
  }
  protected create(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }
  protected values(s: HistogramSeries, out: MetricValue[]): void {
    let acc = 0;
    for (let i = 0; i < s.counts.length; i++) {
      acc += s.counts[i] as number;
      out.push({ value: acc, labels: s.bucketLabels[i] as Labels, metricName: this.bucketName });
    }
    out.push({ value: s.count, labels: s.bucketLabels[s.counts.length] as Labels, metricName: this.bucketName });
    out.push({ value: s.sum, labels: s.labels, metricName: this.sumName });
    out.push({ value: s.count, labels: s.labels, metricName: this.countName });
  }
}

/** `count` bounds starting at `start`, each `factor` times the one before (the reference's ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}
