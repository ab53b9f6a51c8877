/**
 * Audit records that need the whole server (spec 2.11, issue 17): a request refused by max-in-flight or by
 * priority and fairness (429) is audited with its user, as the reference's audit filter sits outside both;
 * the create-only operations (reviews, TokenRequest, evictions, bindings) carry their requestObject from
 * level Request on. Every assertion reads the real log file back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as h2connect, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { APF_PRIORITY_LEVEL_UID_HEADER, AUDIT_GROUP, AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../src/api/naming.js';
import type { AuditEvent } from '../src/audit/types.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { eventsOf, readEvents } from './helpers/audit-log.js';

const CM = '/api/v1/namespaces/default/configmaps';
const NS = '/api/v1/namespaces/default';
const FC = '/apis/flowcontrol.apiserver.orch.io/v1';

const until = async (what: string, f: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

function h2(server: RunningServer): ClientHttp2Session {
  const s = h2connect(server.url, { ca: server.caCertPem });
  s.on('error', () => undefined);
  return s;
}

/** One request with a chosen Audit-ID; status and headers (the body is read and dropped). */
function h2req(s: ClientHttp2Session, token: string, method: string, path: string, auditID: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const r = s.request({ ':method': method, ':path': path, authorization: `Bearer ${token}`, 'audit-id': auditID, ...(body ? { 'content-type': 'application/json' } : {}) });
    let headers: Record<string, unknown> = {};
    r.on('response', (h) => (headers = h));
    r.on('data', () => undefined);
    r.on('end', () => resolve({ status: Number(headers[':status']), headers }));
    r.on('error', reject);
    r.end(body ? JSON.stringify(body) : undefined);
  });
}

/** A create whose body never finishes arriving: it holds its in-flight slot (or seat) until closed. */
function holdSlot(s: ClientHttp2Session, token: string): { close(): void } {
  const held = s.request({ ':method': 'POST', ':path': CM, authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  held.on('error', () => undefined);
  held.write('{');
  return { close: () => held.close() };
}

const METADATA_POLICY = `apiVersion: ${AUDIT_GROUP}/v1\nkind: Policy\nrules:\n- level: Metadata\n`;

/** The refused request's two events: RequestReceived, then ResponseComplete with 429, both naming the user. */
async function assertRefusalAudited(file: string, id: string, username: string): Promise<void> {
  const events = await eventsOf(file, id, 2);
  assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  for (const e of events) assert.equal(e.user.username, username);
  const done = events[1] as AuditEvent;
  assert.equal(done.responseStatus?.code, 429);
  assert.equal(done.verb, 'create');
  assert.equal(done.objectRef?.resource, 'configmaps');
}

describe('audit of requests refused for load (spec 2.11, reference behaviour)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'orch-audit-429-'));
    writeFileSync(join(dir, 'policy.yaml'), METADATA_POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'tok-u,user,uid-u,team\ntok-carol,carol,uid-c,team\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reference behaviour: with priority and fairness off, a create refused by max-in-flight (429) is audited with its user and code', async () => {
    const logFile = join(dir, 'off.log');
    const s = await startServer({
      port: 0,
      storage: { type: 'memory' },
      dataDir: join(dir, 'off'),
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationModes: ['AlwaysAllow'],
      enablePriorityAndFairness: false,
      maxRequestsInflight: 1,
      maxMutatingRequestsInflight: 1,
      auditPolicyFile: join(dir, 'policy.yaml'),
      auditLog: { path: logFile },
    });
    const session = h2(s);
    try {
      const held = holdSlot(session, 'tok-u');
      await new Promise((r) => setTimeout(r, 200));
      const limited = await h2req(session, 'tok-u', 'POST', CM, 'refused-by-max-in-flight', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers['audit-id'], 'refused-by-max-in-flight');
      held.close();
      await assertRefusalAudited(logFile, 'refused-by-max-in-flight', 'user');
    } finally {
      session.close();
      await s.close();
    }
  });

  it('reference behaviour: with priority and fairness on, a create its priority level rejects (429) is audited with its user and code', async () => {
    const logFile = join(dir, 'on.log');
    const s = await startServer({
      port: 0,
      storage: { type: 'memory' },
      dataDir: join(dir, 'on'),
      tokenAuthFile: join(dir, 'tokens.csv'),
      authorizationModes: ['AlwaysAllow'],
      maxRequestsInflight: 1,
      maxMutatingRequestsInflight: 1,
      auditPolicyFile: join(dir, 'policy.yaml'),
      auditLog: { path: logFile },
    });
    const call = client(s);
    const session = h2(s);
    try {
      // carol's own level: one seat, nothing borrowed, and no queue (a request finding it busy is rejected).
      const level = await call('POST', `${FC}/prioritylevelconfigurations`, {
        body: { apiVersion: 'flowcontrol.apiserver.orch.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'one-seat' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, borrowingLimitPercent: 0, limitResponse: { type: 'Reject' } } } },
      });
      assert.equal(level.status, 201, level.text);
      const schema = await call('POST', `${FC}/flowschemas`, {
        body: {
          apiVersion: 'flowcontrol.apiserver.orch.io/v1',
          kind: 'FlowSchema',
          metadata: { name: 'for-carol' },
          spec: { priorityLevelConfiguration: { name: 'one-seat' }, matchingPrecedence: 100, rules: [{ subjects: [{ kind: 'User', user: { name: 'carol' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] },
        },
      });
      assert.equal(schema.status, 201, schema.text);
      await until('carol classified into one-seat', async () => (await h2req(session, 'tok-carol', 'GET', CM, 'probe')).headers[APF_PRIORITY_LEVEL_UID_HEADER.toLowerCase()] === level.json.metadata.uid);
      const held = holdSlot(session, 'tok-carol');
      await new Promise((r) => setTimeout(r, 200));
      const rejected = await h2req(session, 'tok-carol', 'POST', CM, 'rejected-by-apf', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
      assert.equal(rejected.status, 429);
      held.close();
      await assertRefusalAudited(logFile, 'rejected-by-apf', 'carol');
    } finally {
      session.close();
      await s.close();
    }
  });
});

describe('requestObject of create-only operations (spec 2.11)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const logFile = () => join(dir, 'audit.log');
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-audit-reviews-'));
    writeFileSync(
      join(dir, 'policy.yaml'),
      `apiVersion: ${AUDIT_GROUP}/v1
kind: Policy
rules:
- level: Metadata
  namespaces: ["meta"]
- level: RequestResponse
  resources: [{ group: ${JSON.stringify(AUTHORIZATION_GROUP)}, resources: ["selfsubjectaccessreviews"] }]
- level: Request
  resources: [{ group: ${JSON.stringify(AUTHENTICATION_GROUP)} }, { group: ${JSON.stringify(AUTHORIZATION_GROUP)} }]
- level: Request
  resources: [{ group: "", resources: ["pods/eviction", "pods/binding", "bindings", "serviceaccounts/token"] }]
- level: Metadata
`,
    );
    server = await startServer({ port: 0, storage: { type: 'memory' }, dataDir: join(dir, 'data'), auditPolicyFile: join(dir, 'policy.yaml'), auditLog: { path: logFile() } });
    call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'meta' } } })).status, 201);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Posts `body` and returns the ResponseComplete event of that request. */
  async function audited(path: string, body: Record<string, unknown>, status: number): Promise<AuditEvent> {
    const r = await call('POST', path, { body });
    assert.equal(r.status, status, r.text);
    const events = await eventsOf(logFile(), r.headers['audit-id'] as string, 2);
    const done = events.find((e) => e.stage === 'ResponseComplete');
    assert.ok(done, `a ResponseComplete event for ${path}`);
    return done;
  }

  const authn = `/apis/${AUTHENTICATION_GROUP}/v1`;
  const authz = `/apis/${AUTHORIZATION_GROUP}/v1`;
  const sar = { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } };
  const reviews: [string, string, Record<string, unknown>][] = [
    ['TokenReview', `${authn}/tokenreviews`, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenReview', spec: { token: 'not-a-real-token' } }],
    ['SelfSubjectReview', `${authn}/selfsubjectreviews`, { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'SelfSubjectReview' }],
    ['SubjectAccessReview', `${authz}/subjectaccessreviews`, { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SubjectAccessReview', spec: { user: 'someone', ...sar } }],
    ['LocalSubjectAccessReview', `${authz}/namespaces/default/localsubjectaccessreviews`, { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'LocalSubjectAccessReview', metadata: { namespace: 'default' }, spec: { user: 'someone', ...sar } }],
    ['SelfSubjectRulesReview', `${authz}/selfsubjectrulesreviews`, { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } }],
  ];
  for (const [kind, path, body] of reviews) {
    it(`spec 2.11: a ${kind} at level Request carries the review it was sent as requestObject, and no responseObject`, async () => {
      const e = await audited(path, body, 201);
      assert.equal(e.level, 'Request');
      assert.deepEqual(e.requestObject, body);
      assert.equal(e.responseObject, undefined);
      assert.equal(e.responseStatus?.code, 201);
    });
  }

  it('spec 2.11: a SelfSubjectAccessReview at RequestResponse carries both the review sent and the answer', async () => {
    const body = { apiVersion: `${AUTHORIZATION_GROUP}/v1`, kind: 'SelfSubjectAccessReview', spec: sar };
    const e = await audited(`${authz}/selfsubjectaccessreviews`, body, 201);
    assert.equal(e.level, 'RequestResponse');
    assert.deepEqual(e.requestObject, body);
    const answer = e.responseObject as { kind?: string; status?: { allowed?: boolean } };
    assert.equal(answer.kind, 'SelfSubjectAccessReview');
    assert.equal(answer.status?.allowed, true);
  });

  const pod = (name: string, ns = 'default') => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });

  it('spec 2.11: a pod eviction at level Request carries the Eviction as requestObject', async () => {
    assert.equal((await call('POST', `${NS}/pods`, { body: pod('evict-me') })).status, 201);
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-me', namespace: 'default' } };
    const e = await audited(`${NS}/pods/evict-me/eviction`, eviction, 201);
    assert.equal(e.level, 'Request');
    assert.deepEqual(e.objectRef, { resource: 'pods', namespace: 'default', name: 'evict-me', apiVersion: 'v1', subresource: 'eviction' });
    assert.deepEqual(e.requestObject, eviction);
  });

  it('spec 2.11: a binding (both URL forms) at level Request carries the Binding as requestObject', async () => {
    for (const [name, path] of [['bind-sub', `${NS}/pods/bind-sub/binding`], ['bind-col', `${NS}/bindings`]] as const) {
      assert.equal((await call('POST', `${NS}/pods`, { body: pod(name) })).status, 201);
      const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } };
      const e = await audited(path, binding, 201);
      assert.equal(e.level, 'Request');
      assert.deepEqual(e.requestObject, binding);
      assert.equal(e.objectRef?.name, name, 'the name comes from the URL or, for bindings, from the body');
    }
  });

  it('spec 2.11: an eviction at level Metadata carries no requestObject', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces/meta/pods', { body: pod('quiet', 'meta') })).status, 201);
    const e = await audited('/api/v1/namespaces/meta/pods/quiet/eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'quiet', namespace: 'meta' } }, 201);
    assert.equal(e.level, 'Metadata');
    assert.equal(e.requestObject, undefined);
    assert.equal(e.objectRef?.name, 'quiet');
  });
});
