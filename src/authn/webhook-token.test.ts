import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import { BackendFailure } from '../util/webhook-backend.js';
import { authenticatorContract } from './testing.js';
import { UnionAuthenticator } from './union.js';
import type { UserInfo } from './types.js';
import {
  WebhookTokenAuthenticator,
  parseTokenReview,
  tokenReviewRequest,
  tokenWebhookFromConfig,
  type ReviewOutcome,
  type WebhookTokenAuthenticatorOptions,
} from './webhook-token.js';

const AUDS = ['https://api.example'];
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const review = (status: unknown, apiVersion = 'authentication.orch.io/v1') => JSON.stringify({ apiVersion, kind: 'TokenReview', status });
const alice = { authenticated: true, user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'scopes.example/x': ['a', 'b'] } } };

/** A backend that answers from a script (one entry per call; the last repeats) and records what it got. */
function scripted(outcomes: (string | BackendFailure | (() => Promise<string>))[]) {
  const sent: any[] = [];
  return {
    sent,
    post(body: string): Promise<string> {
      sent.push(JSON.parse(body));
      const next = outcomes[Math.min(sent.length - 1, outcomes.length - 1)]!;
      if (next instanceof BackendFailure) return Promise.reject(next);
      return typeof next === 'function' ? next() : Promise.resolve(next);
    },
  };
}

function webhook(backend: ReturnType<typeof scripted>, o: Partial<WebhookTokenAuthenticatorOptions> = {}) {
  const clock = { t: 1_000_000 };
  const slept: number[] = [];
  const a = new WebhookTokenAuthenticator({
    backend,
    audiences: AUDS,
    now: () => clock.t,
    sleep: async (ms) => {
      slept.push(ms);
      clock.t += ms;
    },
    ...o,
  });
  return { a, clock, slept };
}

/** The user, or the status code it was refused with (thrown at once, or by the promise). */
async function outcome(call: () => UserInfo | Promise<UserInfo> | undefined): Promise<UserInfo | number | undefined> {
  try {
    return await call();
  } catch (e) {
    assert.ok(isStatusError(e), `not a StatusError: ${String(e)}`);
    return e.code;
  }
}

describe('parseTokenReview: the webhook answer mapped to a user (reference behaviour, spec 5.1 item 3)', () => {
  const table: [string, unknown, ReviewOutcome][] = [
    ['authenticated: username, uid, groups and extra', alice, { user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'scopes.example/x': ['a', 'b'] } } }],
    ['authenticated without groups, uid or extra', { authenticated: true, user: { username: 'bob' } }, { user: { username: 'bob', groups: [] } }],
    ['null groups and extra are empty', { authenticated: true, user: { username: 'bob', groups: null, extra: null } }, { user: { username: 'bob', groups: [] } }],
    ['not authenticated, no reason', { authenticated: false }, {}],
    ['not authenticated, with the webhook\'s reason', { authenticated: false, error: 'token revoked' }, { error: 'token revoked' }],
    ['no status at all is not authenticated', undefined, {}],
    ['an error beside authenticated: true is ignored', { ...alice, error: 'ignored' }, { user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'scopes.example/x': ['a', 'b'] } } }],
    ['answered audiences meeting ours', { ...alice, audiences: ['other', AUDS[0]] }, { user: { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { 'scopes.example/x': ['a', 'b'] } } }],
    ['answered audiences missing ours: no user', { ...alice, audiences: ['other'] }, {}],
  ];
  for (const [name, status, want] of table) {
    it(`reference behaviour: ${name}`, () => assert.deepEqual(parseTokenReview(review(status), AUDS), want));
  }

  it('reference behaviour: an answer in v1beta1 or in the reference group spelling reads the same', () => {
    for (const v of ['authentication.orch.io/v1beta1', 'authentication.k8s.io/v1', 'authentication.k8s.io/v1beta1']) {
      assert.equal(parseTokenReview(review(alice, v), AUDS).user?.username, 'alice', v);
    }
  });

  const broken: [string, string, RegExp][] = [
    ['not JSON', '<html>oops</html>', /not JSON/],
    ['not an object', '[1]', /not a JSON object/],
    ['another kind', JSON.stringify({ apiVersion: 'authentication.orch.io/v1', kind: 'SubjectAccessReview', status: alice }), /not a TokenReview/],
    ['another group', JSON.stringify({ apiVersion: 'example.com/v1', kind: 'TokenReview', status: alice }), /not a TokenReview/],
    ['no kind', JSON.stringify({ status: alice }), /not a TokenReview/],
    ['authenticated as a string', review({ authenticated: 'true' }), /status.authenticated must be a boolean/],
    ['groups not strings', review({ authenticated: true, user: { username: 'a', groups: [1] } }), /status.user.groups/],
    ['extra values not lists', review({ authenticated: true, user: { username: 'a', extra: { k: 'v' } } }), /status.user.extra\[k\]/],
    ['username not a string', review({ authenticated: true, user: { username: 7 } }), /status.user.username/],
    ['audiences not a list', review({ ...alice, audiences: 'x' }), /status.audiences/],
  ];
  for (const [name, text, re] of broken) {
    it(`reference behaviour: a broken answer (${name}) is an error`, () => assert.throws(() => parseTokenReview(text, AUDS), re));
  }
});

describe('tokenReviewRequest (reference behaviour)', () => {
  it('reference behaviour: sends the token and the API audiences in the version asked for', () => {
    const body = JSON.parse(tokenReviewRequest('authentication.orch.io/v1beta1', 'tok', AUDS));
    assert.deepEqual(body, {
      apiVersion: 'authentication.orch.io/v1beta1',
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: 'tok', audiences: AUDS },
      status: { user: {} },
    });
  });
});

describe('WebhookTokenAuthenticator (spec 5.1, reference behaviour)', () => {
  it('spec 5.1: no opinion without a bearer token; the webhook is not called', async () => {
    const backend = scripted([review(alice)]);
    const { a } = webhook(backend);
    assert.equal(a.authenticate({ headers: {} }), undefined);
    assert.equal(a.authenticate({ headers: { authorization: 'Basic YTpi' } }), undefined);
    assert.equal(backend.sent.length, 0);
  });

  it('spec 5.1: an accepted token is the webhook\'s user; a denied one a 401; the default version is v1beta1', async () => {
    const { a } = webhook(scripted([review(alice)]));
    assert.deepEqual(await outcome(() => a.authenticate(bearer('good'))), alice.user);
    const denied = webhook(scripted([review({ authenticated: false, error: 'nope' })]));
    assert.equal(await outcome(() => denied.a.authenticate(bearer('bad'))), 401);
    const b = scripted([review(alice)]);
    await webhook(b).a.authenticate(bearer('x'));
    assert.equal(b.sent[0].apiVersion, 'authentication.orch.io/v1beta1');
  });

  it('reference behaviour: answers are cached for the TTL (hit is synchronous), then asked again', async () => {
    const backend = scripted([review(alice)]);
    const { a, clock } = webhook(backend, { cacheTtlMs: 120_000 });
    await a.authenticate(bearer('t'));
    const hit = a.authenticate(bearer('t'));
    assert.ok(!(hit instanceof Promise), 'a cache hit answers without a promise');
    assert.equal((hit as UserInfo).username, 'alice');
    assert.equal(backend.sent.length, 1);
    clock.t += 119_999;
    await a.authenticate(bearer('t'));
    assert.equal(backend.sent.length, 1, 'still within the TTL');
    clock.t += 1;
    await a.authenticate(bearer('t'));
    assert.equal(backend.sent.length, 2, 'expired: asked again');
    await a.authenticate(bearer('other'));
    assert.equal(backend.sent.length, 3, 'another token is another entry');
  });

  it('reference behaviour: a denial without a reason is cached; one with a reason and a failure are not', async () => {
    const plain = scripted([review({ authenticated: false })]);
    const p = webhook(plain).a;
    assert.equal(await outcome(() => p.authenticate(bearer('t'))), 401);
    assert.equal(await outcome(() => p.authenticate(bearer('t'))), 401);
    assert.equal(plain.sent.length, 1);
    const reasoned = scripted([review({ authenticated: false, error: 'expired' })]);
    const r = webhook(reasoned).a;
    await outcome(() => r.authenticate(bearer('t')));
    await outcome(() => r.authenticate(bearer('t')));
    assert.equal(reasoned.sent.length, 2);
    const failing = scripted([new BackendFailure('Error contacting webhook: 403', false), review(alice)]);
    const f = webhook(failing).a;
    assert.equal(await outcome(() => f.authenticate(bearer('t'))), 401);
    assert.equal((await outcome(() => f.authenticate(bearer('t'))) as UserInfo).username, 'alice', 'the failure was not remembered');
  });

  it('reference behaviour: a TTL of 0 turns the cache off', async () => {
    const backend = scripted([review(alice)]);
    const { a } = webhook(backend, { cacheTtlMs: 0 });
    await a.authenticate(bearer('t'));
    await a.authenticate(bearer('t'));
    assert.equal(backend.sent.length, 2);
  });

  it('reference behaviour: the cache is bounded; the oldest answer goes first', async () => {
    const backend = scripted([review(alice)]);
    const { a } = webhook(backend, { cacheSize: 2 });
    for (const t of ['t1', 't2', 't3']) await a.authenticate(bearer(t));
    assert.equal(backend.sent.length, 3);
    await a.authenticate(bearer('t3'));
    await a.authenticate(bearer('t2'));
    assert.equal(backend.sent.length, 3, 't2 and t3 are still cached');
    await a.authenticate(bearer('t1'));
    assert.equal(backend.sent.length, 4, 't1 was evicted');
  });

  it('reference behaviour: concurrent requests with one token share one webhook call', async () => {
    let release!: (s: string) => void;
    const backend = scripted([() => new Promise<string>((r) => (release = r))]);
    const { a } = webhook(backend);
    const both = Promise.all([a.authenticate(bearer('t')), a.authenticate(bearer('t'))]);
    await new Promise((r) => setImmediate(r));
    release(review(alice));
    const [u1, u2] = await both;
    assert.equal(u1?.username, 'alice');
    assert.equal(u2?.username, 'alice');
    assert.equal(backend.sent.length, 1);
  });

  it('reference behaviour: transient failures are retried with exponential backoff, up to 5 attempts', async () => {
    const down = new BackendFailure('connect ECONNREFUSED', true);
    const recovering = scripted([down, down, review(alice)]);
    const r = webhook(recovering);
    assert.equal((await outcome(() => r.a.authenticate(bearer('t'))) as UserInfo).username, 'alice');
    assert.equal(recovering.sent.length, 3);
    assert.equal(r.slept.length, 2);
    assert.ok(r.slept[0]! >= 500 && r.slept[0]! <= 600, `first wait ${r.slept[0]}`);
    assert.ok(r.slept[1]! >= 750 && r.slept[1]! <= 900, `second wait ${r.slept[1]}`);
    const dead = scripted([down]);
    const d = webhook(dead);
    assert.equal(await outcome(() => d.a.authenticate(bearer('t'))), 401);
    assert.equal(dead.sent.length, 5);
  });

  it('reference behaviour: a permanent failure is not retried, and no retry starts past the deadline', async () => {
    const forbidden = scripted([new BackendFailure('Error contacting webhook: 403', false)]);
    assert.equal(await outcome(() => webhook(forbidden).a.authenticate(bearer('t'))), 401);
    assert.equal(forbidden.sent.length, 1);
    const down = scripted([new BackendFailure('Error contacting webhook: 503', true)]);
    const d = webhook(down, { deadlineMs: 1000 });
    assert.equal(await outcome(() => d.a.authenticate(bearer('t'))), 401);
    assert.equal(down.sent.length, 2, 'one wait of ~500 ms fits in 1 s; the next (~750 ms) does not');
  });

  it('spec 5.1: in a union, a webhook failure ends in the generic 401 and a later authenticator still runs', async () => {
    const failing = webhook(scripted([new BackendFailure('socket hang up', true)]), { retry: { initialMs: 1, factor: 1, jitter: 0, steps: 1 } }).a;
    await assert.rejects(new UnionAuthenticator([failing]).authenticate(bearer('t')), (e: unknown) => isStatusError(e) && e.code === 401);
    const later = { authenticate: () => ({ username: 'fallback', groups: [] }) };
    const u = await new UnionAuthenticator([failing, later]).authenticate(bearer('t'));
    assert.equal(u.username, 'fallback');
  });

  it('reference behaviour: an unknown version is refused at construction', () => {
    assert.throws(() => new WebhookTokenAuthenticator({ backend: scripted([]), audiences: AUDS, version: 'v2' as 'v1' }), /--authentication-token-webhook-version: unsupported TokenReview version "v2"/);
  });
});

describe('tokenWebhookFromConfig: configuration errors are start-up errors naming the flag and file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-webhook-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const table: [string, string | null, RegExp][] = [
    ['a missing file', null, /cannot be read as a kubeconfig/],
    ['no cluster', 'clusters: []\n', /exactly one cluster/],
    ['a server that is not a URL', 'clusters:\n- name: c\n  cluster:\n    server: not a url\n', /cluster.server: Invalid value/],
    ['an unusable CA', 'clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority-data: ' + Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64') + '\n', /certificate-authority: unreadable certificate #1/],
    ['an exec user', 'clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\nusers:\n- name: u\n  user:\n    exec: {}\n', /user.exec: not supported/],
  ];
  for (const [name, text, re] of table) {
    it(`reference behaviour: ${name}`, () => {
      const path = text === null ? join(dir, 'missing.yaml') : file(`${name.replace(/\W/g, '-')}.yaml`, text);
      assert.throws(
        () => tokenWebhookFromConfig({ configFile: path }, AUDS),
        (e: Error) => e.message.startsWith(`--authentication-token-webhook-config-file ${path}: `) && re.test(e.message),
      );
    });
  }

  it('reference behaviour: a good file gives an authenticator; an unknown version names its flag', () => {
    const path = file('good.yaml', 'clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1/authenticate\n');
    const a = tokenWebhookFromConfig({ configFile: path, version: 'v1' }, AUDS);
    assert.ok(a instanceof WebhookTokenAuthenticator);
    a.close();
    assert.throws(() => tokenWebhookFromConfig({ configFile: path, version: 'v3' as 'v1' }, AUDS), /--authentication-token-webhook-version/);
  });
});

authenticatorContract({
  name: 'WebhookTokenAuthenticator',
  make: () =>
    new WebhookTokenAuthenticator({
      audiences: AUDS,
      retry: { initialMs: 1, factor: 1, jitter: 0, steps: 2 },
      backend: {
        post: async (body) => {
          const token = JSON.parse(body).spec.token;
          if (token === 'good') return review({ authenticated: true, user: { username: 'alice', groups: ['dev'] } });
          if (token === 'broken') return 'not json';
          if (token === 'unreachable') throw new BackendFailure('connect ECONNREFUSED', true);
          return review({ authenticated: false });
        },
      },
    }),
  valid: () => bearer('good'),
  expectedUser: { username: 'alice', groups: ['dev'] },
  invalid: () => [bearer('denied'), bearer('broken'), bearer('unreachable'), { headers: { authorization: 'Bearer two words' } }],
  foreign: () => [{ headers: {}, peerCertificate: { raw: Buffer.from([1]) } }, { headers: { authorization: 'Basic YTpi' } }],
});
