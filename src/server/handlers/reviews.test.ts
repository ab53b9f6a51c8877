import assert from 'node:assert/strict';
import { createOnlyTypes } from '../../registry/resources/index.js';
import { describe, it } from 'node:test';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import type { AuthRequest, Authenticator, UserInfo } from '../../authn/types.js';
import { UnionAuthorizer, type Attributes, type Authorizer, type Decision } from '../../authz/index.js';
import { isStatusError, unauthorized } from '../../errors/index.js';
import {
  localSubjectAccessReview,
  rulesFromRbac,
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
  subjectAccessReview,
  tokenReview,
  type RulesResult,
} from './reviews.js';

const AUTHZ = `${AUTHORIZATION_GROUP}/v1`;
const AUTHN = `${AUTHENTICATION_GROUP}/v1`;

/** Allows `user|verb|group|resource|namespace|name` (or `user|verb|path` for paths), denies the `deny` keys, else no opinion. */
function fakeAuthorizer(allow: string[], deny: string[] = []): Authorizer & { seen: Attributes[] } {
  const seen: Attributes[] = [];
  return {
    seen,
    async authorize(a): Promise<Decision> {
      seen.push(a);
      const key = a.isResourceRequest
        ? `${a.user.username}|${a.verb}|${a.apiGroup}|${a.resource}|${a.namespace}|${a.name}`
        : `${a.user.username}|${a.verb}|${a.path}`;
      if (allow.includes(key)) return { decision: 'allow', reason: 'listed' };
      if (deny.includes(key)) return { decision: 'deny', reason: 'blocked' };
      return { decision: 'noOpinion', reason: 'not listed' };
    },
  };
}

/** Token table authenticator that records what it was shown. */
function fakeAuthenticator(tokens: Record<string, UserInfo>): Authenticator & { seen: AuthRequest[] } {
  const seen: AuthRequest[] = [];
  return {
    seen,
    async authenticate(req) {
      seen.push(req);
      const h = req.headers.authorization;
      const token = typeof h === 'string' && h.startsWith('Bearer ') ? h.slice(7) : '';
      const u = tokens[token];
      if (!u) throw unauthorized();
      return u;
    },
  };
}

async function rejects(p: Promise<unknown> | (() => unknown), code: number, message?: string | RegExp, fields?: string[]) {
  const run = typeof p === 'function' ? async () => p() : p;
  await assert.rejects(run, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, code, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    if (fields) assert.deepEqual(e.details?.causes?.map((c) => c.field), fields);
    return true;
  });
}

const alice: UserInfo = { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
const sar = (spec: Record<string, unknown>, extra: ApiObject = {}): ApiObject => ({ apiVersion: AUTHZ, kind: 'SubjectAccessReview', metadata: {}, spec, ...extra });
const getPods = { verb: 'get', resource: 'pods', namespace: 'ns1', name: 'p' };

describe('SelfSubjectReview (spec 2.8, 4.8)', () => {
  it('spec 4.8: returns the caller as status.userInfo with a creation timestamp', () => {
    const r = selfSubjectReview({ apiVersion: AUTHN, kind: 'SelfSubjectReview' }, alice, '2024-01-02T03:04:05Z');
    assert.deepEqual(r, {
      apiVersion: AUTHN,
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: '2024-01-02T03:04:05Z' },
      status: { userInfo: { username: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a', 'b'] } } },
    });
    assert.match(String(selfSubjectReview({}, alice).metadata?.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('spec 2.8: empty userInfo fields are left out, and the result does not alias the user', () => {
    const u: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} };
    const r = selfSubjectReview(undefined, u, 't');
    assert.deepEqual(r.status, { userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
    (r.status as { userInfo: { groups: string[] } }).userInfo.groups.push('x');
    assert.deepEqual(u.groups, ['system:unauthenticated']);
  });

  it('spec 4.8: a body of another kind is a 400', async () => {
    await rejects(() => selfSubjectReview({ kind: 'TokenReview' }, alice), 400, 'not a SelfSubjectReview: TokenReview');
    await rejects(() => selfSubjectReview([], alice), 400, /^not a SelfSubjectReview/);
  });
});

describe('TokenReview (spec 2.8)', () => {
  const bob: UserInfo = { username: 'bob', uid: 'u-2', groups: ['ops', 'system:authenticated'] };

  it('spec 2.8: a good token is authenticated on a request that carries only that bearer token', async () => {
    const authn = fakeAuthenticator({ t1: bob });
    const r = await tokenReview({ apiVersion: AUTHN, kind: 'TokenReview', spec: { token: 't1' } }, authn);
    assert.deepEqual(r, {
      apiVersion: AUTHN,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token: 't1' },
      status: { authenticated: true, user: { username: 'bob', uid: 'u-2', groups: ['ops', 'system:authenticated'] } },
    });
    assert.deepEqual(authn.seen, [{ headers: { authorization: 'Bearer t1' } }]);
  });

  it('spec 2.8: a rejected token is authenticated false with the 401 message as status.error', async () => {
    const r = await tokenReview({ kind: 'TokenReview', spec: { token: 'nope' } }, fakeAuthenticator({}));
    assert.deepEqual(r.status, { authenticated: false, user: {}, error: 'Unauthorized' });
  });

  it('spec 2.8: an authenticator with no opinion is authenticated false without an error', async () => {
    const r = await tokenReview({ spec: { token: 'x' } }, { authenticate: async () => undefined });
    assert.deepEqual(r.status, { authenticated: false, user: {} });
  });

  it('spec 2.8: failures other than 401 are not hidden in the status', async () => {
    const broken: Authenticator = { authenticate: async () => Promise.reject(new Error('db down')) };
    await assert.rejects(tokenReview({ spec: { token: 'x' } }, broken), /db down/);
  });

  it('spec 2.8: spec.token is required (400, as in the reference)', async () => {
    for (const body of [{ kind: 'TokenReview', spec: {} }, { spec: { token: '' } }, {}]) {
      await rejects(tokenReview(body, fakeAuthenticator({})), 400, 'token is required for TokenReview in authentication');
    }
    await rejects(tokenReview({ kind: 'SubjectAccessReview', spec: { token: 't' } }, fakeAuthenticator({})), 400, /^not a TokenReview/);
  });

  it('spec 2.8: audiences are the requested ones the server serves; no overlap means not authenticated', async () => {
    const authn = fakeAuthenticator({ t1: bob });
    const ok = await tokenReview({ spec: { token: 't1', audiences: ['api', 'other'] } }, authn, ['api', 'vault']);
    assert.deepEqual((ok.status as { audiences?: string[] }).audiences, ['api']);
    const dflt = await tokenReview({ spec: { token: 't1' } }, authn, ['api']);
    assert.deepEqual((dflt.status as { audiences?: string[] }).audiences, ['api']);
    authn.seen.length = 0;
    const none = await tokenReview({ spec: { token: 't1', audiences: ['other'] } }, authn, ['api']);
    assert.deepEqual(none.status, { authenticated: false, user: {} });
    assert.equal(authn.seen.length, 0);
    const bad = await tokenReview({ spec: { token: 'zz', audiences: ['api'] } }, authn, ['api']);
    assert.deepEqual(bad.status, { authenticated: false, user: {}, error: 'Unauthorized' });
  });
});

describe('SubjectAccessReview (spec 2.8, 4.8, 5.7)', () => {
  it('spec 5.7: resource attributes are evaluated for the named subject exactly as given', async () => {
    const z = fakeAuthorizer(['bob|get||pods|ns1|p']);
    const spec = { user: 'bob', groups: ['g'], uid: 'u9', extra: { k: ['v'] }, resourceAttributes: getPods };
    const r = await subjectAccessReview(sar(spec), z);
    assert.deepEqual(r, { apiVersion: AUTHZ, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: true, reason: 'listed' } });
    const a = z.seen[0];
    assert.deepEqual(a?.user, { username: 'bob', groups: ['g'], uid: 'u9', extra: { k: ['v'] } });
    assert.deepEqual([a?.isResourceRequest, a?.apiVersion, a?.subresource], [true, '*', '']);
  });

  it('spec 2.8: denied is true only on an explicit deny; no opinion is allowed false', async () => {
    const z = fakeAuthorizer([], ['bob|delete||pods|ns1|p']);
    const denied = await subjectAccessReview(sar({ user: 'bob', resourceAttributes: { ...getPods, verb: 'delete' } }), z);
    assert.deepEqual(denied.status, { allowed: false, denied: true, reason: 'blocked' });
    const none = await subjectAccessReview(sar({ user: 'bob', resourceAttributes: getPods }), z);
    assert.deepEqual(none.status, { allowed: false, reason: 'not listed' });
  });

  it('spec 5.7: non-resource attributes check a path and verb; groups alone are a valid subject', async () => {
    const z = fakeAuthorizer(['|get|/healthz']);
    const r = await subjectAccessReview(sar({ groups: ['system:monitoring'], nonResourceAttributes: { path: '/healthz', verb: 'get' } }), z);
    assert.deepEqual(r.status, { allowed: true, reason: 'listed' });
    assert.deepEqual([z.seen[0]?.isResourceRequest, z.seen[0]?.path, z.seen[0]?.user.groups], [false, '/healthz', ['system:monitoring']]);
  });

  it('spec 5.7 item 7: system:masters in spec.groups is allowed through the union authorizer', async () => {
    const r = await subjectAccessReview(sar({ user: 'x', groups: ['system:masters'], resourceAttributes: getPods }), new UnionAuthorizer([]));
    assert.equal((r.status as { allowed: boolean }).allowed, true);
  });

  it('spec 4.8: exactly one attribute kind and a user or groups are required (422 naming the fields)', async () => {
    const z = fakeAuthorizer([]);
    await rejects(
      subjectAccessReview(sar({ user: 'bob' }), z),
      422,
      'SubjectAccessReview "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ['spec.resourceAttributes'],
    );
    await rejects(subjectAccessReview(sar({ user: 'bob', resourceAttributes: getPods, nonResourceAttributes: { path: '/x', verb: 'get' } }), z), 422, /cannot be specified in combination with resourceAttributes/, [
      'spec.nonResourceAttributes',
    ]);
    await rejects(subjectAccessReview(sar({ resourceAttributes: getPods, groups: [] }), z), 422, /spec\.user: Invalid value: "": at least one of user or group must be specified/, ['spec.user']);
    await rejects(subjectAccessReview(sar({}), z), 422, /^SubjectAccessReview "" is invalid: \[/, ['spec.resourceAttributes', 'spec.user']);
    assert.equal(z.seen.length, 0);
  });

  it('spec 2.8: metadata must be empty (a null creation timestamp and managed fields are fine)', async () => {
    const z = fakeAuthorizer(['bob|get||pods|ns1|p']);
    await subjectAccessReview(sar({ user: 'bob', resourceAttributes: getPods }, { metadata: { creationTimestamp: null, managedFields: [{}], labels: {} } as never }), z);
    await rejects(subjectAccessReview(sar({ user: 'bob', resourceAttributes: getPods }, { metadata: { name: 'x' } }), z), 422, /metadata: Invalid value: .*must be empty$/, ['metadata']);
  });

  it('spec 5.7: an authorizer failure becomes status.evaluationError', async () => {
    const broken: Authorizer = { authorize: async () => Promise.reject(new Error('webhook timeout')) };
    const r = await subjectAccessReview(sar({ user: 'bob', resourceAttributes: getPods }), broken);
    assert.deepEqual(r.status, { allowed: false, evaluationError: 'webhook timeout' });
  });

  it('spec 4.8: a body of another kind is a 400', async () => {
    await rejects(subjectAccessReview({ kind: 'SelfSubjectAccessReview', spec: {} }, fakeAuthorizer([])), 400, /^not a SubjectAccessReview/);
  });
});

describe('LocalSubjectAccessReview (spec 2.8, 4.8)', () => {
  const lsar = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({ apiVersion: AUTHZ, kind: 'LocalSubjectAccessReview', metadata, spec });

  it('spec 2.8: evaluated within the URL namespace; the response carries that namespace', async () => {
    const z = fakeAuthorizer(['bob|get||pods|ns1|p']);
    const r = await localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: getPods }), 'ns1', z);
    assert.deepEqual(r.metadata, { namespace: 'ns1', creationTimestamp: null });
    assert.equal(r.kind, 'LocalSubjectAccessReview');
    assert.deepEqual(r.status, { allowed: true, reason: 'listed' });
    assert.equal(z.seen[0]?.namespace, 'ns1');
  });

  it('spec 2.8: spec.resourceAttributes.namespace must equal the URL namespace, empty included (422)', async () => {
    const z = fakeAuthorizer([]);
    for (const namespace of ['other', '', undefined]) {
      await rejects(
        localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: { ...getPods, namespace } }), 'ns1', z),
        422,
        `LocalSubjectAccessReview "" is invalid: spec.resourceAttributes.namespace: Invalid value: ${JSON.stringify(namespace ?? '')}: must match metadata.namespace`,
        ['spec.resourceAttributes.namespace'],
      );
    }
    assert.equal(z.seen.length, 0);
  });

  it('spec 2.8: non-resource attributes are not allowed (422)', async () => {
    await rejects(localSubjectAccessReview(lsar({ user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } }), 'ns1', fakeAuthorizer([])), 422, /disallowed on this kind of request/, [
      'spec.nonResourceAttributes',
    ]);
  });

  it('spec 4.8: metadata may only hold the matching namespace', async () => {
    const z = fakeAuthorizer(['bob|get||pods|ns1|p']);
    const ok = await localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: getPods }, { namespace: 'ns1' }), 'ns1', z);
    assert.equal((ok.status as { allowed: boolean }).allowed, true);
    await rejects(localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: getPods }, { namespace: 'ns2' }), 'ns1', z), 400, /does not match the namespace sent on the request/);
    await rejects(localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: getPods }, { name: 'n' }), 'ns1', z), 422, /must be empty except for namespace/, ['metadata']);
    await rejects(localSubjectAccessReview(lsar({ user: 'bob', resourceAttributes: getPods }), '', z), 400, /namespace is required/);
  });

  it('spec 4.8: user or groups are still required', async () => {
    await rejects(localSubjectAccessReview(lsar({ resourceAttributes: getPods }), 'ns1', fakeAuthorizer([])), 422, /at least one of user or group/, ['spec.user']);
  });
});

describe('SelfSubjectAccessReview (spec 2.8, 4.8)', () => {
  it('spec 4.8: evaluated for the caller with all of its identity', async () => {
    const z = fakeAuthorizer(['alice|list|apps|deployments|ns1|'], ['alice|delete|apps|deployments|ns1|']);
    const body = { apiVersion: AUTHZ, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments', namespace: 'ns1' } } };
    const r = await selfSubjectAccessReview(body, alice, z);
    assert.deepEqual(r.status, { allowed: true, reason: 'listed' });
    assert.equal(r.kind, 'SelfSubjectAccessReview');
    assert.equal(z.seen[0]?.user, alice);
    const d = await selfSubjectAccessReview({ spec: { resourceAttributes: { verb: 'delete', group: 'apps', resource: 'deployments', namespace: 'ns1' } } }, alice, z);
    assert.deepEqual(d.status, { allowed: false, denied: true, reason: 'blocked' });
  });

  it('spec 4.8: non-resource attributes work; a spec user is not needed', async () => {
    const r = await selfSubjectAccessReview({ spec: { nonResourceAttributes: { path: '/metrics', verb: 'get' } } }, alice, fakeAuthorizer(['alice|get|/metrics']));
    assert.equal((r.status as { allowed: boolean }).allowed, true);
  });

  it('spec 4.8: exactly one attribute kind is required and metadata must be empty (422)', async () => {
    const z = fakeAuthorizer([]);
    await rejects(selfSubjectAccessReview({ spec: {} }, alice, z), 422, /^SelfSubjectAccessReview "" is invalid: spec.resourceAttributes/, ['spec.resourceAttributes']);
    await rejects(selfSubjectAccessReview({ metadata: { labels: { a: 'b' } }, spec: { resourceAttributes: getPods } }, alice, z), 422, /must be empty/, ['metadata']);
  });
});

describe('SelfSubjectRulesReview (spec 2.8, 4.8)', () => {
  it('spec 2.8: lists the rules for the caller in spec.namespace, leaving out empty lists', async () => {
    const calls: [UserInfo, string][] = [];
    const rulesFor = (u: UserInfo, ns: string): RulesResult => {
      calls.push([u, ns]);
      return {
        resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        incomplete: false,
      };
    };
    const r = await selfSubjectRulesReview({ apiVersion: AUTHZ, kind: 'SelfSubjectRulesReview', metadata: { name: 'ignored' }, spec: { namespace: 'ns1' } }, alice, rulesFor);
    assert.deepEqual(calls, [[alice, 'ns1']]);
    assert.deepEqual(r, {
      apiVersion: AUTHZ,
      kind: 'SelfSubjectRulesReview',
      metadata: { creationTimestamp: null },
      spec: {},
      status: { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], incomplete: false },
    });
  });

  it('spec 2.8: incomplete and evaluationError are passed through from an async source', async () => {
    const r = await selfSubjectRulesReview({ spec: { namespace: 'ns1' } }, alice, async () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook' }));
    assert.deepEqual(r.status, { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook' });
  });

  it('spec 2.8: spec.namespace is required (400, as in the reference)', async () => {
    await rejects(selfSubjectRulesReview({ spec: {} }, alice, () => assert.fail('not called')), 400, 'no namespace on request');
    await rejects(selfSubjectRulesReview({ kind: 'SubjectAccessReview', spec: { namespace: 'x' } }, alice, () => assert.fail('not called')), 400, /^not a SelfSubjectRulesReview/);
  });

  it('spec 2.7: rulesFromRbac sorts rules by what they name and reports resolution errors', () => {
    const out = rulesFromRbac({
      rules: [
        { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] },
        { verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] },
        { verbs: ['use'] },
      ],
      errors: ['role "x" not found', 'role "x" not found', 'clusterrole "y" not found'],
    });
    assert.deepEqual(out, {
      resourceRules: [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
      evaluationError: '[role "x" not found, clusterrole "y" not found]',
    });
  });
});

describe('review types for discovery (spec 2.8, 4.8)', () => {
  it('spec 4.8: the six review kinds are create-only virtual kinds in the reference groups; only the local review is namespaced', () => {
    const reviews = createOnlyTypes().filter((t) => t.group === AUTHENTICATION_GROUP || t.group === AUTHORIZATION_GROUP);
    assert.deepEqual(
      reviews.map((t) => [t.group, t.version, t.kind, t.plural, t.namespaced]).sort(),
      [
        [AUTHENTICATION_GROUP, 'v1', 'SelfSubjectReview', 'selfsubjectreviews', false],
        [AUTHENTICATION_GROUP, 'v1', 'TokenReview', 'tokenreviews', false],
        [AUTHORIZATION_GROUP, 'v1', 'SubjectAccessReview', 'subjectaccessreviews', false],
        [AUTHORIZATION_GROUP, 'v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true],
        [AUTHORIZATION_GROUP, 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false],
        [AUTHORIZATION_GROUP, 'v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false],
      ].sort(),
    );
    for (const t of reviews) {
      assert.deepEqual(t.verbs, ['create']);
      assert.ok(t.storageKey.startsWith('virtual/'), t.kind);
      assert.ok(t.schema.properties?.metadata && t.schema.properties.status, t.kind);
    }
  });
});
