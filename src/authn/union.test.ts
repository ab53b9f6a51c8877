import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError, unauthorized } from '../errors/index.js';
import { AnonymousAuthenticator } from './anonymous.js';
import { TokenFileAuthenticator, parseTokenFile } from './token-file.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';
import { UnionAuthenticator } from './union.js';

const is401 = (e: unknown) => isStatusError(e) && e.code === 401 && e.message === 'Unauthorized';
const fixed = (user: UserInfo | undefined): Authenticator => ({ authenticate: async () => user });
const failing = (err: unknown = unauthorized('token expired for method X')): Authenticator => ({
  authenticate: async () => {
    throw err;
  },
});
const bearer = (token: string): AuthRequest => ({ headers: { authorization: `Bearer ${token}` } });
const none: AuthRequest = { headers: {} };

describe('UnionAuthenticator (spec 5.1)', () => {
  const tokens = new TokenFileAuthenticator(parseTokenFile('t1,alice,u-1,dev\nt2,bob,u-2,system:authenticated\n', 'f'));

  it('lets the first authenticator that returns a user decide', async () => {
    const u = new UnionAuthenticator([fixed(undefined), fixed({ username: 'a', groups: [] }), fixed({ username: 'b', groups: [] })]);
    assert.equal((await u.authenticate(none)).username, 'a');
  });

  it('adds system:authenticated to every authenticated user, once', async () => {
    const u = new UnionAuthenticator([tokens]);
    assert.deepEqual(await u.authenticate(bearer('t1')), {
      username: 'alice',
      uid: 'u-1',
      groups: ['dev', 'system:authenticated'],
    });
    assert.deepEqual((await u.authenticate(bearer('t2'))).groups, ['system:authenticated']);
  });

  it('does not put the anonymous user in system:authenticated', async () => {
    const u = new UnionAuthenticator([tokens, new AnonymousAuthenticator()]);
    assert.deepEqual(await u.authenticate(none), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('remembers a 401 and lets a later authenticator succeed', async () => {
    const errors: unknown[] = [];
    const u = new UnionAuthenticator([failing(), fixed({ username: 'later', groups: [] })], { onError: (e) => errors.push(e) });
    assert.equal((await u.authenticate(bearer('x'))).username, 'later');
    assert.equal(errors.length, 1);
  });

  it('throws a generic 401 when every method failed, never naming the method', async () => {
    const u = new UnionAuthenticator([failing(), fixed(undefined), failing(new TypeError('webhook down'))]);
    await assert.rejects(u.authenticate(bearer('x')), is401);
  });

  it('rejects credentials nobody accepted with 401, even with anonymous enabled', async () => {
    const u = new UnionAuthenticator([tokens, new AnonymousAuthenticator()]);
    await assert.rejects(u.authenticate(bearer('unknown')), is401);
    await assert.rejects(u.authenticate({ headers: { authorization: 'Basic YTpi' } }), is401);
    await assert.rejects(u.authenticate({ headers: {}, peerCertificate: Buffer.from([0x30]) }), is401);
  });

  it('rejects a malformed bearer header with 401 instead of falling back to anonymous', async () => {
    const u = new UnionAuthenticator([tokens, new AnonymousAuthenticator()]);
    await assert.rejects(u.authenticate({ headers: { authorization: 'Bearer' } }), is401);
    await assert.rejects(u.authenticate({ headers: { authorization: 'Bearer a b' } }), is401);
  });

  it('rejects a request without credentials when anonymous access is off (spec 5.1 item 4)', async () => {
    await assert.rejects(new UnionAuthenticator([tokens]).authenticate(none), is401);
    await assert.rejects(new UnionAuthenticator([]).authenticate(none), is401);
  });

  it('treats an empty username as an authentication failure (spec 7)', async () => {
    await assert.rejects(new UnionAuthenticator([fixed({ username: '', groups: ['g'] })]).authenticate(bearer('x')), is401);
    const u = new UnionAuthenticator([fixed({ username: '', groups: [] }), fixed({ username: 'ok', groups: [] })]);
    assert.equal((await u.authenticate(bearer('x'))).username, 'ok');
  });

  it('does not let callers change the user an authenticator holds', async () => {
    const held: UserInfo = { username: 'h', groups: ['g'] };
    const u = new UnionAuthenticator([fixed(held)]);
    const got = await u.authenticate(none);
    got.groups.push('x');
    assert.deepEqual(held.groups, ['g']);
  });

  it('keeps uid and extra', async () => {
    const u = new UnionAuthenticator([fixed({ username: 'e', uid: '7', groups: [], extra: { scopes: ['a'] } })]);
    assert.deepEqual(await u.authenticate(none), { username: 'e', uid: '7', groups: ['system:authenticated'], extra: { scopes: ['a'] } });
  });
});
