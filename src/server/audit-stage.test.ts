import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePolicy, parsePolicy } from '../audit/policy.js';
import type { AuditEvent, AuditSink } from '../audit/types.js';
import { AlwaysAllowAuthorizer } from '../authz/index.js';
import { AuditStage } from './audit-stage.js';
import { buildChain, type RequestContext } from './chain.js';
import type { Req, Res } from './http.js';

/** A response that records what the chain does with it. */
class FakeRes implements Res {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  headers: Record<string, unknown> = {};
  body = '';
  setHeader(name: string, value: unknown) {
    this.headers[name.toLowerCase()] = value;
  }
  getHeader(name: string) {
    return this.headers[name.toLowerCase()];
  }
  flushHeaders() {
    this.headersSent = true;
  }
  write(chunk: Buffer | string) {
    this.headersSent = true;
    this.body += chunk.toString();
    return true;
  }
  end(chunk?: Buffer | string) {
    if (chunk) this.body += chunk.toString();
    this.headersSent = true;
    this.writableEnded = true;
  }
  on() {}
  once() {}
  removeListener() {}
}

const req = (url: string, headers: Record<string, string> = {}): Req => ({ method: 'GET', url, headers: { authorization: 'Bearer t', ...headers }, socket: { remoteAddress: '::ffff:10.0.0.9' } });

/** A sink that keeps copies of what it is given; `fail` makes strict delivery report a loss. */
function memorySink(fail = false) {
  const events: AuditEvent[] = [];
  const sink: AuditSink & { strict: boolean; deliver(e: readonly AuditEvent[]): Promise<boolean> } = {
    strict: fail,
    processEvents: (e) => void events.push(...e.map((x) => structuredClone(x))),
    deliver: async (e) => {
      if (fail) return false;
      events.push(...e.map((x) => structuredClone(x)));
      return true;
    },
    shutdown: async () => undefined,
  };
  return { sink, events };
}

function chainWith(handler: (ctx: RequestContext) => Promise<void>, level = 'Metadata', fail = false) {
  const policy = parsePolicy(`apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: ${level}\n`, 'p.yaml');
  const { sink, events } = memorySink(fail);
  const audit = new AuditStage({ evaluate: compilePolicy(policy), sink, strict: fail, log: () => undefined });
  const chain = buildChain({
    authenticator: { authenticate: (r) => (r.headers.authorization === 'Bearer t' ? { username: 'u', groups: ['g'] } : undefined) },
    authorizer: new AlwaysAllowAuthorizer(),
    handler,
    audit,
  });
  return { chain, events };
}

describe('the audit stage of the chain (spec 2.11)', () => {
  it('spec 2.11: an internal error escaping the handler is a Panic event with a 500 Status, and no ResponseComplete', async () => {
    const { chain, events } = chainWith(async () => {
      throw new TypeError('boom');
    });
    const res = new FakeRes();
    await chain(req('/api/v1/namespaces/a/pods'), res);
    assert.equal(res.statusCode, 500);
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'Panic']);
    assert.deepEqual(events[1]?.responseStatus, { metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
  });

  it('spec 2.11: a long-running request gets ResponseStarted when its headers go out', async () => {
    const { chain, events } = chainWith(async (ctx) => {
      assert.deepEqual(events.map((e) => e.stage), ['RequestReceived']);
      (ctx.res as FakeRes).flushHeaders();
      assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted']);
      ctx.res.write('{"type":"ADDED"}\n');
      ctx.res.end();
    });
    await chain(req('/api/v1/namespaces/a/pods?watch=1'), new FakeRes());
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.deepEqual(events[1]?.responseStatus, { metadata: {}, code: 200 });
  });

  it('reference behaviour: a long-running request that never answered gets a made-up ResponseStarted', async () => {
    const { chain, events } = chainWith(async () => undefined);
    await chain(req('/api/v1/namespaces/a/pods/p/log'), new FakeRes());
    assert.deepEqual(events.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    assert.equal(events[2]?.responseStatus?.message, 'Connection closed early');
  });

  it('spec 2.11: the fields of a plain request, IPv6-mapped peers written as IPv4 after the forwarded ones', async () => {
    const { chain, events } = chainWith(async (ctx) => void ctx.res.end('{}'));
    const res = new FakeRes();
    await chain(req('/api/v1/namespaces/a/pods/p?x=1', { 'x-forwarded-for': '1.2.3.4, bogus', 'user-agent': 'ua' }), res);
    const done = events[1] as AuditEvent;
    assert.equal(done.requestURI, '/api/v1/namespaces/a/pods/p?x=1');
    assert.deepEqual(done.sourceIPs, ['1.2.3.4', '10.0.0.9']);
    assert.deepEqual(done.objectRef, { resource: 'pods', namespace: 'a', name: 'p', apiVersion: 'v1' });
    assert.deepEqual(done.user, { username: 'u', groups: ['g'] });
    assert.equal(res.headers['audit-id'], done.auditID);
  });

  it('spec 2.11: a RequestResponse get records the JSON body it answered', async () => {
    const { chain, events } = chainWith(async (ctx) => {
      ctx.res.setHeader('content-type', 'application/json');
      ctx.res.end('{"kind":"Pod","metadata":{"name":"p","managedFields":[]}}');
    }, 'RequestResponse');
    await chain(req('/api/v1/namespaces/a/pods/p'), new FakeRes());
    assert.deepEqual(events[1]?.responseObject, { kind: 'Pod', metadata: { name: 'p', managedFields: [] } });
  });

  it('reference behaviour: blocking-strict fails the request with 500 when RequestReceived cannot be stored', async () => {
    let ran = false;
    const { chain } = chainWith(async () => void (ran = true), 'Metadata', true);
    const res = new FakeRes();
    await chain(req('/api/v1/namespaces/a/pods'), res);
    assert.equal(res.statusCode, 500);
    assert.match(res.body, /failed to store audit event/);
    assert.equal(ran, false);
  });

  it('reference behaviour: a request that fails authentication, with no credentials, says so', async () => {
    const { chain, events } = chainWith(async () => undefined);
    const res = new FakeRes();
    await chain({ ...req('/healthz'), headers: {} }, res);
    assert.equal(res.statusCode, 401);
    assert.deepEqual(events.map((e) => [e.stage, e.responseStatus?.message]), [['ResponseStarted', 'Authentication failed, no credentials provided']]);
  });
});
