import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TRACING_CONFIG_GROUP } from '../api/naming.js';
import { collectorAddress, unixNanos } from './otlp-exporter.js';
import { parseTracingConfiguration, TracingConfigError } from './config.js';

const doc = (body: string, version = 'v1beta1') => `apiVersion: ${TRACING_CONFIG_GROUP}/${version}\nkind: TracingConfiguration\n${body}`;

describe('TracingConfiguration (spec 2.12)', () => {
  const valid: [string, string, { endpoint: string; samplingRatePerMillion: number }][] = [
    ['defaults', doc(''), { endpoint: 'localhost:4317', samplingRatePerMillion: 0 }],
    ['v1alpha1', doc('samplingRatePerMillion: 100\n', 'v1alpha1'), { endpoint: 'localhost:4317', samplingRatePerMillion: 100 }],
    ['the whole range', doc('samplingRatePerMillion: 1000000\n'), { endpoint: 'localhost:4317', samplingRatePerMillion: 1_000_000 }],
    ['dns target', doc('endpoint: dns:///collector:4317\n'), { endpoint: 'dns:///collector:4317', samplingRatePerMillion: 0 }],
    ['unix socket', doc('endpoint: unix:///run/otel.sock\n'), { endpoint: 'unix:///run/otel.sock', samplingRatePerMillion: 0 }],
    ['JSON', JSON.stringify({ apiVersion: `${TRACING_CONFIG_GROUP}/v1beta1`, kind: 'TracingConfiguration', endpoint: '10.0.0.1:4317' }), { endpoint: '10.0.0.1:4317', samplingRatePerMillion: 0 }],
  ];
  for (const [title, text, want] of valid) {
    it(`spec 2.12: accepts ${title}`, () => assert.deepEqual(parseTracingConfiguration(text, 'f'), want));
  }

  const invalid: [string, string, RegExp][] = [
    ['a negative rate', doc('samplingRatePerMillion: -1\n'), /^f: samplingRatePerMillion: Invalid value: -1: sampling rate must be positive$/],
    ['a rate above one million', doc('samplingRatePerMillion: 1000001\n'), /samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million/],
    ['a fractional rate', doc('samplingRatePerMillion: 1.5\n'), /samplingRatePerMillion: Invalid value: 1.5: must be an integer/],
    ['an http endpoint', doc('endpoint: http://collector:4317\n'), /endpoint: Invalid value: "http:\/\/collector:4317": unsupported scheme: http/],
    ['an empty endpoint', doc('endpoint: ""\n'), /endpoint: Invalid value: "": must not be empty/],
    ['a v1 document (not read by 1.31)', doc('', 'v1'), /apiVersion: Unsupported value/],
    ['the wrong group', 'apiVersion: apiserver.example.com/v1beta1\nkind: TracingConfiguration\n', /apiVersion: Unsupported value/],
    ['the wrong kind', `apiVersion: ${TRACING_CONFIG_GROUP}/v1beta1\nkind: Tracing\n`, /kind: Invalid value: "Tracing"/],
    ['a misspelt field', doc('samplingRatePerMilion: 5\n'), /samplingRatePerMilion: Unknown field/],
    ['text that is not YAML', '{ nope', /cannot be parsed as YAML or JSON/],
  ];
  for (const [title, text, want] of invalid) {
    it(`spec 2.12: rejects ${title} with its field path`, () => {
      assert.throws(() => parseTracingConfiguration(text, 'f'), (e: unknown) => e instanceof TracingConfigError && want.test(e.message));
    });
  }

  it('reference behaviour: every problem of a document is listed at once', () => {
    assert.throws(() => parseTracingConfiguration(doc('endpoint: ftp://x\nsamplingRatePerMillion: -2\n'), 'f'), (e: unknown) => (e as TracingConfigError).problems.length === 2);
  });
});

describe('OTLP exporter helpers', () => {
  const targets: [string, ReturnType<typeof collectorAddress>][] = [
    ['localhost:4317', { host: 'localhost', port: 4317 }],
    ['dns:///collector.example:4317', { host: 'collector.example', port: 4317 }],
    ['dns://8.8.8.8/collector.example:55680', { host: 'collector.example', port: 55680 }],
    ['[::1]:4317', { host: '::1', port: 4317 }],
    ['unix:///run/otel.sock', { path: '/run/otel.sock' }],
    ['unix:relative.sock', { path: 'relative.sock' }],
    ['unix-abstract:otel', { path: '\0otel' }],
  ];
  for (const [endpoint, want] of targets) {
    it(`reference behaviour: the gRPC target ${endpoint} names ${JSON.stringify(want)}`, () => assert.deepEqual(collectorAddress(endpoint), want));
  }
  it('reference behaviour: timestamps are nanoseconds since the epoch, written as decimal text past 2^53', () => {
    assert.equal(unixNanos(1_700_000_000_123.5), '1700000000123500000');
    assert.equal(unixNanos(1_700_000_000_123.25), '1700000000123250000');
    assert.equal(unixNanos(1_700_000_000_000), '1700000000000000000');
  });
});
