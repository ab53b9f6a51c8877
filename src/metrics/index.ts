export { ApiserverMetrics, compressUsername, type MetricSources, type RequestLabels, type WatchSeries } from './apiserver.js';
export { Counter, Gauge, Histogram, exponentialBuckets, type MetricSnapshot } from './metric.js';
export { aggregateSnapshots, MetricsRegistry, METRICS_CONTENT_TYPE } from './registry.js';
export { dryRunLabel, requestLabels, requestScope, type RequestFacts } from './request-labels.js';
export { checkShowHiddenVersion, CURRENT_RELEASE, deprecationState, helpText, parseMinorVersion, type MinorVersion, type StabilityLevel } from './stability.js';
