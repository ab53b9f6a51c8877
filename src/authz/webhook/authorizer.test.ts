import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHORIZATION_GROUP } from '../../api/naming.js';
import { BackendFailure, type WebhookBackend } from '../../util/webhook-backend.js';
import { UnionAuthorizer, type Attributes, type Decision } from '../index.js';
import { WebhookAuthorizer, type FailurePolicy, type WebhookSettings } from './authorizer.js';
import { compileMatchCondition } from './conditions.js';
import { parseSarAnswer, sarBody, sarSpec } from './sar.js';

const alice = { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
const get = (name = 'cm', user: Attributes['user'] = alice): Attributes => ({
  user, verb: 'get', isResourceRequest: true, path: `/api/v1/namespaces/ns/configmaps/${name}`,
  apiGroup: '', apiVersion: 'v1', resource: 'configmaps', subresource: '', namespace: 'ns', name,
});
const healthz: Attributes = { user: alice, verb: 'get', isResourceRequest: false, path: '/healthz', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };

type Answer = Record<string, unknown> | Error | 'hang';
/** A backend that records each body and answers from `answer` (a status, a failure, or never). */
function fakeBackend(answer: (body: any) => Answer) {
  const bodies: any[] = [];
  let closed = false;
  const backend: WebhookBackend = {
    post: (text) => {
      const body = JSON.parse(text);
      bodies.push(body);
      const a = answer(body);
      if (a === 'hang') return new Promise(() => undefined);
      if (a instanceof Error) return Promise.reject(a);
      return Promise.resolve(JSON.stringify({ apiVersion: body.apiVersion, kind: 'SubjectAccessReview', status: a }));
    },
    close: () => void (closed = true),
  };
  return { backend, bodies, closed: () => closed };
}

function settings(over: Partial<WebhookSettings> = {}): WebhookSettings {
  return {
    name: 'hook',
    connection: { url: new URL('https://127.0.0.1:1/') },
    subjectAccessReviewVersion: 'v1',
    authorizedTTLMs: 300_000,
    unauthorizedTTLMs: 30_000,
    timeoutMs: 3000,
    failurePolicy: 'NoOpinion',
    matchConditions: [],
    ...over,
  };
}

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('webhook authorizer (spec 5.7 items 5 and 6)', () => {
  it('spec 2.8: sends a v1 SubjectAccessReview with the resource attributes and the user', async () => {
    const fake = fakeBackend(() => ({ allowed: true }));
    const z = new WebhookAuthorizer(settings(), { backend: fake.backend });
    assert.deepEqual(await z.authorize(get()), { decision: 'allow' });
    assert.deepEqual(fake.bodies[0], {
      apiVersion: `${AUTHORIZATION_GROUP}/v1`,
      kind: 'SubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: 'ns', verb: 'get', version: 'v1', resource: 'configmaps', name: 'cm' },
        user: 'alice', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] }, uid: 'u-1',
      },
      status: { allowed: false },
    });
  });

  it('spec 2.8: v1beta1 reviews spell the groups field "group"; non-resource requests send path and verb', async () => {
    const fake = fakeBackend(() => ({ allowed: false }));
    const z = new WebhookAuthorizer(settings({ subjectAccessReviewVersion: 'v1beta1' }), { backend: fake.backend });
    await z.authorize(healthz);
    assert.equal(fake.bodies[0].apiVersion, `${AUTHORIZATION_GROUP}/v1beta1`);
    assert.deepEqual(fake.bodies[0].spec, { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', group: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] }, uid: 'u-1' });
  });

  it('spec 5.7: status.allowed allows, status.denied denies, neither is no opinion, with the reason', async () => {
    const table: [Record<string, unknown>, Decision][] = [
      [{ allowed: true, reason: 'ok by policy' }, { decision: 'allow', reason: 'ok by policy' }],
      [{ allowed: false, denied: true, reason: 'blocked' }, { decision: 'deny', reason: 'blocked' }],
      [{ allowed: false }, { decision: 'noOpinion' }],
      [{ allowed: false, reason: 'no rule', evaluationError: 'policy store down' }, { decision: 'noOpinion', reason: 'no rule: policy store down' }],
      [{ allowed: true, denied: true }, { decision: 'deny', reason: 'the webhook answered both allowed and denied' }],
    ];
    for (const [status, want] of table) {
      const z = new WebhookAuthorizer(settings(), { backend: fakeBackend(() => status).backend });
      assert.deepEqual(await z.authorize(get()), want, JSON.stringify(status));
    }
  });

  it('spec 5.7 item 6: allow answers are cached for authorizedTTL, other answers for unauthorizedTTL', async () => {
    const c = clock();
    let allowed = true;
    const fake = fakeBackend(() => ({ allowed }));
    const z = new WebhookAuthorizer(settings({ authorizedTTLMs: 60_000, unauthorizedTTLMs: 10_000 }), { backend: fake.backend, now: c.now });
    await z.authorize(get('a'));
    await z.authorize(get('a'));
    c.advance(59_999);
    assert.equal((await z.authorize(get('a'))).decision, 'allow');
    assert.equal(fake.bodies.length, 1, 'a warm cache answers without calling');
    c.advance(1);
    allowed = false;
    assert.equal((await z.authorize(get('a'))).decision, 'noOpinion', 'the allow expired after authorizedTTL');
    assert.equal(fake.bodies.length, 2);
    c.advance(9_999);
    await z.authorize(get('a'));
    assert.equal(fake.bodies.length, 2, 'the no-opinion answer is cached for unauthorizedTTL');
    c.advance(1);
    await z.authorize(get('a'));
    assert.equal(fake.bodies.length, 3);
  });

  it('spec 5.7 item 6: the cache is keyed by every attribute (another name, verb or group is another call)', async () => {
    const fake = fakeBackend(() => ({ allowed: true }));
    const z = new WebhookAuthorizer(settings(), { backend: fake.backend });
    await z.authorize(get('a'));
    await z.authorize(get('b'));
    await z.authorize({ ...get('a'), verb: 'delete' });
    await z.authorize(get('a', { ...alice, groups: ['devs'] }));
    await z.authorize(get('a', { ...alice, extra: { scopes: ['a'] } }));
    await z.authorize(get('a'));
    assert.equal(fake.bodies.length, 5);
  });

  it('reference behaviour: concurrent identical requests make one call; a zero TTL caches nothing', async () => {
    const fake = fakeBackend(() => ({ allowed: true }));
    const z = new WebhookAuthorizer(settings({ authorizedTTLMs: 0 }), { backend: fake.backend });
    const all = await Promise.all([z.authorize(get()), z.authorize(get()), z.authorize(get())]);
    assert.deepEqual(all.map((d) => d.decision), ['allow', 'allow', 'allow']);
    assert.equal(fake.bodies.length, 1);
    await z.authorize(get());
    assert.equal(fake.bodies.length, 2);
  });

  it('spec 5.7 item 6: a failing webhook follows failurePolicy (NoOpinion continues, Deny denies), uncached', async () => {
    const failures: [string, Answer | string][] = [
      ['down', new BackendFailure('Post "https://127.0.0.1:1/": connect ECONNREFUSED', true)],
      ['non-2xx', new BackendFailure('Error contacting webhook: 500', true)],
      ['slow', new BackendFailure('Post "https://127.0.0.1:1/": context deadline exceeded', true)],
    ];
    for (const policy of ['NoOpinion', 'Deny'] as FailurePolicy[]) {
      for (const [what, answer] of failures) {
        const logs: string[] = [];
        const fake = fakeBackend(() => answer as Answer);
        const z = new WebhookAuthorizer(settings({ failurePolicy: policy }), { backend: fake.backend, log: (m) => logs.push(m) });
        const d = await z.authorize(get());
        assert.equal(d.decision, policy === 'Deny' ? 'deny' : 'noOpinion', `${policy} ${what}`);
        assert.match(d.reason ?? '', /authorization webhook "hook" failed/);
        assert.doesNotMatch(d.reason ?? '', /127\.0\.0\.1/, 'the client does not learn where the webhook is');
        assert.ok((logs[0] ?? '').includes((answer as Error).message), 'the cause goes to the log');
        await z.authorize(get());
        assert.equal(fake.bodies.length, 2, 'failures are not cached');
      }
    }
  });

  it('spec 5.7 item 6: an answer that is not a SubjectAccessReview follows failurePolicy', async () => {
    const table = ['not json', '[1]', JSON.stringify({ apiVersion: 'v1', kind: 'SubjectAccessReview', status: { allowed: true } }), JSON.stringify({ kind: 'Status', status: {} }), JSON.stringify({ status: { allowed: 'yes' } }), JSON.stringify({ status: [] })];
    for (const text of table) {
      const backend: WebhookBackend = { post: async () => text, close: () => undefined };
      const z = new WebhookAuthorizer(settings({ failurePolicy: 'Deny' }), { backend });
      assert.equal((await z.authorize(get())).decision, 'deny', text);
    }
    assert.deepEqual(parseSarAnswer(JSON.stringify({ status: { allowed: true } })), { allowed: true, denied: false, reason: '', evaluationError: '' });
  });

  it('spec 5.7 item 6: match conditions: any false skips the webhook, all true calls it', async () => {
    const fake = fakeBackend(() => ({ allowed: true }));
    const conditions = ["has(request.resourceAttributes)", "request.resourceAttributes.namespace == 'ns'", "'devs' in request.groups"].map((e) => compileMatchCondition(e));
    const z = new WebhookAuthorizer(settings({ matchConditions: conditions, failurePolicy: 'Deny' }), { backend: fake.backend });
    assert.equal((await z.authorize(get())).decision, 'allow');
    assert.equal((await z.authorize({ ...get(), namespace: 'other' })).decision, 'noOpinion');
    assert.equal((await z.authorize(get('cm', { ...alice, groups: ['ops'] }))).decision, 'noOpinion');
    assert.equal((await z.authorize(healthz)).decision, 'noOpinion', 'has() is false for a non-resource request');
    assert.equal(fake.bodies.length, 1);
  });

  it('spec 5.7 item 6: a match condition error with none false: Deny denies, NoOpinion skips', async () => {
    // `resourceAttributes` is absent for a non-resource request: reading it is an error.
    const erring = compileMatchCondition("request.resourceAttributes.namespace == 'ns'");
    const falsy = compileMatchCondition("request.user == 'nobody'");
    for (const policy of ['Deny', 'NoOpinion'] as FailurePolicy[]) {
      const fake = fakeBackend(() => ({ allowed: true }));
      const z = new WebhookAuthorizer(settings({ matchConditions: [erring], failurePolicy: policy }), { backend: fake.backend });
      const d = await z.authorize(healthz);
      assert.equal(d.decision, policy === 'Deny' ? 'deny' : 'noOpinion', policy);
      assert.equal(fake.bodies.length, 0);
      const both = new WebhookAuthorizer(settings({ matchConditions: [erring, falsy], failurePolicy: policy }), { backend: fake.backend });
      assert.equal((await both.authorize(healthz)).decision, 'noOpinion', `${policy}: a false condition wins over an error`);
    }
  });

  it('spec 5.7 item 1: in a union, no opinion from the webhook falls through to the next module', async () => {
    const allowAll = { authorize: async (): Promise<Decision> => ({ decision: 'allow' }) };
    const z = new WebhookAuthorizer(settings(), { backend: fakeBackend(() => ({ allowed: false })).backend });
    assert.equal((await new UnionAuthorizer([z, allowAll]).authorize(get())).decision, 'allow');
    const denying = new WebhookAuthorizer(settings(), { backend: fakeBackend(() => ({ denied: true })).backend });
    assert.equal((await new UnionAuthorizer([denying, allowAll]).authorize(get())).decision, 'deny');
  });

  it('reference behaviour: close releases the backend', () => {
    const fake = fakeBackend(() => ({ allowed: true }));
    new WebhookAuthorizer(settings(), { backend: fake.backend }).close();
    assert.equal(fake.closed(), true);
  });

  it('spec 2.8: the review spec leaves out empty values', () => {
    const spec = sarSpec({ ...get(), user: { username: 'bob', groups: [] }, namespace: '' });
    assert.deepEqual(spec, { resourceAttributes: { verb: 'get', version: 'v1', resource: 'configmaps', name: 'cm' }, user: 'bob' });
    assert.equal(JSON.parse(sarBody(spec, 'v1beta1')).spec.group, undefined);
  });
});
