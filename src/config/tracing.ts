/**
 * The TracingConfiguration document (`--tracing-config-file`, spec 2.12): where spans are exported
 * (an OTLP/gRPC target) and how many requests without a sampled parent are traced. Parsing, the
 * reference's defaults and its validation rules are pure; every problem names its field path.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { TRACING_CONFIG_GROUP } from '../api/naming.js';
import { isObject } from '../api/types.js';
import { readableVersions, toCurrentVersion, type VersionTable } from './versions.js';

export const TRACING_KIND = 'TracingConfiguration';
/** Release 1.31 reads v1beta1 and v1alpha1; their fields are the same. */
export const TRACING_VERSION_TABLE: VersionTable = { current: `${TRACING_CONFIG_GROUP}/v1beta1`, older: { [`${TRACING_CONFIG_GROUP}/v1alpha1`]: null } };
export const TRACING_API_VERSIONS = readableVersions(TRACING_VERSION_TABLE);
/** The reference's defaults: the OTLP/gRPC port on this host, and no sampling without a sampled parent. */
export const DEFAULT_TRACING_ENDPOINT = 'localhost:4317';
export const MAX_SAMPLING_RATE_PER_MILLION = 1_000_000;
const FLAG = '--tracing-config-file';

export interface TracingConfig {
  /** A gRPC target: `host:port`, `dns://[authority]/host:port`, `unix:path`, `unix:///path`, `unix-abstract:name`. */
  endpoint: string;
  samplingRatePerMillion: number;
}

export class TracingConfigError extends Error {
  constructor(
    readonly problems: string[],
    where: string,
  ) {
    super(`${where}: ${problems.join('; ')}`);
  }
}

/** Reads, parses and validates the file; every error names the flag and the file. */
export function loadTracingConfiguration(file: string): TracingConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${FLAG} ${file}: cannot be read: ${(e as Error).message}`);
  }
  return parseTracingConfiguration(text, `${FLAG} ${file}`);
}

/** Parses the document's text (YAML or JSON); throws TracingConfigError listing every problem. */
export function parseTracingConfiguration(text: string, where: string): TracingConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (e) {
    throw new TracingConfigError([`cannot be parsed as YAML or JSON: ${(e as Error).message.split('\n')[0]}`], where);
  }
  const problems: string[] = [];
  const config = validate(doc, problems);
  if (problems.length > 0) throw new TracingConfigError(problems, where);
  return config;
}

function validate(written: unknown, problems: string[]): TracingConfig {
  const doc = toCurrentVersion(written, TRACING_VERSION_TABLE);
  const config: TracingConfig = { endpoint: DEFAULT_TRACING_ENDPOINT, samplingRatePerMillion: 0 };
  if (!isObject(doc)) {
    problems.push(`must be a ${TRACING_KIND} object`);
    return config;
  }
  if (doc.kind !== TRACING_KIND) problems.push(`kind: Invalid value: ${JSON.stringify(doc.kind ?? '')}: must be ${TRACING_KIND}`);
  if (!TRACING_API_VERSIONS.includes(String(doc.apiVersion))) {
    problems.push(`apiVersion: Unsupported value: ${JSON.stringify(doc.apiVersion ?? '')}: supported values: ${TRACING_API_VERSIONS.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  // A misspelt field would otherwise leave tracing silently at its defaults.
  for (const k of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'endpoint', 'samplingRatePerMillion'].includes(k)) problems.push(`${k}: Unknown field`);
  }
  const endpoint = doc.endpoint;
  if (endpoint !== undefined && endpoint !== null) {
    if (typeof endpoint !== 'string') problems.push(`endpoint: Invalid value: ${JSON.stringify(endpoint)}: must be a string`);
    else {
      const why = endpointProblem(endpoint);
      if (why) problems.push(`endpoint: Invalid value: ${JSON.stringify(endpoint)}: ${why}`);
      config.endpoint = endpoint;
    }
  }
  const rate = doc.samplingRatePerMillion;
  if (rate !== undefined && rate !== null) {
    const at = `samplingRatePerMillion: Invalid value: ${JSON.stringify(rate)}`;
    if (typeof rate !== 'number' || !Number.isInteger(rate)) problems.push(`${at}: must be an integer`);
    else if (rate < 0) problems.push(`${at}: sampling rate must be positive`);
    else if (rate > MAX_SAMPLING_RATE_PER_MILLION) problems.push(`${at}: sampling rate per million must be less than or equal to one million`);
    else config.samplingRatePerMillion = rate;
  }
  return config;
}

/**
 * The reference's rule: an endpoint without `//` is a DNS target; otherwise its scheme must be one the
 * gRPC name resolver knows (dns, unix, unix-abstract). Answers the problem, or undefined.
 */
export function endpointProblem(endpoint: string): string | undefined {
  if (endpoint === '') return 'must not be empty';
  const withScheme = endpoint.includes('//') ? endpoint : `dns://${endpoint}`;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(withScheme);
  if (!m) return 'cannot be parsed as a URL';
  const scheme = m[1]!.toLowerCase();
  if (!['dns', 'unix', 'unix-abstract'].includes(scheme)) return `unsupported scheme: ${scheme}; the schemes are none, dns, unix and unix-abstract`;
  return undefined;
}
