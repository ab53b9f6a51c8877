import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startOidcIssuer, signJwt, type OidcIssuer } from '../../../test/helpers/oidc-issuer.js';
import { isStatusError } from '../../errors/index.js';
import { authenticatorContract } from '../testing.js';
import { JwtAuthenticators } from './authenticator.js';
import { parseAuthenticationConfiguration } from './config.js';
import { IssuerKeys } from './keys.js';
import { oidcFlagsConfig } from './options.js';
import type { JwtAuthenticatorConfig } from './types.js';
import { JwtVerifier } from './verifier.js';

const FAST = { minRefreshIntervalMs: 300, initialBackoffMs: 50, maxBackoffMs: 200 };
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const until = async (what: string, f: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

let issuer: OidcIssuer;
const live: IssuerKeys[] = [];
before(async () => {
  issuer = await startOidcIssuer();
});
after(async () => {
  live.forEach((k) => k.stop());
  await issuer.close();
});

/** A verifier for `issuer` whose keys are loaded. */
async function verifierFor(config: JwtAuthenticatorConfig, options = FAST): Promise<JwtVerifier> {
  const keys = new IssuerKeys(config.issuer, options);
  live.push(keys);
  keys.start();
  await until('keys loaded', () => keys.loaded);
  return new JwtVerifier(config, keys);
}
const flags = (over: Parameters<typeof oidcFlagsConfig>[0] = {}) =>
  oidcFlagsConfig({ issuerURL: issuer.url, clientID: 'orch-test', caFile: issuer.caFile, usernamePrefix: '-', ...over }, []);
const fromFile = (jwt: Record<string, unknown>) =>
  parseAuthenticationConfiguration(
    JSON.stringify({ apiVersion: 'apiserver.config.orch.io/v1beta1', kind: 'AuthenticationConfiguration', jwt: [{ issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['orch-test'] }, ...jwt }] }),
    { disallowedIssuers: [] },
  )[0]!;
const rejects = async (v: JwtVerifier, token: string, why: RegExp) =>
  assert.rejects(v.verify(token), (e: unknown) => isStatusError(e) && e.code === 401 && why.test(e.message));

describe('JWT verification (spec 5.5)', () => {
  it('spec 5.5: a valid ID token gives the user of its username claim', async () => {
    const v = await verifierFor(flags());
    const { user, expiresAtMs } = await v.verify(issuer.mint({ sub: 'alice' }));
    assert.deepEqual(user, { username: 'alice', groups: [] });
    assert.ok(expiresAtMs > Date.now());
  });

  it('spec 5.5: bad signature, wrong audience, expired, future nbf, missing username claim are 401', async () => {
    const v = await verifierFor(flags());
    const published = issuer.keys[issuer.keys.length - 1]!;
    const forged = { ...issuer.unpublishedKey(), kid: published.kid };
    const now = Math.floor(Date.now() / 1000);
    await rejects(v, issuer.mint({}, { key: forged }), /failed to verify signature/);
    await rejects(v, issuer.mint({ aud: 'someone-else' }), /expected audience in \[orch-test\]/);
    await rejects(v, issuer.mint({ aud: [] }), /expected audience/);
    await rejects(v, issuer.mint({ exp: now - 1 }), /token is expired/);
    await rejects(v, issuer.mint({ exp: undefined }), /missing exp/);
    await rejects(v, issuer.mint({ nbf: now + 600 }), /before the nbf/);
    await rejects(v, issuer.mint({ sub: undefined }), /parse username claim "sub": claim not present/);
    await rejects(v, issuer.mint({ sub: 42 }), /not a string/);
    await rejects(v, issuer.mint({ sub: '' }), /empty username/);
    const tampered = issuer.mint({ sub: 'alice' }).split('.');
    tampered[1] = Buffer.from(JSON.stringify({ iss: issuer.url, aud: 'orch-test', sub: 'root', exp: now + 60 })).toString('base64url');
    await rejects(v, tampered.join('.'), /failed to verify signature/);
  });

  it('reference behaviour: nbf up to five minutes ahead is tolerated (clock skew); exp is not', async () => {
    const v = await verifierFor(flags());
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await v.verify(issuer.mint({ nbf: now + 240 }))).user.username, 'alice');
  });

  it('spec 5.5: the algorithm must be allowed and match the key; none and HMAC never verify', async () => {
    const v = await verifierFor(flags());
    const key = issuer.keys[issuer.keys.length - 1]!;
    await rejects(v, issuer.mint({}, { alg: 'RS384' }), /unsupported algorithm, expected \[RS256\] got "RS384"/);
    const relaxed = await verifierFor(flags({ signingAlgs: ['RS256', 'RS384'] }));
    await rejects(relaxed, issuer.mint({}, { alg: 'RS384', key }), /failed to verify signature/); // the JWK is pinned to RS256
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ iss: issuer.url, aud: 'orch-test', sub: 'a', exp: 9e9 })).toString('base64url')}.AAAA`;
    await rejects(v, unsigned, /unsupported algorithm/);
    await rejects(v, issuer.mint({}, { header: { alg: 'HS256' } }), /unsupported algorithm/);
    await rejects(v, issuer.mint({}, { header: { crit: ['exp'] } }), /critical/);
    await rejects(v, 'a.b', /not a compact JWS/);
  });

  it('spec 5.5: ES256, ES384, ES512, PS256 and RS512 tokens verify when allowed', async () => {
    for (const alg of ['ES256', 'ES384', 'ES512', 'PS256', 'RS512'] as const) {
      const key = issuer.rotate(alg, true);
      const v = await verifierFor(flags({ signingAlgs: [alg] }));
      assert.equal((await v.verify(issuer.mint({ sub: alg }, { key }))).user.username, alg, alg);
    }
    issuer.rotate('RS256');
  });

  it('spec 5.5: an unknown kid refetches the keys once (key rotation), and a flood of made-up kids does not hammer the issuer', async () => {
    const v = await verifierFor(flags(), { ...FAST, minRefreshIntervalMs: 1000 });
    await new Promise((r) => setTimeout(r, 1100)); // the start-up fetch is now older than the interval
    const old = issuer.mint({ sub: 'before' });
    assert.equal((await v.verify(old)).user.username, 'before');
    const before = issuer.calls.jwks;
    issuer.rotate('RS256'); // the old key is no longer published
    assert.equal((await v.verify(issuer.mint({ sub: 'after' }))).user.username, 'after');
    assert.equal(issuer.calls.jwks, before + 1, 'one refetch for the new kid');
    await rejects(v, old, /no key with id/);
    const flood = Array.from({ length: 50 }, (_, i) => issuer.mint({}, { kid: `made-up-${i}` }));
    await Promise.all(flood.map((t) => rejects(v, t, /no key with id/)));
    assert.equal(issuer.calls.jwks, before + 1, 'made-up kids within the refresh interval fetch nothing');
  });

  it('spec 5.5: an issuer down at start: its tokens are 401 until its keys arrive in the background', async () => {
    const down = await startOidcIssuer();
    await down.stop();
    const config = oidcFlagsConfig({ issuerURL: down.url, clientID: 'orch-test', caFile: down.caFile }, []);
    const keys = new IssuerKeys(config.issuer, FAST);
    live.push(keys);
    keys.start();
    const v = new JwtVerifier(config, keys);
    try {
      await rejects(v, down.mint(), /have not been fetched yet/);
      await down.start();
      await until('background fetch', () => keys.loaded);
      assert.equal((await v.verify(down.mint({ sub: 'bob' }))).user.username, `${down.url}#bob`);
    } finally {
      await down.close();
    }
  });

  it('spec 5.5: the discovery document must name the configured issuer', async () => {
    issuer.discoveryIssuer = 'https://elsewhere.example';
    try {
      const logged: string[] = [];
      const k2 = new IssuerKeys(flags().issuer, { ...FAST, log: (m) => logged.push(m) });
      live.push(k2);
      k2.start();
      await until('a failed fetch', () => logged.length > 0);
      assert.match(logged[0]!, /issuer did not match the issuer returned by provider/);
      assert.equal(k2.loaded, false);
    } finally {
      issuer.discoveryIssuer = undefined;
    }
  });

  it('spec 5.5: discoveryURL is fetched exactly as given', async () => {
    const other = await startOidcIssuer({ path: '/tenant' });
    try {
      other.discoveryIssuer = issuer.url; // the document at the override describes our issuer
      const config = fromFile({ claimMappings: { username: { claim: 'sub', prefix: '' } } });
      const keys = new IssuerKeys({ ...config.issuer, discoveryURL: `${other.url}/.well-known/openid-configuration`, certificateAuthority: other.caPem }, FAST);
      live.push(keys);
      keys.start();
      await until('keys', () => keys.loaded);
      assert.equal(other.calls.discovery, 1);
    } finally {
      await other.close();
    }
  });

  it('spec 5.5: groups claim (string or string array, prefixed), required claims', async () => {
    const v = await verifierFor(flags({ groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' } }));
    const ok = await v.verify(issuer.mint({ groups: ['dev', 'ops'], hd: 'example.com' }));
    assert.deepEqual(ok.user.groups, ['oidc:dev', 'oidc:ops']);
    assert.deepEqual((await v.verify(issuer.mint({ groups: 'admins', hd: 'example.com' }))).user.groups, ['oidc:admins']);
    assert.deepEqual((await v.verify(issuer.mint({ hd: 'example.com' }))).user.groups, []);
    await rejects(v, issuer.mint({ groups: [1, 2], hd: 'example.com' }), /groups claim "groups": must be a string or an array of strings/);
    await rejects(v, issuer.mint({ groups: [] }), /required claim hd not present/);
    await rejects(v, issuer.mint({ hd: 'evil.com' }), /required claim hd value does not match/);
  });

  it('reference behaviour: with the email claim, email_verified must not be false', async () => {
    const v = await verifierFor(flags({ usernameClaim: 'email', usernamePrefix: undefined }));
    assert.equal((await v.verify(issuer.mint({ email: 'a@example.com', email_verified: true }))).user.username, 'a@example.com');
    assert.equal((await v.verify(issuer.mint({ email: 'a@example.com' }))).user.username, 'a@example.com');
    await rejects(v, issuer.mint({ email: 'a@example.com', email_verified: false }), /email not verified/);
  });

  it('spec 5.5: CEL mappings (username, groups, uid, extra) and validation rules', async () => {
    const v = await verifierFor(
      fromFile({
        claimValidationRules: [{ expression: "claims.tier == 'gold'", message: 'gold only' }],
        claimMappings: {
          username: { expression: "claims.email_verified ? 'u:' + claims.email : ''" },
          groups: { expression: "claims.roles.map(r, 'role:' + r)" },
          uid: { expression: 'claims.sub' },
          extra: [{ key: 'example.com/tier', valueExpression: 'claims.tier' }, { key: 'example.com/none', valueExpression: '[]' }],
        },
        userValidationRules: [{ expression: "!user.username.startsWith('u:root')", message: 'no root' }],
      }),
    );
    const claims = { email: 'a@example.com', email_verified: true, roles: ['dev'], tier: 'gold', sub: 'id-1' };
    assert.deepEqual((await v.verify(issuer.mint(claims))).user, {
      username: 'u:a@example.com',
      uid: 'id-1',
      groups: ['role:dev'],
      extra: { 'example.com/tier': ['gold'] },
    });
    await rejects(v, issuer.mint({ ...claims, tier: 'silver' }), /failed: gold only/);
    await rejects(v, issuer.mint({ ...claims, email: 'root@x' }), /user info validation rule.*no root/);
    await rejects(v, issuer.mint({ ...claims, email_verified: false }), /empty username/);
    await rejects(v, issuer.mint({ ...claims, roles: undefined }), /error evaluating groups claim expression/);
  });
});

describe('JwtAuthenticators: routing by issuer and the verified-token cache (spec 5.5)', () => {
  it('spec 5.5: a token of another issuer gets no opinion; a cached token is answered without a promise', async () => {
    const v = await verifierFor(flags());
    let now = Date.now();
    const a = new JwtAuthenticators([v], { now: () => now, cacheTtlMs: 10_000 });
    const other = signJwt({ iss: 'https://other.example', aud: 'orch-test', sub: 'x', exp: 9e9 }, issuer.keys[0]!);
    assert.equal(a.authenticate(bearer(other)), undefined);
    assert.equal(a.authenticate(bearer('static-token')), undefined);
    const exp = Math.floor(now / 1000) + 5;
    const token = issuer.mint({ sub: 'carol', exp });
    const first = a.authenticate(bearer(token));
    assert.ok(first instanceof Promise);
    assert.equal((await first)?.username, 'carol');
    const second = a.authenticate(bearer(token));
    assert.ok(!(second instanceof Promise), 'served from the cache');
    assert.equal((second as { username: string }).username, 'carol');
    now = exp * 1000 + 1; // never past exp, even inside the TTL: the token is verified again
    const third = a.authenticate(bearer(token));
    assert.ok(third instanceof Promise, 'not served from the cache past exp');
    await third;
  });
});

authenticatorContract({
  name: 'JwtAuthenticators',
  make: async () => new JwtAuthenticators([await verifierFor(flags({ groupsClaim: 'groups', groupsPrefix: '' }))]),
  valid: () => bearer(issuer.mint({ sub: 'dave', groups: ['team'] })),
  expectedUser: { username: 'dave', groups: ['team'] },
  invalid: () => [
    bearer(issuer.mint({ aud: 'nope' })),
    bearer(issuer.mint({ exp: 1 })),
    bearer(issuer.mint({}, { key: { ...issuer.unpublishedKey(), kid: issuer.keys[issuer.keys.length - 1]!.kid } })),
  ],
  foreign: () => [bearer('abcdef.0123456789abcdef'), bearer('static-token'), bearer(signJwt({ iss: 'https://sa.example', sub: 'x' }, issuer.keys[0]!))],
});
