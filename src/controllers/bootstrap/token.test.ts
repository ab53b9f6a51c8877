import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/index.js';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, TOKEN_SECRET_NAMESPACE, detachedJws, expirationOf, nextExpiration, parseRfc3339, signedClusterInfoData, signingToken } from './token.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function tokenSecret(id: string, data: Record<string, string>, over: Partial<KubeObject> = {}): KubeObject {
  const all: Record<string, string> = { 'token-id': id, 'token-secret': '0123456789abcdef', 'usage-bootstrap-signing': 'true', ...data };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    metadata: { name: `bootstrap-token-${id}`, namespace: TOKEN_SECRET_NAMESPACE },
    data: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, b64(v)])),
    ...over,
  };
}

describe('bootstrap token secrets', () => {
  it('spec 2.9: the detached JWS is header..signature, HS256 over header.payload with the full token as key', () => {
    const content = 'apiVersion: v1\nkind: Config\nclusters: []\n';
    const jws = detachedJws(content, 'abcdef', '0123456789abcdef');
    const [header, payload, signature] = jws.split('.');
    assert.equal(payload, '');
    assert.deepEqual(JSON.parse(Buffer.from(header as string, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' });
    assert.doesNotMatch(jws, /=/);
    const expected = createHmac('sha256', 'abcdef.0123456789abcdef').update(`${header}.${Buffer.from(content).toString('base64url')}`).digest('base64url');
    assert.equal(signature, expected);
  });

  it('spec 2.9: only unexpired tokens marked for signing, of the right type, name and shape, may sign', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const cases: [string, KubeObject, boolean][] = [
      ['signing token', tokenSecret('abcdef', {}), true],
      ['future expiration', tokenSecret('abcdef', { expiration: '2030-01-01T00:00:01Z' }), true],
      ['expired', tokenSecret('abcdef', { expiration: '2029-12-31T23:59:59Z' }), false],
      ['expiring exactly now', tokenSecret('abcdef', { expiration: '2030-01-01T00:00:00Z' }), false],
      ['unreadable expiration', tokenSecret('abcdef', { expiration: 'tomorrow' }), false],
      ['signing not asked for', tokenSecret('abcdef', { 'usage-bootstrap-signing': 'false' }), false],
      ['wrong type', tokenSecret('abcdef', {}, { type: 'Opaque' }), false],
      ['name of another token', tokenSecret('abcdef', {}, { metadata: { name: 'bootstrap-token-zzzzzz', namespace: TOKEN_SECRET_NAMESPACE } }), false],
      ['short secret', tokenSecret('abcdef', { 'token-secret': 'short' }), false],
      ['being deleted', tokenSecret('abcdef', {}, { metadata: { name: 'bootstrap-token-abcdef', namespace: TOKEN_SECRET_NAMESPACE, deletionTimestamp: '2029-01-01T00:00:00Z' } }), false],
    ];
    for (const [title, secret, signs] of cases) assert.equal(signingToken(secret, now) !== undefined, signs, title);
  });

  it('spec 3.5: expiration is RFC 3339; an unreadable one counts as expired, a missing one as never', () => {
    const cases: [string | undefined, number | undefined][] = [
      [undefined, undefined],
      ['2030-01-01T00:00:00Z', Date.parse('2030-01-01T00:00:00Z')],
      ['2030-01-01T02:00:00+02:00', Date.parse('2030-01-01T00:00:00Z')],
      ['2030-01-01T00:00:00.250Z', Date.parse('2030-01-01T00:00:00.250Z')],
      ['2030-02-30T00:00:00Z', Number.NEGATIVE_INFINITY],
      ['2030-01-01 00:00:00', Number.NEGATIVE_INFINITY],
    ];
    for (const [raw, want] of cases) assert.equal(expirationOf(tokenSecret('abcdef', raw === undefined ? {} : { expiration: raw })), want, String(raw));
    assert.equal(parseRfc3339('2030-01-01T00:00:00z'), Date.parse('2030-01-01T00:00:00Z'));
  });

  it('spec 2.9: cluster-info keeps other entries, adds one JWS per token, drops stale ones, and reports no change when none', () => {
    const kubeconfig = 'kind: Config\n';
    const tokens = [{ id: 'abcdef', secret: '0123456789abcdef' }];
    const first = signedClusterInfoData({ kubeconfig, other: 'x', 'jws-kubeconfig-zzzzzz': 'stale' }, tokens);
    assert.equal(first.changed, true);
    assert.deepEqual(Object.keys(first.data).sort(), ['jws-kubeconfig-abcdef', 'kubeconfig', 'other']);
    assert.equal(signedClusterInfoData(first.data, tokens).changed, false);
    assert.deepEqual(signedClusterInfoData({ other: 'x' }, tokens), { data: { other: 'x' }, changed: false });
    assert.deepEqual(Object.keys(signedClusterInfoData(first.data, []).data).sort(), ['kubeconfig', 'other']);
  });

  it('reference behaviour: the signer wakes at the earliest future expiration', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const secrets = [
      tokenSecret('aaaaaa', { expiration: '2030-01-01T00:10:00Z' }),
      tokenSecret('bbbbbb', { expiration: '2030-01-01T00:05:00Z' }),
      tokenSecret('cccccc', { expiration: '2029-01-01T00:00:00Z' }),
      tokenSecret('dddddd', {}),
    ];
    assert.equal(nextExpiration(secrets, now), Date.parse('2030-01-01T00:05:00Z'));
    assert.equal(nextExpiration([secrets[3] as KubeObject], now), undefined);
  });
});
