/**
 * The audit webhook backend in a whole server (spec 2.11, issue 17): events of real requests reach a real
 * HTTPS receiver as EventLists, and a webhook that hangs slows no request in batch mode.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { buildWebhookAuditSink, type AuditWebhookOptions } from '../src/audit/webhook-sink.js';
import type { AuditEvent } from '../src/audit/types.js';
import { client } from './helpers/client.js';
import { startWebhookServer, type Reply, type WebhookServer } from './helpers/webhook-server.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-audit-webhook-server-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const policyFile = join(dir, 'policy.yaml');
writeFileSync(policyFile, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');

async function serverWithWebhook(hook: WebhookServer, webhook: Omit<AuditWebhookOptions, 'configFile'>, env: Parameters<typeof buildWebhookAuditSink>[2] = {}) {
  const configFile = join(dir, `kubeconfig-${hook.port}.yaml`);
  writeFileSync(configFile, `clusters:\n- name: audit\n  cluster:\n    server: ${hook.url}/audit\n    certificate-authority-data: ${hook.caBundle}\n`);
  const sink = buildWebhookAuditSink({ auditWebhook: { configFile, ...webhook } }, () => undefined, env)!;
  const server = await startServer({ port: 0, dataDir: join(dir, `data-${hook.port}`), storage: { type: 'memory' }, auditPolicyFile: policyFile, auditBackends: [sink] });
  return { server, call: client(server) };
}

const items = (hook: WebhookServer) => (hook.reviews as unknown as { kind: string; items: AuditEvent[] }[]).flatMap((l) => l.items);

describe('audit webhook backend in the server (spec 2.11)', () => {
  let hook: WebhookServer;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    hook = await startWebhookServer((): Reply => ({ raw: '{}' }));
    ({ server, call } = await serverWithWebhook(hook, { batch: { maxBatchSize: 5, maxBatchWaitMs: 100 } }));
  });
  after(async () => {
    await server?.close();
    await hook?.close();
  });

  it('spec 2.11: the events of a create reach the webhook in EventLists, with the Audit-Id of the response', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' }, data: { a: 'b' } } });
    assert.equal(r.status, 201);
    const id = r.headers['audit-id'] as string;
    assert.ok(id, 'the response carries Audit-Id');
    const deadline = Date.now() + 5000;
    while (!items(hook).some((e) => e.auditID === id && e.stage === 'ResponseComplete') && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
    const mine = items(hook).filter((e) => e.auditID === id);
    assert.deepEqual(mine.map((e) => e.stage).sort(), ['RequestReceived', 'ResponseComplete']);
    const complete = mine.find((e) => e.stage === 'ResponseComplete')!;
    assert.equal(complete.verb, 'create');
    assert.equal(complete.objectRef?.name, 'audited');
    assert.equal(complete.responseStatus?.code, 201);
    assert.ok(mine.every((e) => !('requestObject' in e) && !('responseObject' in e)), 'Metadata level carries no object');
    assert.ok((hook.reviews as unknown as { kind: string }[]).every((l) => l.kind === 'EventList'));
  });
});

describe('a webhook that never answers (spec 2.11, batch mode)', () => {
  let hook: WebhookServer;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    hook = await startWebhookServer((): Reply => ({ hang: true }));
    ({ server, call } = await serverWithWebhook(hook, { batch: { maxBatchSize: 1, maxBatchWaitMs: 0, bufferSize: 10 } }, { shutdownTimeoutMs: 300, shutdownGraceMs: 100 }));
  });
  after(async () => {
    await hook?.close();
  });

  it('spec 2.11: requests are served at once while the webhook hangs, and shutdown still completes', async () => {
    const started = performance.now();
    for (let i = 0; i < 40; i++) assert.equal((await call('GET', '/api/v1/namespaces/default')).status, 200);
    assert.ok(performance.now() - started < 5000, 'forty reads are not held up by the webhook');
    assert.ok(hook.reviews.length >= 1, 'the webhook was called');
    const stopping = performance.now();
    await server.close();
    assert.ok(performance.now() - stopping < 5000, 'the audit backend keeps to its shutdown deadlines');
  });
});

describe('blocking-strict with a webhook that refuses events (spec 2.11)', () => {
  let hook: WebhookServer;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    hook = await startWebhookServer((): Reply => ({ raw: 'no', status: 400 }));
    ({ server, call } = await serverWithWebhook(hook, { mode: 'blocking-strict' }));
  });
  after(async () => {
    await server?.close();
    await hook?.close();
  });

  it('reference behaviour: a request whose RequestReceived event cannot be stored fails with 500', async () => {
    const r = await call('GET', '/api/v1/namespaces/default');
    assert.equal(r.status, 500);
    assert.ok(hook.reviews.length >= 1, 'the webhook was asked');
  });
});
