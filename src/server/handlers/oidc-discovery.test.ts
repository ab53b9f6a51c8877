import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { ServiceAccountTokenIssuer, keyIdOf } from '../../authn/index.js';
import { defaultClusterRoleBindings, defaultClusterRoles } from '../../authz/rbac/defaults.js';
import { isStatusError } from '../../errors/index.js';
import type { Res } from '../http.js';
import { JWKS_PATH, OPENID_CONFIGURATION_PATH, ServiceAccountIssuerDiscovery, checkJwksUri, discoveryDocument, issuerProblem, publicKeySet } from './oidc-discovery.js';

const pem = (k: { privateKey: { export(o: object): string | Buffer } }) => k.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });

/** Captures what a handler sends. */
function fakeRes() {
  const headers: Record<string, unknown> = {};
  let body = Buffer.alloc(0);
  const res = {
    statusCode: 0,
    headersSent: false,
    writableEnded: false,
    setHeader: (k: string, v: unknown) => void (headers[k.toLowerCase()] = v),
    getHeader: (k: string) => headers[k.toLowerCase()],
    write: () => true,
    end: (b?: Buffer) => void (body = b ?? body),
    on: () => res,
    once: () => res,
    removeListener: () => res,
  };
  return { res: res as unknown as Res, headers, json: () => JSON.parse(body.toString('utf8')), status: () => res.statusCode };
}

describe('service account issuer discovery documents (reference behaviour)', () => {
  it('reference behaviour: one JWK per key, with use sig, the issuer\'s kid and the key\'s algorithm', () => {
    const set = publicKeySet([rsa.publicKey, p256.publicKey, p384.publicKey]);
    assert.deepEqual(
      set.keys.map((k) => [k.kty, k.alg, k.use, k.kid]),
      [
        ['RSA', 'RS256', 'sig', keyIdOf(rsa.publicKey)],
        ['EC', 'ES256', 'sig', keyIdOf(p256.publicKey)],
        ['EC', 'ES384', 'sig', keyIdOf(p384.publicKey)],
      ],
    );
    assert.ok(set.keys[0]!.n && set.keys[0]!.e, 'RSA modulus and exponent');
    assert.equal(set.keys[1]!.crv, 'P-256');
    assert.ok(!('d' in set.keys[1]!), 'no private material');
  });

  it('reference behaviour: the same key twice (a private key and its public half) is published once', () => {
    assert.equal(publicKeySet([p256.publicKey, createPublicKey(p256.privateKey)]).keys.length, 1);
  });

  it('reference behaviour: the discovery document lists the signing algorithms of the keys, sorted and distinct', () => {
    assert.deepEqual(discoveryDocument('https://issuer.example', 'https://x/openid/v1/jwks', [p384.publicKey, rsa.publicKey, p256.publicKey, rsa.publicKey]), {
      issuer: 'https://issuer.example',
      jwks_uri: 'https://x/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256', 'ES384', 'RS256'],
    });
  });

  for (const issuer of ['https://issuer.example', 'https://issuer.example/path']) {
    it(`reference behaviour: issuer ${issuer} has discovery`, () => assert.equal(issuerProblem(issuer), undefined));
  }
  const refused: [string, RegExp][] = [
    ['http://issuer.example', /https scheme/],
    ['api', /not a URL/],
    ['https://issuer.example?x=1', /query/],
    ['https://issuer.example#f', /fragment/],
  ];
  for (const [issuer, why] of refused) {
    it(`reference behaviour: issuer ${issuer} has no discovery`, () => assert.match(issuerProblem(issuer) ?? '', why));
  }

  it('reference behaviour: --service-account-jwks-uri must be an https URL', () => {
    assert.doesNotThrow(() => checkJwksUri('https://keys.example/jwks'));
    assert.throws(() => checkJwksUri('http://keys.example/jwks'), /^Error: --service-account-jwks-uri: "http:\/\/keys.example\/jwks" must use the https scheme/);
    assert.throws(() => checkJwksUri('not a url'), /--service-account-jwks-uri: "not a url" is not a valid URL/);
  });
});

describe('ServiceAccountIssuerDiscovery endpoints (reference behaviour)', () => {
  const discovery = ServiceAccountIssuerDiscovery.create({ issuer: 'https://issuer.example', keyPems: [pem(p256)] })!;
  discovery.setExternalAddress('10.0.0.1:6443');

  it('reference behaviour: the discovery document as application/json, cacheable for an hour, jwks_uri on the external address', () => {
    const r = fakeRes();
    assert.equal(discovery.serve(OPENID_CONFIGURATION_PATH, 'GET', r.res), true);
    assert.equal(r.status(), 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['cache-control'], 'public, max-age=3600');
    assert.equal(r.json().jwks_uri, 'https://10.0.0.1:6443/openid/v1/jwks');
    assert.equal(r.json().issuer, 'https://issuer.example');
  });

  it('reference behaviour: the key set as application/jwk-set+json, cacheable for an hour', () => {
    const r = fakeRes();
    assert.equal(discovery.serve(JWKS_PATH, 'GET', r.res), true);
    assert.equal(r.headers['content-type'], 'application/jwk-set+json');
    assert.equal(r.headers['cache-control'], 'public, max-age=3600');
    assert.deepEqual(r.json().keys.map((k: { kid: string }) => k.kid), [keyIdOf(p256.publicKey)]);
  });

  it('reference behaviour: --service-account-jwks-uri replaces the jwks_uri', () => {
    const d = ServiceAccountIssuerDiscovery.create({ issuer: 'https://issuer.example', keyPems: [pem(p256)], jwksUri: 'https://cdn.example/keys' })!;
    const r = fakeRes();
    d.serve(OPENID_CONFIGURATION_PATH, 'GET', r.res);
    assert.equal(r.json().jwks_uri, 'https://cdn.example/keys');
  });

  it('reference behaviour: other paths are not its own; other methods are 405', () => {
    assert.equal(discovery.serve('/openid/v1', 'GET', fakeRes().res), false);
    assert.throws(() => discovery.serve(JWKS_PATH, 'POST', fakeRes().res), (e: unknown) => isStatusError(e) && e.code === 405);
  });

  it('reference behaviour: an issuer that is not an https URL has no discovery, and says why in the log', () => {
    const logged: string[] = [];
    assert.equal(ServiceAccountIssuerDiscovery.create({ issuer: 'api', keyPems: [pem(p256)] }, (m) => logged.push(m)), undefined);
    assert.match(logged[0] ?? '', /issuer discovery is not served: .*"api" is not a URL/);
  });

  it('reference behaviour: the published key verifies a token the issuer signs (kid and algorithm agree)', async () => {
    for (const pair of [p256, rsa]) {
      const d = ServiceAccountIssuerDiscovery.create({ issuer: 'https://issuer.example', keyPems: [pem(pair)] })!;
      const r = fakeRes();
      d.serve(JWKS_PATH, 'GET', r.res);
      const { token } = await new ServiceAccountTokenIssuer({ signingKeyPem: pem(pair), issuer: 'https://issuer.example' }).issue({
        namespace: 'ns',
        serviceAccountName: 'sa',
        serviceAccountUid: 'u',
        audiences: ['a'],
        expirationSeconds: 3600,
      });
      const [h, p, s] = token.split('.') as [string, string, string];
      const header = JSON.parse(Buffer.from(h, 'base64url').toString());
      const jwk = r.json().keys.find((k: { kid: string }) => k.kid === header.kid);
      assert.ok(jwk, `no JWK with kid ${header.kid}`);
      assert.equal(jwk.alg, header.alg);
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
      assert.equal(ok, true, header.alg);
    }
  });
});

describe('the system:service-account-issuer-discovery default role (reference behaviour)', () => {
  it('reference behaviour: get on both endpoints (with trailing slashes), bound to all service accounts only', () => {
    const role = defaultClusterRoles().find((r) => r.metadata?.name === 'system:service-account-issuer-discovery');
    assert.deepEqual(role?.rules, [
      { nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'], verbs: ['get'] },
    ]);
    const binding = defaultClusterRoleBindings().find((b) => b.metadata?.name === 'system:service-account-issuer-discovery');
    assert.deepEqual(
      binding?.subjects?.map((s) => `${s.kind}:${s.name}`),
      ['Group:system:serviceaccounts'],
    );
    assert.equal(binding?.roleRef.name, 'system:service-account-issuer-discovery');
  });
});
