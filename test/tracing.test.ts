/**
 * Tracing through a whole server (issue 20, spec 2.12): an OTLP/gRPC collector started here with
 * @grpc/grpc-js receives the request span, its storage and webhook children; a real HTTPS admission
 * webhook sees the traceparent. Spans are exported when the server closes (the exporter flushes then).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ADMISSIONREGISTRATION_GROUP, TRACING_CONFIG_GROUP } from '../src/api/naming.js';
import { closeWebhookConnections } from '../src/admission/webhook/index.js';
import { startServer } from '../src/index.js';
import { client, type Response } from './helpers/client.js';
import { failsToStart } from './helpers/apiserver-process.js';
import { allow, startWebhookServer, type WebhookServer } from './helpers/webhook-server.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  attributes: Record<string, unknown>;
  start: bigint;
  end: bigint;
}

/** An OTLP/gRPC trace collector: every exported span, with its resource attributes. */
async function startCollector(): Promise<{ endpoint: string; spans: ReceivedSpan[]; resources: Record<string, unknown>[]; close(): Promise<void> }> {
  const defs = protoLoader.loadSync('trace-service.proto', {
    includeDirs: [fileURLToPath(new URL('../src/tracing/otlp/', import.meta.url))],
    keepCase: true,
    longs: String,
    enums: String,
    bytes: Buffer,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(defs) as any;
  const spans: ReceivedSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const attrs = (kvs: any[]) => Object.fromEntries(kvs.map((kv) => [kv.key, kv.value[kv.value.value]]));
  const server = new grpc.Server();
  server.addService(pkg.opentelemetry.proto.collector.trace.v1.TraceService.service, {
    Export(call: any, cb: (e: null, r: object) => void) {
      for (const rs of call.request.resource_spans) {
        resources.push(attrs(rs.resource.attributes));
        for (const ss of rs.scope_spans) {
          for (const s of ss.spans) {
            spans.push({
              traceId: s.trace_id.toString('hex'),
              spanId: s.span_id.toString('hex'),
              parentSpanId: s.parent_span_id.toString('hex'),
              name: s.name,
              kind: s.kind,
              attributes: attrs(s.attributes),
              start: BigInt(s.start_time_unix_nano),
              end: BigInt(s.end_time_unix_nano),
            });
          }
        }
      }
      cb(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { endpoint: `127.0.0.1:${port}`, spans, resources, close: () => new Promise<void>((r) => server.tryShutdown(() => r())) };
}

const dir = mkdtempSync(join(tmpdir(), 'orch-tracing-'));
function configFile(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}
const tracingConfig = (endpoint: string, rate: number) =>
  `apiVersion: ${TRACING_CONFIG_GROUP}/v1beta1\nkind: TracingConfiguration\nendpoint: ${endpoint}\nsamplingRatePerMillion: ${rate}\n`;

describe('tracing through the server (issue 20)', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let hooks: WebhookServer;

  before(async () => {
    collector = await startCollector();
    hooks = await startWebhookServer((r) => allow(r));
  });
  after(async () => {
    await hooks.close();
    closeWebhookConnections();
    await collector.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.12: a sampled request exports its request span with the reference attributes, a storage child and a webhook child whose traceparent reached the webhook', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, tracingConfigFile: configFile('all.yaml', tracingConfig(collector.endpoint, 1_000_000)) });
    const call = client(server);
    const cfg = {
      metadata: { name: 'traced' },
      webhooks: [
        {
          name: 'traced.example.com',
          clientConfig: { url: `${hooks.url}/traced`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          objectSelector: { matchLabels: { test: 'traced' } },
        },
      ],
    };
    assert.equal((await call('POST', `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`, { body: cfg })).status, 201);
    // The configuration reaches admission through the watch cache: retry until the webhook is called.
    let r: Response | undefined;
    for (let n = 0; hooks.reviews.length === 0 && n < 60; n++) {
      r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n}`, labels: { test: 'traced' } } }, headers: { 'user-agent': 'tracing-test' } });
      assert.equal(r.status, 201);
      if (hooks.reviews.length === 0) await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(hooks.reviews.length, 1);
    const lastName = (r!.json as any).metadata.name as string;
    await server.close(); // flushes the exporter

    const creates = collector.spans.filter((s) => s.name === 'POST /api/v1/namespaces/{:namespace}/configmaps');
    const request = creates.at(-1)!;
    assert.ok(request, 'the request span of the last create was exported');
    assert.equal(request.kind, 'SPAN_KIND_SERVER');
    assert.equal(request.parentSpanId, '');
    assert.equal(request.attributes['http.method'], 'POST');
    assert.equal(request.attributes['http.target'], '/api/v1/namespaces/default/configmaps');
    assert.equal(request.attributes['http.status_code'], '201');
    assert.equal(request.attributes['http.scheme'], 'https');
    assert.equal(request.attributes['user_agent.original'], 'tracing-test');
    assert.equal(request.attributes['net.sock.peer.addr'], '127.0.0.1');
    assert.ok(request.end >= request.start && request.start > 1_600_000_000_000_000_000n, 'nanosecond epoch timestamps');
    assert.equal(collector.resources[0]!['service.name'], 'apiserver');

    const children = collector.spans.filter((s) => s.traceId === request.traceId && s.parentSpanId === request.spanId);
    const storage = children.find((s) => s.name === 'storage.create');
    assert.ok(storage, `a storage child span, got ${children.map((c) => c.name).join(', ')}`);
    assert.match(String(storage.attributes.key), new RegExp(`/configmaps/default/${lastName}$`));
    const webhook = children.find((s) => s.name === 'HTTP POST');
    assert.ok(webhook, 'a webhook client span');
    assert.equal(webhook.kind, 'SPAN_KIND_CLIENT');
    assert.equal(webhook.attributes['http.method'], 'POST');
    assert.equal(hooks.headers.at(-1)!.traceparent, `00-${request.traceId}-${webhook.spanId}-01`);

  });

  it('spec 2.12, reference behaviour: at samplingRatePerMillion 0 only requests with a sampled traceparent are traced, as children of it', async () => {
    const before = collector.spans.length;
    const server = await startServer({ port: 0, storage: { type: 'memory' }, tracingConfigFile: configFile('zero.yaml', tracingConfig(collector.endpoint, 0)) });
    const call = client(server);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' } })).status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01' } })).status, 200);
    assert.equal((await call('GET', '/healthz', { headers: { traceparent: '00-5bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01' } })).status, 200);
    await server.close();
    const got = collector.spans.slice(before).filter((s) => s.parentSpanId === '00f067aa0ba902b7' || s.kind === 'SPAN_KIND_SERVER');
    assert.deepEqual(
      got.map((s) => [s.traceId, s.parentSpanId, s.name]),
      [
        ['4bf92f3577b34da6a3ce929d0e0e4737', '00f067aa0ba902b7', 'GET /api/v1/namespaces/{:namespace}/configmaps'],
        ['5bf92f3577b34da6a3ce929d0e0e4737', '00f067aa0ba902b7', 'GET'],
      ],
    );
    assert.ok(collector.spans.slice(before).every((s) => s.traceId !== '0af7651916cd43dd8448eb211c80319c'), 'the unsampled parent is not traced');
  });

  it('spec 2.12: a bad --tracing-config-file is a start-up error naming the flag, the file and the field', async () => {
    const file = configFile('bad.yaml', tracingConfig('http://collector:4317', 2_000_000));
    const stderr = await failsToStart(['--tracing-config-file', file]);
    assert.match(stderr, /--tracing-config-file/);
    assert.ok(stderr.includes(file), stderr);
    assert.match(stderr, /samplingRatePerMillion: Invalid value: 2000000: sampling rate per million must be less than or equal to one million/);
    assert.match(stderr, /endpoint: Invalid value: "http:\/\/collector:4317": unsupported scheme: http/);
  });
});
