import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { AUTHENTICATION_GROUP, GROUP_SUFFIX } from '../api/naming.js';
import { isStatusError } from '../errors/index.js';
import {
  ServiceAccountAuthenticator,
  ServiceAccountTokenIssuer,
  keyIdOf,
  loadKeyFile,
  loadSigningKey,
  type IssueRequest,
  type LiveObject,
  type ServiceAccountLookup,
} from './service-account.js';
import { craftCert, tempCa, type Ca } from './testing.js';

const ISSUER = 'https://orch.example/issuer';
const API = 'https://orch.example';
const pem = (k: { export(o: object): string | Buffer }, type: string) => k.export({ type, format: 'pem' }) as string;
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const RSA_PKCS1 = pem(rsa.privateKey, 'pkcs1');
const EC_SEC1 = `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${pem(ec.privateKey, 'sec1')}`;
const EC_PUBLIC = pem(ec.publicKey, 'spki');
const RSA_PUBLIC = pem(rsa.publicKey, 'spki');

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const is401 = (e: unknown) => isStatusError(e) && e.code === 401;
const is400For = (field: string) => (e: unknown) => isStatusError(e) && e.code === 400 && e.details?.causes?.[0]?.field === field;
const base: IssueRequest = { namespace: 'ns1', serviceAccountName: 'builder', serviceAccountUid: 'sa-uid', audiences: [API], expirationSeconds: 3600 };
const ecIssuer = new ServiceAccountTokenIssuer({ signingKeyPem: EC_SEC1, issuer: ISSUER });
const authFor = (o: Partial<ConstructorParameters<typeof ServiceAccountAuthenticator>[0]> = {}) =>
  new ServiceAccountAuthenticator({ publicKeysPem: [EC_PUBLIC, RSA_PUBLIC], issuers: [ISSUER], audiences: [API], ...o });

describe('ServiceAccountTokenIssuer (spec 5.4)', () => {
  it('spec 5.4: RSA keys (PKCS#1) sign RS256 and EC P-256 keys (SEC1, with EC PARAMETERS) ES256', async () => {
    const r = await new ServiceAccountTokenIssuer({ signingKeyPem: RSA_PKCS1, issuer: ISSUER, keyId: 'k1' }).issue(base);
    assert.deepEqual(decodeProtectedHeader(r.token), { alg: 'RS256', kid: 'k1', typ: 'JWT' });
    const e = await ecIssuer.issue(base);
    assert.deepEqual(decodeProtectedHeader(e.token), { alg: 'ES256', kid: keyIdOf(ec.publicKey), typ: 'JWT' });
    assert.equal(loadSigningKey(pem(ec.privateKey, 'pkcs8')).alg, 'ES256');
    assert.equal(loadSigningKey(pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey, 'pkcs8')).alg, 'ES384');
  });

  it('spec 5.4: carries iss, sub, aud, iat, nbf, exp, jti and the private claim', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0, 700);
    const { token, expirationTimestamp } = await ecIssuer.issue({ ...base, audiences: [API, 'vault'], now, boundObject: { kind: 'Pod', name: 'p', uid: 'pod-uid' } });
    const c = decodeJwt(token);
    const iat = Math.floor(now / 1000);
    assert.equal(c.iss, ISSUER);
    assert.equal(c.sub, 'system:serviceaccount:ns1:builder');
    assert.deepEqual(c.aud, [API, 'vault']);
    assert.deepEqual([c.iat, c.nbf, c.exp], [iat, iat, iat + 3600]);
    assert.match(String(c.jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(c[GROUP_SUFFIX], { namespace: 'ns1', serviceaccount: { name: 'builder', uid: 'sa-uid' }, pod: { name: 'p', uid: 'pod-uid' } });
    assert.equal(expirationTimestamp, '2030-01-01T13:00:00Z');
    const s = decodeJwt((await ecIssuer.issue({ ...base, boundObject: { kind: 'Secret', name: 's', uid: 'sec-uid' } })).token);
    assert.deepEqual(s[GROUP_SUFFIX], { namespace: 'ns1', serviceaccount: { name: 'builder', uid: 'sa-uid' }, secret: { name: 's', uid: 'sec-uid' } });
  });

  it('spec 5.4: refuses expirationSeconds under 10 minutes, over 2^32 or fractional, naming the field (400)', async () => {
    for (const expirationSeconds of [0, 599, -1, 600.5, 2 ** 32 + 1, Number.NaN]) {
      await assert.rejects(ecIssuer.issue({ ...base, expirationSeconds }), is400For('spec.expirationSeconds'), String(expirationSeconds));
    }
    assert.ok((await ecIssuer.issue({ ...base, expirationSeconds: 600 })).token);
  });

  it('spec 5.4: refuses a request without audiences (400)', async () => {
    await assert.rejects(ecIssuer.issue({ ...base, audiences: [] }), is400For('spec.audiences'));
    await assert.rejects(ecIssuer.issue({ ...base, audiences: [''] }), is400For('spec.audiences'));
  });

  it('spec 5.4: refuses keys that cannot sign a service account token', () => {
    assert.throws(() => new ServiceAccountTokenIssuer({ signingKeyPem: EC_PUBLIC, issuer: ISSUER }), /no PEM private key/);
    const ed = pem(generateKeyPairSync('ed25519').privateKey, 'pkcs8');
    assert.throws(() => new ServiceAccountTokenIssuer({ signingKeyPem: ed, issuer: ISSUER }), /only RSA and P-256/);
    assert.throws(() => new ServiceAccountTokenIssuer({ signingKeyPem: EC_SEC1, issuer: '' }), /issuer/);
  });
});

describe('ServiceAccountAuthenticator (spec 5.4, 2.7)', () => {
  let ca: Ca & { cleanup: () => Promise<void> };
  before(async () => {
    ca = await tempCa();
  });
  after(() => ca.cleanup());

  it('spec 5.4: round trip with RSA and EC keys: user, uid and the service account groups', async () => {
    for (const signingKeyPem of [RSA_PKCS1, EC_SEC1]) {
      const { token } = await new ServiceAccountTokenIssuer({ signingKeyPem, issuer: ISSUER }).issue(base);
      assert.deepEqual(await authFor().authenticate(bearer(token)), {
        username: 'system:serviceaccount:ns1:builder',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1'],
        extra: { [`${AUTHENTICATION_GROUP}/credential-id`]: [`JTI=${decodeJwt(token).jti}`] },
      });
    }
  });

  it('spec 5.4: a pod-bound token carries pod name and uid as extra', async () => {
    const { token } = await ecIssuer.issue({ ...base, boundObject: { kind: 'Pod', name: 'web-0', uid: 'pod-uid' } });
    const extra = (await authFor().authenticate(bearer(token)))?.extra ?? {};
    assert.deepEqual(extra[`${AUTHENTICATION_GROUP}/pod-name`], ['web-0']);
    assert.deepEqual(extra[`${AUTHENTICATION_GROUP}/pod-uid`], ['pod-uid']);
  });

  it('spec 5.4: reads keys from certificates, private keys and multi-key files (key rotation)', async () => {
    const cert = await craftCert(ca, { commonName: 'sa-signer' });
    const { token } = await new ServiceAccountTokenIssuer({ signingKeyPem: cert.keyPem, issuer: ISSUER }).issue(base);
    for (const keys of [[cert.certPem], [cert.keyPem], [`${pem(other.publicKey, 'spki')}\n${cert.certPem}`], [EC_PUBLIC, cert.certPem]]) {
      assert.equal((await authFor({ publicKeysPem: keys }).authenticate(bearer(token)))?.username, 'system:serviceaccount:ns1:builder');
    }
    assert.equal(loadKeyFile(`${EC_SEC1}${RSA_PKCS1}${pem(rsa.publicKey, 'pkcs1')}`).length, 3);
  });

  it('spec 5.4: accepts a token meant for any one of the API audiences; rejects other audiences with 401', async () => {
    const { token } = await ecIssuer.issue({ ...base, audiences: ['vault', API] });
    assert.ok(await authFor({ audiences: ['x', API] }).authenticate(bearer(token)));
    const wrong = await ecIssuer.issue({ ...base, audiences: ['vault'] });
    await assert.rejects(async () => authFor().authenticate(bearer(wrong.token)), is401);
  });

  it('spec 5.4: has no opinion on tokens of other issuers and on bearer tokens that are not JWTs', async () => {
    const foreign = await new ServiceAccountTokenIssuer({ signingKeyPem: EC_SEC1, issuer: 'https://elsewhere' }).issue(base);
    const auth = authFor();
    for (const t of [foreign.token, 'abc123.0123456789abcdef', 'static-token', 'a.b.c', 'e30.e30.sig', `${foreign.token}.x`]) {
      assert.equal(await auth.authenticate(bearer(t)), undefined, t);
    }
    assert.equal(await auth.authenticate({ headers: {} }), undefined);
    const noIss = await new SignJWT({ sub: 'x' }).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
    assert.equal(await auth.authenticate(bearer(noIss)), undefined);
  });

  it('spec 5.4: a token of our issuer signed by an unknown key, tampered with, or unsigned is a 401', async () => {
    const alien = await new ServiceAccountTokenIssuer({ signingKeyPem: pem(other.privateKey, 'pkcs8'), issuer: ISSUER }).issue(base);
    await assert.rejects(async () => authFor().authenticate(bearer(alien.token)), is401);

    const { token } = await ecIssuer.issue(base);
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = { ...decodeJwt(token), sub: 'system:serviceaccount:kube:admin' };
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    await assert.rejects(async () => authFor().authenticate(bearer(tampered)), is401);

    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    await assert.rejects(async () => authFor().authenticate(bearer(none)), is401);
    const hs = await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(EC_PUBLIC));
    await assert.rejects(async () => authFor().authenticate(bearer(hs)), is401);
  });

  it('spec 5.4: rejects expired and not-yet-valid tokens with 401, allowing a minute of clock skew', async () => {
    const hour = 3_600_000;
    const expired = await ecIssuer.issue({ ...base, expirationSeconds: 600, now: Date.now() - hour });
    await assert.rejects(async () => authFor().authenticate(bearer(expired.token)), is401);
    const future = await ecIssuer.issue({ ...base, now: Date.now() + 5 * 60_000 });
    await assert.rejects(async () => authFor().authenticate(bearer(future.token)), is401);
    const skewed = await ecIssuer.issue({ ...base, now: Date.now() + 30_000 });
    assert.ok(await authFor().authenticate(bearer(skewed.token)));
    const justExpired = await ecIssuer.issue({ ...base, expirationSeconds: 600, now: Date.now() - 630_000 });
    assert.ok(await authFor().authenticate(bearer(justExpired.token)));
  });

  it('spec 5.4: rejects correctly signed tokens with broken service account claims', async () => {
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ iss: ISSUER, aud: API, exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
    const claim = { namespace: 'ns1', serviceaccount: { name: 'builder', uid: 'u' } };
    const sub = 'system:serviceaccount:ns1:builder';
    assert.ok(await authFor().authenticate(bearer(await sign({ sub, [GROUP_SUFFIX]: claim }))));
    const bad: Record<string, unknown>[] = [
      { sub },
      { sub: 'system:serviceaccount:ns1:other', [GROUP_SUFFIX]: claim },
      { sub, [GROUP_SUFFIX]: { ...claim, namespace: '' } },
      { sub, [GROUP_SUFFIX]: { ...claim, serviceaccount: { name: 'builder' } } },
      { sub, [GROUP_SUFFIX]: { ...claim, pod: { name: 'p', uid: 'x' }, secret: { name: 's', uid: 'y' } } },
      { sub, [GROUP_SUFFIX]: { ...claim, pod: 'p' } },
      { sub, [GROUP_SUFFIX]: claim, exp: undefined },
      { sub, [GROUP_SUFFIX]: claim, iat: Math.floor(Date.now() / 1000) + 3600 },
    ];
    for (const claims of bad) await assert.rejects(async () => authFor().authenticate(bearer(await sign(claims))), is401, JSON.stringify(claims));
  });

  describe('with --service-account-lookup', () => {
    const live = new Map<string, LiveObject>();
    const get = (kind: string) => async (ns: string, name: string) => live.get(`${kind}/${ns}/${name}`);
    const lookup: ServiceAccountLookup = { getServiceAccount: get('sa'), getPod: get('pod'), getSecret: get('secret') };
    const reset = () => {
      live.clear();
      live.set('sa/ns1/builder', { uid: 'sa-uid' });
      live.set('pod/ns1/web-0', { uid: 'pod-uid' });
      live.set('secret/ns1/tok', { uid: 'sec-uid' });
    };
    const podToken = () => ecIssuer.issue({ ...base, boundObject: { kind: 'Pod', name: 'web-0', uid: 'pod-uid' } });
    const secretToken = () => ecIssuer.issue({ ...base, boundObject: { kind: 'Secret', name: 'tok', uid: 'sec-uid' } });

    it('spec 5.4: accepts tokens whose service account and bound objects still exist', async () => {
      reset();
      for (const { token } of [await ecIssuer.issue(base), await podToken(), await secretToken()]) {
        assert.ok(await authFor({ lookup }).authenticate(bearer(token)));
      }
    });

    it('spec 5.4: a deleted service account revokes its tokens (401)', async () => {
      reset();
      const { token } = await ecIssuer.issue(base);
      live.delete('sa/ns1/builder');
      await assert.rejects(async () => authFor({ lookup }).authenticate(bearer(token)), is401);
      assert.ok(await authFor().authenticate(bearer(token)), 'without lookup the token stays valid until it expires');
    });

    it('spec 5.4: a recreated service account (new uid) does not inherit old tokens (401)', async () => {
      reset();
      const { token } = await ecIssuer.issue(base);
      live.set('sa/ns1/builder', { uid: 'new-uid' });
      await assert.rejects(async () => authFor({ lookup }).authenticate(bearer(token)), is401);
    });

    it('spec 5.4: an object being deleted keeps its tokens for a minute of grace only', async () => {
      reset();
      const { token } = await ecIssuer.issue(base);
      live.set('sa/ns1/builder', { uid: 'sa-uid', deletionTimestamp: new Date(Date.now() - 10_000).toISOString() });
      assert.ok(await authFor({ lookup }).authenticate(bearer(token)));
      live.set('sa/ns1/builder', { uid: 'sa-uid', deletionTimestamp: new Date(Date.now() - 120_000).toISOString() });
      await assert.rejects(async () => authFor({ lookup }).authenticate(bearer(token)), is401);
    });

    it('spec 5.4: a deleted or recreated bound pod or secret revokes the token (401)', async () => {
      reset();
      const [pod, sec] = [await podToken(), await secretToken()];
      live.delete('pod/ns1/web-0');
      live.set('secret/ns1/tok', { uid: 'other' });
      await assert.rejects(async () => authFor({ lookup }).authenticate(bearer(pod.token)), is401);
      await assert.rejects(async () => authFor({ lookup }).authenticate(bearer(sec.token)), is401);
      // A lookup without pod access checks only the service account.
      assert.ok(await authFor({ lookup: { getServiceAccount: lookup.getServiceAccount } }).authenticate(bearer(pod.token)));
    });
  });
});

describe('loadKeyFile (spec 5.4 --service-account-key-file)', () => {
  it('refuses files without RSA or EC keys', () => {
    assert.throws(() => loadKeyFile('no keys', 'sa.key'), /^Error: sa\.key: no PEM RSA or ECDSA key found$/);
    assert.throws(() => loadKeyFile('-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n'), /no PEM/);
    assert.throws(() => loadKeyFile(pem(generateKeyPairSync('ed25519').publicKey, 'spki')), /ed25519 keys are not supported/);
    assert.throws(() => loadKeyFile('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'), /unreadable PUBLIC KEY/);
  });

  it('needs keys, issuers and audiences to authenticate', () => {
    assert.throws(() => authFor({ publicKeysPem: [] }), /at least one key/);
    assert.throws(() => authFor({ issuers: [] }), /issuer/);
    assert.throws(() => authFor({ audiences: [] }), /audience/);
  });
});
