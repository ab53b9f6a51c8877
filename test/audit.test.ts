/**
 * Audit in a whole server (spec 2.11, 6.5, 7): the policy's levels and stages, the Event fields, the
 * Audit-Id header, and the log backend's file, read back as JSON lines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import type { AuditEvent } from '../src/audit/types.js';
import { client, watchEvents } from './helpers/client.js';
import { eventsOf, readEvents } from './helpers/audit-log.js';

const dir = mkdtempSync(join(tmpdir(), 'orch-audit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const POLICY = `apiVersion: audit.orch.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: Metadata
  resources: [{ group: "", resources: ["secrets"] }]
- level: RequestResponse
  namespaces: ["rr"]
- level: Request
  namespaces: ["req"]
  omitManagedFields: true
- level: Metadata
  namespaces: ["omit"]
  omitStages: ["RequestReceived"]
- level: None
  namespaces: ["quiet"]
- level: Metadata
`;

describe('audit events in the log backend (spec 2.11)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const logFile = join(dir, 'logs', 'audit.log');
  const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { greeting: 'hello' } });

  before(async () => {
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'tok-nobody,nobody,uid-nobody,nogroup\n');
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, tokenAuthFile: join(dir, 'tokens.csv'), auditPolicyFile: join(dir, 'policy.yaml'), auditLog: { path: logFile } });
    call = client(server);
    for (const ns of ['rr', 'req', 'omit', 'quiet']) assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
  });
  after(async () => server?.close());

  it('spec 2.11: a create at RequestResponse has both stages, both objects, the Status fields and the Audit-Id it answered with', async () => {
    const r = await call('POST', '/api/v1/namespaces/rr/configmaps', { body: cm('full'), headers: { 'user-agent': 'audit-test/1.0' } });
    assert.equal(r.status, 201);
    const id = r.headers['audit-id'] as string;
    assert.match(id, /^[0-9a-f-]{36}$/);
    const events = await eventsOf(logFile, id, 2);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    const [received, done] = events as [AuditEvent, AuditEvent];
    assert.equal(done.kind, 'Event');
    assert.equal(done.apiVersion, 'audit.orch.io/v1');
    assert.equal(done.level, 'RequestResponse');
    assert.equal(done.verb, 'create');
    assert.equal(done.requestURI, '/api/v1/namespaces/rr/configmaps');
    assert.equal(done.user.username, 'orch-admin');
    assert.ok(done.user.groups?.includes('system:masters'));
    assert.deepEqual(done.sourceIPs, ['127.0.0.1']);
    assert.equal(done.userAgent, 'audit-test/1.0');
    assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'rr', name: 'full', apiVersion: 'v1' }, 'the name comes from the body');
    assert.deepEqual(done.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual((done.requestObject as { data: unknown }).data, { greeting: 'hello' });
    const created = done.responseObject as { metadata: { uid: string; resourceVersion: string } };
    assert.equal(created.metadata.uid, r.json.metadata.uid);
    assert.equal(received.responseStatus, undefined);
    assert.equal(received.stageTimestamp, received.requestReceivedTimestamp);
    assert.match(done.stageTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    assert.ok(done.stageTimestamp >= done.requestReceivedTimestamp);
    assert.equal(done.annotations?.['authorization.orch.io/decision'], 'allow');
    assert.equal(received.annotations, undefined, 'authorization runs after RequestReceived');
  });

  it('spec 2.11: a client-sent Audit-ID is the event ID and the response header', async () => {
    const r = await call('GET', '/api/v1/namespaces/rr/configmaps/full', { headers: { 'Audit-ID': 'client-chosen-id' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['audit-id'], 'client-chosen-id');
    const events = await eventsOf(logFile, 'client-chosen-id', 2);
    assert.equal(events.length, 2);
    assert.equal(events[1]?.verb, 'get');
    assert.equal((events[1]?.responseObject as { metadata: { name: string } }).metadata.name, 'full', 'a get at RequestResponse carries the object read');
  });

  it('spec 2.11: level Request carries the request object (managedFields omitted) but no response object', async () => {
    const r = await call('POST', '/api/v1/namespaces/req/configmaps', { body: cm('partial', { managedFields: [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] }) });
    assert.equal(r.status, 201);
    const [, done] = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    assert.equal(done?.level, 'Request');
    const obj = done?.requestObject as { metadata: Record<string, unknown>; data: unknown };
    assert.deepEqual(obj.data, { greeting: 'hello' });
    assert.equal('managedFields' in obj.metadata, false);
    assert.equal('responseObject' in (done as object), false);
  });

  it('spec 2.11: a Secret at Metadata level never shows its data', async () => {
    const secret = 'c3VwZXItc2VjcmV0LXZhbHVl';
    const r = await call('POST', '/api/v1/namespaces/rr/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, data: { password: secret } } });
    assert.equal(r.status, 201);
    const events = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    assert.equal(events.length, 2);
    assert.ok(events.every((e) => e.level === 'Metadata' && !('requestObject' in e) && !('responseObject' in e)));
    assert.equal(events[1]?.objectRef?.name, 's1');
    assert.equal(readFileSync(logFile, 'utf8').includes(secret), false, 'the value appears nowhere in the log');
  });

  it('spec 2.11: omitStages drops RequestReceived; level None writes nothing but still answers an Audit-Id', async () => {
    const omitted = await call('GET', '/api/v1/namespaces/omit/configmaps');
    assert.deepEqual((await eventsOf(logFile, omitted.headers['audit-id'] as string, 1)).map((e) => e.stage), ['ResponseComplete']);
    const quiet = await call('GET', '/api/v1/namespaces/quiet/configmaps');
    assert.equal(quiet.status, 200);
    assert.ok(quiet.headers['audit-id']);
    await call('GET', '/api/v1/namespaces/omit/configmaps/none'); // a later event: the quiet one would be written by now
    assert.equal((await eventsOf(logFile, quiet.headers['audit-id'] as string, 1)).length, 0);
  });

  it('spec 2.11: a watch has ResponseStarted between RequestReceived and ResponseComplete', async () => {
    let id = '';
    await new Promise<void>((resolve, reject) => {
      watchEvents(server, '/api/v1/namespaces/rr/configmaps?watch=1&timeoutSeconds=1', 1, 5000).then(() => resolve(), reject);
    });
    // The watch above ended after its first (initial ADDED) event; find its events by the request URI.
    const deadline = Date.now() + 5000;
    let mine: AuditEvent[] = [];
    while (Date.now() < deadline) {
      mine = readEvents(logFile).filter((e) => e.verb === 'watch' && e.objectRef?.namespace === 'rr');
      id = mine[0]?.auditID ?? '';
      if (mine.some((e) => e.stage === 'ResponseComplete')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(id);
    const stages = mine.filter((e) => e.auditID === id).map((e) => e.stage);
    assert.deepEqual(stages, ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(mine.find((e) => e.stage === 'ResponseStarted')?.responseStatus?.code, 200);
    assert.equal('responseObject' in (mine.find((e) => e.stage === 'ResponseComplete') as object), false, 'a watch stream is not a response object');
  });

  it('spec 2.11: a 403 carries the forbid decision, its reason and the Status fields', async () => {
    const r = await call('GET', '/api/v1/namespaces/rr/configmaps', { token: 'tok-nobody' });
    assert.equal(r.status, 403);
    const events = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    const done = events[1] as AuditEvent;
    assert.equal(done.stage, 'ResponseComplete');
    assert.equal(done.user.username, 'nobody');
    assert.equal(done.responseStatus?.code, 403);
    assert.equal(done.responseStatus?.reason, 'Forbidden');
    assert.equal(done.responseStatus?.status, 'Failure');
    assert.match(done.responseStatus?.message ?? '', /forbidden/);
    assert.equal(done.annotations?.['authorization.orch.io/decision'], 'forbid');
    assert.equal(typeof done.annotations?.['authorization.orch.io/reason'], 'string');
    assert.equal('responseObject' in done, true, 'RequestResponse level keeps the Status answered');
  });

  it('reference behaviour: a 401 is one ResponseStarted event, with no user, saying which credentials failed', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/pods', { token: 'wrong-token' });
    assert.equal(r.status, 401);
    const events = await eventsOf(logFile, r.headers['audit-id'] as string, 1);
    assert.equal(events.length, 1);
    const [ev] = events as [AuditEvent];
    assert.equal(ev.stage, 'ResponseStarted');
    assert.equal(ev.level, 'Metadata');
    assert.deepEqual(ev.user, { username: '' });
    assert.deepEqual(ev.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
  });

  it('spec 2.11: impersonation sets impersonatedUser while user stays the requester', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'team' } });
    assert.equal(r.status, 403, 'bob has no rights');
    const [, done] = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    assert.equal(done?.user.username, 'orch-admin');
    assert.equal(done?.impersonatedUser?.username, 'bob');
    assert.ok(done?.impersonatedUser?.groups?.includes('team'));
  });

  it('spec 7: a deprecated API is annotated orch.io/deprecated=true', async () => {
    const r = await call('GET', '/api/v1/componentstatuses');
    assert.equal(r.status, 200);
    const [, done] = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    assert.equal(done?.annotations?.['orch.io/deprecated'], 'true');
  });

  it('spec 2.11: a delete at Metadata carries the Success Status fields of its answer', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('gone') });
    const r = await call('DELETE', '/api/v1/namespaces/default/configmaps/gone');
    assert.equal(r.status, 200);
    const [, done] = await eventsOf(logFile, r.headers['audit-id'] as string, 2);
    assert.equal(done?.responseStatus?.status, 'Success');
    assert.equal(done?.responseStatus?.code, 200);
    assert.equal(done?.objectRef?.name, 'gone');
  });
});

describe('audit log rotation in a server (spec 2.11)', () => {
  it('spec 2.11: --audit-log-maxsize rotates to <name>-<time>.<ext>, --audit-log-maxbackup keeps that many', async () => {
    const logDir = join(dir, 'rotation');
    writeFileSync(join(dir, 'rr-policy.yaml'), 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  verbs: ["create"]\n');
    const server = await startServer({ port: 0, dataDir: join(dir, 'data-rot'), storage: { type: 'memory' }, auditPolicyFile: join(dir, 'rr-policy.yaml'), auditLog: { path: join(logDir, 'audit.log'), maxSizeMB: 1, maxBackups: 2 } });
    try {
      const call = client(server);
      const big = 'x'.repeat(200 * 1024);
      // Each create logs ~400 KiB (its object twice at RequestResponse, two stages): 12 creates make ~5 MB.
      for (let i = 0; i < 12; i++) assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}` }, data: { big } } })).status, 201);
      await new Promise((r) => setTimeout(r, 200));
      const files = readdirSync(logDir).sort();
      const backups = files.filter((f) => /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/.test(f));
      assert.equal(backups.length, 2, files.join(' '));
      assert.ok(files.includes('audit.log'));
      for (const f of files) {
        const text = readFileSync(join(logDir, f), 'utf8');
        assert.ok(text.length <= 1024 * 1024, `${f} stays within the size`);
        for (const line of text.split('\n').filter(Boolean)) assert.equal((JSON.parse(line) as AuditEvent).kind, 'Event');
      }
    } finally {
      await server.close();
    }
  });
});
