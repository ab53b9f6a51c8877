export { DEFAULT_TRACING_ENDPOINT, loadTracingConfiguration, parseTracingConfiguration, TracingConfigError, TRACING_API_VERSIONS, TRACING_KIND, type TracingConfig } from './config.js';
export { currentSpan, parseTraceparent, Span, Tracer, traceHook, type SpanKind, type SpanSink } from './span.js';
export { collectorAddress, OtlpExporter, toProto, unixNanos } from './otlp-exporter.js';
export { TracedBackend } from './traced-backend.js';
