/**
 * The client's direct transport (issue 19: "in-process controllers may use a direct transport into the same
 * filter chain"): requests enter the server's filter chain without TLS or HTTP/2, and every filter still
 * applies. The REST contract both transports share is in client.test.ts and client-watch.test.ts; this file
 * covers what only a transport without a socket has to get right: the chain's filters, repeated headers,
 * timeouts and aborts reaching the server, and backpressure on a watch.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUTHENTICATION_GROUP } from '../src/api/naming.js';
import type { AuditEvent } from '../src/audit/types.js';
import { Client, DirectTransport, RequestTimeoutError, watchEvents, type KubeObject } from '../src/client/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { rejection } from './helpers/status-error.js';
import { readEvents } from './helpers/audit-log.js';

const CM = { group: '', version: 'v1', plural: 'configmaps' };
const dir = mkdtempSync(join(tmpdir(), 'orch-direct-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('direct transport into the filter chain (issue 19)', () => {
  let server: RunningServer;
  let admin: Client;
  const auditLog = join(dir, 'audit.log');
  const direct = (token: string, userAgent?: string) =>
    new Client({ server: 'https://in-process.invalid', credentials: { get: () => ({ token }) }, direct: server.direct, ...(userAgent ? { userAgent } : {}) });

  /** Open watches of ConfigMaps, from the server's own gauge (read through the direct transport too). */
  const configMapWatchers = async (): Promise<number> => {
    const res = await admin.transport.request({ method: 'GET', path: '/metrics', accept: 'text/plain' });
    const m = /^apiserver_registered_watchers\{[^}]*kind="ConfigMap"[^}]*\} (\d+)$/m.exec(res.body.toString('utf8'));
    return m ? Number(m[1]) : 0;
  };
  const untilNoWatchers = async () => {
    const deadline = Date.now() + 5000;
    while ((await configMapWatchers()) !== 0) {
      if (Date.now() > deadline) assert.fail('the server still serves a ConfigMap watch');
      await sleep(20);
    }
  };

  before(async () => {
    writeFileSync(join(dir, 'tokens.csv'), 'tok-nobody,nobody,uid-nobody,nogroup\n');
    writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  namespaces: ["audited"]\n- level: None\n');
    // No in-process controllers: their own ConfigMap watches would show in the watcher gauge.
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      controllers: [],
      dataDir: join(dir, 'data'),
      tokenAuthFile: join(dir, 'tokens.csv'),
      auditPolicyFile: join(dir, 'policy.yaml'),
      auditLog: { path: auditLog },
      watchMaxQueue: 1000,
    });
    admin = direct(server.adminToken);
    assert.ok(admin.transport instanceof DirectTransport);
    for (const name of ['audited', 'slow', 'stuck']) await admin.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  });
  after(async () => {
    admin.close();
    await server.close();
  });

  it('spec 5.2, 5.5: authentication and authorization apply (401 for an unknown token, 403 naming the user)', async () => {
    const unknown = direct('no-such-token');
    assert.equal((await rejection(unknown.resource(CM, 'default').list())).code, 401);
    const nobody = direct('tok-nobody');
    const denied = await rejection(nobody.resource(CM, 'default').list());
    assert.equal(denied.code, 403);
    assert.match(denied.message, /User "nobody" cannot list resource "configmaps"/);
  });

  it('spec 6: admission applies (a create in a namespace that does not exist is refused and nothing is stored)', async () => {
    const refused = await rejection(admin.resource(CM, 'no-such-namespace').create(cm('orphan')));
    assert.equal(refused.code, 404);
    assert.match(refused.message, /namespaces "no-such-namespace" not found/);
    assert.equal((await admin.resource(CM).list({ fieldSelector: 'metadata.name=orphan' })).items.length, 0);
  });

  it('spec 2.11: audit records a direct request with its user agent and the loopback address', async () => {
    const agent = direct(server.adminToken, 'direct-test/1.0');
    const created = await agent.resource(CM, 'audited').create(cm('seen'));
    const deadline = Date.now() + 5000;
    let done: AuditEvent | undefined;
    while (!done && Date.now() < deadline) {
      done = readEvents(auditLog).find((e) => e.objectRef?.name === 'seen' && e.stage === 'ResponseComplete');
      await sleep(20);
    }
    assert.ok(done, 'the create was audited');
    // The name is in the body, so only the completed event names it; both stages share the audit ID.
    assert.ok(readEvents(auditLog).some((e) => e.auditID === done.auditID && e.stage === 'RequestReceived'));
    assert.equal(done.verb, 'create');
    assert.equal(done.userAgent, 'direct-test/1.0');
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    assert.equal(done.responseStatus?.code, 201);
    assert.equal(done.objectRef?.namespace, created.metadata.namespace);
  });

  it('spec 5.7: repeated Impersonate-Group headers stay separate groups', async () => {
    const review = await admin.transport.json<{ status: { userInfo: { username: string; groups: string[] } } }>({
      method: 'POST',
      path: `/apis/${AUTHENTICATION_GROUP}/v1/selfsubjectreviews`,
      headers: { 'impersonate-user': 'alice', 'impersonate-group': ['team-a', 'team-b'] },
      body: { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'SelfSubjectReview' },
    });
    assert.equal(review.status.userInfo.username, 'alice');
    assert.ok(review.status.userInfo.groups.includes('team-a') && review.status.userInfo.groups.includes('team-b'), JSON.stringify(review.status.userInfo.groups));
  });

  it('a request timeout fails the call and ends the request on the server (a watch there stops)', async () => {
    const started = Date.now();
    await assert.rejects(admin.transport.request({ method: 'GET', path: '/api/v1/namespaces/slow/configmaps', query: { watch: true }, timeoutMs: 150 }), RequestTimeoutError);
    assert.ok(Date.now() - started < 2000);
    await untilNoWatchers();
  });

  it('aborting a streamed watch ends it on the server; events before the abort arrive in order', async () => {
    const abort = new AbortController();
    const { stream } = await admin.transport.open({ method: 'GET', path: '/api/v1/namespaces/slow/configmaps', query: { watch: true }, signal: abort.signal });
    assert.equal(await configMapWatchers(), 1);
    const cms = admin.resource(CM, 'slow');
    for (const n of ['one', 'two']) await cms.create(cm(n));
    const names: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of watchEvents(stream)) {
          names.push(e.object.metadata.name ?? '');
          if (names.length === 2) abort.abort();
        }
      })(),
      /abort/i,
    );
    assert.deepEqual(names, ['one', 'two']);
    await untilNoWatchers();
  });

  it('a watch reader that pauses holds the server back (backpressure) and then gets every event in order', async () => {
    const { stream } = await admin.transport.open({ method: 'GET', path: '/api/v1/namespaces/slow/configmaps', query: { watch: true, resourceVersion: (await admin.resource(CM, 'slow').list()).metadata.resourceVersion } });
    const payload = 'x'.repeat(1024);
    // ~600 KiB of events while nothing reads: far past the stream's buffer, within the server's queue (1000).
    for (let i = 0; i < 600; i++) await admin.resource(CM, 'slow').create(cm(`bp-${i}`, { payload }));
    assert.ok(stream.readableLength < 600 * 1024, `the server kept writing into an unread stream (${stream.readableLength} bytes buffered)`);
    const names: string[] = [];
    for await (const e of watchEvents(stream)) {
      names.push(e.object.metadata.name ?? '');
      if (names.length === 600) break;
    }
    assert.deepEqual(names, Array.from({ length: 600 }, (_, i) => `bp-${i}`));
    await untilNoWatchers();
  });

  it('a reader too far behind is cut off with an error, not left waiting (watch queue bound)', async () => {
    const { stream } = await admin.transport.open({ method: 'GET', path: '/api/v1/namespaces/stuck/configmaps', query: { watch: true, resourceVersion: (await admin.resource(CM, 'stuck').list()).metadata.resourceVersion } });
    const payload = 'y'.repeat(256);
    for (let i = 0; i < 1100; i++) await admin.resource(CM, 'stuck').create(cm(`st-${i}`, { payload }));
    let read = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of watchEvents(stream)) read++;
      })(),
      /reset/,
    );
    assert.ok(read < 1100, `read ${read} events of a watch the server gave up on`);
    await untilNoWatchers();
  });
});

describe('the in-process controller manager uses the direct transport (issue 19)', () => {
  let server: RunningServer;
  const auditLog = join(dir, 'manager-audit.log');

  before(async () => {
    writeFileSync(join(dir, 'manager-policy.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  userGroups: ["system:masters"]\n  verbs: ["create"]\n  resources: [{ group: "", resources: ["serviceaccounts"] }]\n- level: None\n');
    server = await startServer({ port: 0, storage: { type: 'memory' }, dataDir: join(dir, 'manager-data'), auditPolicyFile: join(dir, 'manager-policy.yaml'), auditLog: { path: auditLog } });
  });
  after(() => server.close());

  it('spec 2.11: its writes pass through the chain and are audited as requests of the manager from the loopback address', async () => {
    const admin = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
    await admin.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
    admin.close();
    const deadline = Date.now() + 10_000;
    let done: AuditEvent | undefined;
    while (!done && Date.now() < deadline) {
      done = readEvents(auditLog).find((e) => e.objectRef?.namespace === 'team' && e.objectRef?.name === 'default' && e.stage === 'ResponseComplete');
      await sleep(50);
    }
    assert.ok(done, 'the serviceaccount controller created the default account, and audit recorded it');
    assert.equal(done.userAgent, 'orch-apiserver/controller-manager');
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    assert.equal(done.responseStatus?.code, 201);
  });
});
