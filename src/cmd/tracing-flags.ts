/** `--tracing-config-file`: the file is read and checked here, before any server process starts. */
import { resolve } from 'node:path';
import { loadTracingConfiguration } from '../tracing/config.js';

export const TRACING_FLAG_OPTIONS = { 'tracing-config-file': { type: 'string' } } as const;

export const TRACING_USAGE = `  --tracing-config-file=PATH   TracingConfiguration: export request spans over OTLP/gRPC (endpoint, samplingRatePerMillion)
`;

export function tracingFlags(values: { 'tracing-config-file'?: string }, opts: { tracingConfigFile?: string }): void {
  const file = values['tracing-config-file'];
  if (file === undefined) return;
  if (file === '') throw new Error('--tracing-config-file: a file path is required');
  opts.tracingConfigFile = resolve(file);
  loadTracingConfiguration(opts.tracingConfigFile);
}
