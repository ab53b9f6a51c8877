/**
 * `/metrics` of an in-process server (spec 3.4, 5.8): who may read it, and every family moving after the
 * request that feeds it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSIONREGISTRATION_GROUP } from '../src/api/naming.js';
import type { AuditEvent, AuditSink } from '../src/audit/types.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, watchEvents } from './helpers/client.js';
import { allow, startWebhookServer, type WebhookServer } from './helpers/webhook-server.js';
import { sample } from './helpers/metrics-text.js';

/** A test audit backend that has lost two events. */
class LossySink implements AuditSink {
  droppedEvents = 2;
  events: AuditEvent[] = [];
  processEvents(events: readonly AuditEvent[]): void {
    this.events.push(...events);
  }
  async shutdown(): Promise<void> {}
}

describe('/metrics (spec 3.4, 5.8)', () => {
  let dir: string;
  let server: RunningServer;
  let hook: WebhookServer;
  let call: ReturnType<typeof client>;
  const scrape = async () => {
    const r = await call('GET', '/metrics');
    assert.equal(r.status, 200, r.text);
    return r;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-metrics-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-mon,mon,uid-mon,system:monitoring\ntok-bob,bob,uid-bob,devs\n');
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    server = await startServer({ controllers: [], port: 0, dataDir: join(dir, "data"), storage: { type: 'sqlite', path: join(dir, 'orch.db') }, tokenAuthFile: join(dir, 'tokens.csv'), auditPolicyFile: join(dir, 'policy.yaml'), auditBackends: [new LossySink()] });
    call = client(server);
    hook = await startWebhookServer((review) => (review.request.object?.metadata?.name === 'refused' ? { response: { uid: review.request.uid, allowed: false } } : allow(review)));
  });
  after(async () => {
    await hook?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 5.8: system:monitoring and system:masters read /metrics; others get 403', async () => {
    assert.equal((await call('GET', '/metrics', { token: 'tok-mon' })).status, 200);
    assert.equal((await call('GET', '/metrics')).status, 200);
    const bob = await call('GET', '/metrics', { token: 'tok-bob' });
    assert.equal(bob.status, 403);
    assert.equal(bob.json.reason, 'Forbidden');
    assert.equal((await call('GET', '/metrics', { token: null })).status, 403);
  });

  it('spec 3.4: the answer is the Prometheus text format and every family has its stability class', async () => {
    const r = await scrape();
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const helps = r.text.split('\n').filter((l) => l.startsWith('# HELP '));
    assert.ok(helps.length >= 15, `${helps.length} families`);
    for (const h of helps) assert.match(h, /^# HELP \S+ \[(ALPHA|BETA|STABLE)\] /);
    assert.match(r.text, /# HELP apiserver_request_total \[STABLE\] /);
    assert.match(r.text, /# TYPE apiserver_request_duration_seconds histogram/);
  });

  it('spec 3.4: request counts and latency move by verb, group, version, resource, scope and code', async () => {
    const before = await scrape();
    const labels = { verb: 'POST', group: '', version: 'v1', resource: 'configmaps', scope: 'resource', component: 'apiserver', code: '201' };
    const created = sample(before.text, 'apiserver_request_total', labels) ?? 0;
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm1' } } })).status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/nope')).status, 404);
    assert.equal((await call('GET', '/apis/apps/v1/deployments')).status, 200);
    const text = (await scrape()).text;
    assert.equal(sample(text, 'apiserver_request_total', labels), created + 1);
    assert.equal(sample(text, 'apiserver_request_total', { verb: 'GET', resource: 'configmaps', scope: 'resource', code: '404' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { verb: 'LIST', group: 'apps', version: 'v1', resource: 'deployments', scope: 'cluster', code: '200' }), 1);
    assert.ok((sample(text, 'apiserver_request_duration_seconds_count', { verb: 'POST', resource: 'configmaps', dry_run: '' }) ?? 0) >= 1);
    assert.ok(sample(text, 'apiserver_request_duration_seconds_bucket', { verb: 'LIST', resource: 'deployments', le: '60' }) === 1);
    assert.equal(sample(text, 'apiserver_request_total', { resource: 'deployments', code: '403' }), undefined);
    assert.ok((sample(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) ?? 0) >= 1, 'this scrape itself is in flight');
    assert.notEqual(sample(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }), undefined);
  });

  it('spec 3.4: authentication attempts by result, and authenticated users by class', async () => {
    const t0 = (await scrape()).text;
    assert.equal((await call('GET', '/api/v1/namespaces', { token: 'not-a-token' })).status, 401);
    const t1 = (await scrape()).text;
    assert.equal(sample(t1, 'authentication_attempts', { result: 'failure' }), (sample(t0, 'authentication_attempts', { result: 'failure' }) ?? 0) + 1);
    assert.ok((sample(t1, 'authentication_attempts', { result: 'success' }) ?? 0) > (sample(t0, 'authentication_attempts', { result: 'success' }) ?? 0));
    assert.ok((sample(t1, 'authenticated_user_requests', { username: 'other' }) ?? 0) >= 2);
    assert.ok((sample(t1, 'authentication_duration_seconds_count', { result: 'failure' }) ?? 0) >= 1);
  });

  it('spec 3.4: watches: open watchers and long-running requests while open, events sent and their sizes', async () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const events = watchEvents(server, '/api/v1/namespaces/default/secrets?watch=1', 2, 5000, open);
    await opened;
    for (const name of ['s1', 's2']) assert.equal((await call('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name } } })).status, 201);
    assert.equal((await events).length, 2);
    const during = (await scrape()).text;
    assert.equal(sample(during, 'apiserver_watch_events_total', { group: '', version: 'v1', kind: 'Secret' }), 2);
    assert.equal(sample(during, 'apiserver_watch_events_sizes_count', { kind: 'Secret' }), 2);
    assert.equal(sample(during, 'apiserver_watch_events_sizes_bucket', { kind: 'Secret', le: '1024' }), 2);
    // watchEvents closed its connection once it had its events: the gauges come back down.
    let after = during;
    for (let i = 0; i < 50 && sample(after, 'apiserver_registered_watchers', { kind: 'Secret' }) !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = (await scrape()).text;
    }
    assert.equal(sample(after, 'apiserver_registered_watchers', { group: '', version: 'v1', kind: 'Secret' }), 0);
    assert.equal(sample(after, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'secrets', scope: 'namespace' }), 0);
    assert.equal(sample(after, 'apiserver_request_total', { verb: 'WATCH', resource: 'secrets', code: '200' }), 1);
  });

  it('spec 3.4: watch gauges count a watch while it is open', async () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const events = watchEvents(server, '/api/v1/namespaces/default/podtemplates?watch=1', 1, 5000, open);
    await opened;
    const during = (await scrape()).text;
    assert.equal(sample(during, 'apiserver_registered_watchers', { kind: 'PodTemplate' }), 1);
    assert.equal(sample(during, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'podtemplates', scope: 'namespace' }), 1);
    await call('POST', '/api/v1/namespaces/default/podtemplates', { body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'w' }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } });
    assert.equal((await events).length, 1);
  });

  it('spec 3.4: storage: objects per resource, operation latency, watch cache sizes', async () => {
    for (const name of ['o1', 'o2', 'o3']) await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    const list = await call('GET', '/api/v1/configmaps');
    const text = (await scrape()).text;
    assert.equal(sample(text, 'apiserver_storage_objects', { resource: 'configmaps' }), list.json.items.length);
    assert.ok((sample(text, 'apiserver_storage_objects', { resource: 'clusterroles.rbac.authorization.orch.io' }) ?? 0) > 10);
    assert.ok((sample(text, 'etcd_request_duration_seconds_count', { operation: 'create', type: 'configmaps' }) ?? 0) >= 3);
    assert.ok((sample(text, 'apiserver_watch_cache_capacity', { resource: 'configmaps' }) ?? 0) >= 3);
  });

  it('spec 3.4: audit events handed to the backends, and the ones a backend lost', async () => {
    const t0 = (await scrape()).text;
    await call('GET', '/api/v1/namespaces/default');
    const t1 = (await scrape()).text;
    assert.ok((sample(t1, 'apiserver_audit_event_total') ?? 0) > (sample(t0, 'apiserver_audit_event_total') ?? 0));
    assert.equal(sample(t1, 'apiserver_audit_error_total', { plugin: 'backend' }), 2);
  });

  it('spec 7: a deprecated API sets apiserver_requested_deprecated_apis to 1', async () => {
    assert.equal(sample((await scrape()).text, 'apiserver_requested_deprecated_apis', { resource: 'componentstatuses' }), undefined);
    assert.equal((await call('GET', '/api/v1/componentstatuses')).status, 200);
    const text = (await scrape()).text;
    assert.equal(sample(text, 'apiserver_requested_deprecated_apis', { group: '', version: 'v1', resource: 'componentstatuses', subresource: '', removed_release: '' }), 1);
  });

  it('spec 3.4: admission webhook latency by name, type, operation and rejection', async () => {
    const vwc = {
      apiVersion: `${ADMISSIONREGISTRATION_GROUP}/v1`,
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'metrics-hook' },
      webhooks: [{ name: 'check.metrics.test', clientConfig: { url: `${hook.url}/validate`, caBundle: hook.caBundle }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['persistentvolumeclaims'] }], sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail' }],
    };
    assert.equal((await call('POST', `/apis/${ADMISSIONREGISTRATION_GROUP}/v1/validatingwebhookconfigurations`, { body: vwc })).status, 201);
    const pvc = (name: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    // The configuration is picked up within a short time; retry until the webhook is called.
    let status = 0;
    for (let i = 0; i < 50 && status !== 403; i++) {
      status = (await call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { body: pvc('refused') })).status;
      if (status === 201) await call('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/refused');
      if (status !== 403) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 403);
    assert.equal((await call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', { body: pvc('fine') })).status, 201);
    const text = (await scrape()).text;
    const base = { name: 'check.metrics.test', type: 'validating', operation: 'CREATE' };
    assert.equal(sample(text, 'apiserver_admission_webhook_admission_duration_seconds_count', { ...base, rejected: 'true' }), 1);
    assert.equal(sample(text, 'apiserver_admission_webhook_admission_duration_seconds_count', { ...base, rejected: 'false' }), 1);
  });

  it('spec 3.4: two servers in one process keep separate counts', async () => {
    const other = await startServer({ port: 0, storage: { type: "memory" }, controllers: [] });
    try {
      const c = client(other);
      const text = (await c('GET', '/metrics')).text;
      assert.equal(sample(text, 'apiserver_request_total', { verb: 'LIST', resource: 'deployments' }), undefined);
      assert.equal(sample(text, 'apiserver_watch_events_total', { kind: 'Secret' }), undefined);
    } finally {
      await other.close();
    }
  });
});
