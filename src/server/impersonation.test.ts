import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTHENTICATION_GROUP } from '../api/naming.js';
import type { UserInfo } from '../authn/types.js';
import { UnionAuthorizer, type Attributes, type Authorizer } from '../authz/index.js';
import { isStatusError } from '../errors/index.js';
import { impersonate, wantsImpersonation } from './impersonation.js';

/** Allows exactly the listed `group|resource[/sub]|namespace|name` checks of verb impersonate; records every check. */
function allowList(...allowed: string[]): Authorizer & { seen: Attributes[] } {
  const seen: Attributes[] = [];
  return {
    seen,
    async authorize(a) {
      seen.push(a);
      const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
      const key = `${a.apiGroup}|${res}|${a.namespace}|${a.name}`;
      return a.verb === 'impersonate' && allowed.includes(key) ? { decision: 'allow' } : { decision: 'noOpinion' };
    },
  };
}

const alice: UserInfo = { username: 'alice', groups: ['dev', 'system:authenticated'] };
const A = AUTHENTICATION_GROUP;

async function rejects(p: Promise<unknown>, code: number, message?: string | RegExp) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  });
}

describe('impersonation (spec 5.7)', () => {
  it('spec 5.7: without impersonation headers the user is returned unchanged and nothing is checked', async () => {
    const z = allowList();
    assert.equal(await impersonate({ authorization: 'Bearer x', 'impersonate-user': '' }, alice, z), alice);
    assert.equal(z.seen.length, 0);
    assert.equal(wantsImpersonation({ 'impersonate-user': 'bob' }), true);
    assert.equal(wantsImpersonation({ accept: 'application/json' }), false);
  });

  it('spec 5.7: impersonating a user is checked as verb impersonate on core users with the caller as subject', async () => {
    const z = allowList('|users||bob');
    const u = await impersonate({ 'impersonate-user': 'bob' }, alice, z);
    assert.deepEqual(u, { username: 'bob', groups: ['system:authenticated'] });
    assert.equal(z.seen.length, 1);
    const a = z.seen[0];
    assert.equal(a?.user, alice);
    assert.equal(a?.verb, 'impersonate');
    assert.equal(a?.isResourceRequest, true);
    assert.deepEqual([a?.apiGroup, a?.resource, a?.subresource, a?.namespace, a?.name], ['', 'users', '', '', 'bob']);
  });

  it('spec 5.7: a denied user gets the reference 403 message', async () => {
    await rejects(
      impersonate({ 'impersonate-user': 'bob' }, alice, allowList()),
      403,
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('spec 5.7: the authorizer reason is appended to the 403 message and details name the target', async () => {
    const z: Authorizer = { authorize: async () => ({ decision: 'deny', reason: 'no way' }) };
    await assert.rejects(impersonate({ 'impersonate-user': 'bob' }, alice, z), (e: unknown) => {
      assert.ok(isStatusError(e));
      assert.match(e.message, /at the cluster scope: no way$/);
      assert.deepEqual(e.details, { name: 'bob', group: '', kind: 'users' });
      return true;
    });
  });

  it('spec 2.7/5.7: a service account username is checked as serviceaccounts in its namespace and gets its groups', async () => {
    const z = allowList('|serviceaccounts|kube-ns|builder');
    const u = await impersonate({ 'impersonate-user': 'system:serviceaccount:kube-ns:builder' }, alice, z);
    assert.deepEqual(u, {
      username: 'system:serviceaccount:kube-ns:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-ns', 'system:authenticated'],
    });
    await rejects(
      impersonate({ 'impersonate-user': 'system:serviceaccount:kube-ns:other' }, alice, z),
      403,
      'serviceaccounts "other" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-ns"',
    );
  });

  it('spec 5.7: a malformed service account name is impersonated as a plain user', async () => {
    const z = allowList('|users||system:serviceaccount:Bad_NS:x');
    const u = await impersonate({ 'impersonate-user': 'system:serviceaccount:Bad_NS:x' }, alice, z);
    assert.deepEqual(u.groups, ['system:authenticated']);
    assert.equal(z.seen[0]?.resource, 'users');
  });

  it('spec 5.7: explicit groups replace the service account groups', async () => {
    const z = allowList('|serviceaccounts|ns|sa', '|groups||ops');
    const u = await impersonate({ 'impersonate-user': 'system:serviceaccount:ns:sa', 'impersonate-group': ['ops'] }, alice, z);
    assert.deepEqual(u.groups, ['ops', 'system:authenticated']);
  });

  it('spec 5.7: every group is checked as core groups; one denial fails the request', async () => {
    const z = allowList('|users||bob', '|groups||g1', '|groups||g2');
    const u = await impersonate({ 'impersonate-user': 'bob', 'impersonate-group': ['g1', 'g2'] }, alice, z);
    assert.deepEqual(u, { username: 'bob', groups: ['g1', 'g2', 'system:authenticated'] });
    assert.deepEqual(z.seen.map((a) => `${a.resource}:${a.name}`), ['users:bob', 'groups:g1', 'groups:g2']);
    await rejects(
      impersonate({ 'impersonate-user': 'bob', 'impersonate-group': ['g1', 'g3'] }, alice, z),
      403,
      'groups "g3" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
    );
  });

  it('spec 2.7: system:authenticated is added once; an explicit system:unauthenticated suppresses it', async () => {
    const z = allowList('|users||bob', '|groups||system:authenticated', '|groups||system:unauthenticated');
    assert.deepEqual((await impersonate({ 'impersonate-user': 'bob', 'impersonate-group': 'system:authenticated' }, alice, z)).groups, [
      'system:authenticated',
    ]);
    assert.deepEqual((await impersonate({ 'impersonate-user': 'bob', 'impersonate-group': 'system:unauthenticated' }, alice, z)).groups, [
      'system:unauthenticated',
    ]);
  });

  it('spec 2.7: impersonating system:anonymous yields system:unauthenticated, not system:authenticated', async () => {
    const z = allowList('|users||system:anonymous');
    assert.deepEqual(await impersonate({ 'impersonate-user': 'system:anonymous' }, alice, z), {
      username: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
  });

  it('spec 5.7: extras are checked as userextras/<key> in the authentication group, one check per value', async () => {
    const z = allowList('|users||bob', `${A}|userextras/scopes||view`, `${A}|userextras/scopes||edit`, `${A}|userextras/a/b||x`);
    const u = await impersonate(
      { 'impersonate-user': 'bob', 'impersonate-extra-scopes': ['view', 'edit'], 'Impersonate-Extra-A%2fB': 'x' },
      alice,
      z,
    );
    assert.deepEqual(u.extra, { scopes: ['view', 'edit'], 'a/b': ['x'] });
    const extraChecks = z.seen.filter((a) => a.resource === 'userextras');
    assert.deepEqual(extraChecks.map((a) => [a.apiGroup, a.subresource, a.name]), [
      [A, 'scopes', 'view'],
      [A, 'scopes', 'edit'],
      [A, 'a/b', 'x'],
    ]);
    await rejects(
      impersonate({ 'impersonate-user': 'bob', 'impersonate-extra-scopes': 'admin' }, alice, z),
      403,
      `userextras/scopes "admin" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "${A}" at the cluster scope`,
    );
  });

  it('spec 5.7: a malformed percent escape in an extra key is kept as written', async () => {
    const z = allowList('|users||bob', `${A}|userextras/bad%zz||v`);
    assert.deepEqual((await impersonate({ 'impersonate-user': 'bob', 'impersonate-extra-bad%zz': 'v' }, alice, z)).extra, { 'bad%zz': ['v'] });
  });

  it('spec 5.7: the uid is checked as uids and carried into the user', async () => {
    const z = allowList('|users||bob', `${A}|uids||u-42`);
    assert.deepEqual(await impersonate({ 'impersonate-user': 'bob', 'impersonate-uid': 'u-42' }, alice, z), {
      username: 'bob',
      uid: 'u-42',
      groups: ['system:authenticated'],
    });
    await rejects(impersonate({ 'impersonate-user': 'bob', 'impersonate-uid': 'u-43' }, alice, z), 403, /^uids "u-43" is forbidden/);
  });

  it('spec 5.7: header names are case-insensitive', async () => {
    const z = allowList('|users||bob', '|groups||g');
    assert.deepEqual(await impersonate({ 'Impersonate-User': 'bob', 'IMPERSONATE-GROUP': 'g' }, alice, z), {
      username: 'bob',
      groups: ['g', 'system:authenticated'],
    });
  });

  it('spec 5.7: groups, extras or uid without Impersonate-User are a 400', async () => {
    const z = allowList('|groups||g', `${A}|uids||u`, `${A}|userextras/k||v`);
    for (const h of [{ 'impersonate-group': 'g' }, { 'impersonate-uid': 'u' }, { 'impersonate-extra-k': 'v' }, { 'impersonate-user': '', 'impersonate-group': 'g' }]) {
      await rejects(impersonate(h, alice, z), 400, /without impersonating a user$/);
    }
    assert.equal(z.seen.length, 0);
  });

  it('spec 5.7 item 7: system:masters callers may impersonate through the union authorizer', async () => {
    const root: UserInfo = { username: 'root', groups: ['system:masters'] };
    const u = await impersonate({ 'impersonate-user': 'bob', 'impersonate-uid': 'x' }, root, new UnionAuthorizer([]));
    assert.deepEqual(u, { username: 'bob', uid: 'x', groups: ['system:authenticated'] });
  });
});
