import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYSTEM_NAMESPACE } from '../api/naming.js';
import { isStatusError } from '../errors/index.js';
import {
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BootstrapTokenAuthenticator,
  parseRfc3339,
  validateBootstrapTokenSecret,
} from './bootstrap-token.js';

const ID = 'abc123';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const is401 = (e: unknown) => isStatusError(e) && e.code === 401;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function secret(data: Record<string, string> = {}, over: Record<string, unknown> = {}): Record<string, unknown> {
  const all: Record<string, string> = { 'token-id': ID, 'token-secret': SECRET, 'usage-bootstrap-authentication': 'true', ...data };
  const encoded = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, b64(v)]));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${ID}`, namespace: SYSTEM_NAMESPACE },
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    data: encoded,
    ...over,
  };
}

/** A lookup holding one secret, recording what was asked for. */
function lookupOf(obj: Record<string, unknown> | undefined) {
  const asked: string[] = [];
  return {
    asked,
    getSecret: async (ns: string, name: string) => {
      asked.push(`${ns}/${name}`);
      return obj;
    },
  };
}

const authWith = (obj: Record<string, unknown> | undefined) => new BootstrapTokenAuthenticator(lookupOf(obj));

describe('BootstrapTokenAuthenticator (spec 5.4, 3.5)', () => {
  it('spec 5.4: authenticates as system:bootstrap:<id> in system:bootstrappers, reading the system namespace secret', async () => {
    const lookup = lookupOf(secret());
    assert.deepEqual(await new BootstrapTokenAuthenticator(lookup).authenticate(bearer(TOKEN)), {
      username: `system:bootstrap:${ID}`,
      groups: ['system:bootstrappers'],
    });
    assert.deepEqual(lookup.asked, [`${SYSTEM_NAMESPACE}/bootstrap-token-${ID}`]);
  });

  it('spec 5.4: adds auth-extra-groups (trimmed, deduplicated, sorted)', async () => {
    const s = secret({ 'auth-extra-groups': 'system:bootstrappers:worker, system:bootstrappers:a-b:c1,system:bootstrappers:worker' });
    assert.deepEqual((await authWith(s).authenticate(bearer(TOKEN)))?.groups, [
      'system:bootstrappers',
      'system:bootstrappers:a-b:c1',
      'system:bootstrappers:worker',
    ]);
    assert.deepEqual((await authWith(secret({ 'auth-extra-groups': '' })).authenticate(bearer(TOKEN)))?.groups, ['system:bootstrappers']);
  });

  it('spec 3.5: accepts a token whose expiration is still ahead (any RFC 3339 offset)', async () => {
    for (const expiration of [iso(Date.now() + 3_600_000), '2999-01-01T00:00:00+05:00', '2999-01-01T00:00:00.5z']) {
      assert.equal((await authWith(secret({ expiration })).authenticate(bearer(TOKEN)))?.username, `system:bootstrap:${ID}`);
    }
  });

  it('spec 5.4: has no opinion on bearer tokens of another shape and does not look them up', async () => {
    const lookup = lookupOf(secret());
    const auth = new BootstrapTokenAuthenticator(lookup);
    for (const t of ['abc12.0123456789abcdef', 'abc1234.0123456789abcdef', `${ID}.0123456789abcdef0`, `ABC123.${SECRET}`, `${ID}${SECRET}`, `${ID}:${SECRET}`, 'a.b.c', 'static-token']) {
      assert.equal(await auth.authenticate(bearer(t)), undefined, t);
    }
    assert.equal(await auth.authenticate({ headers: {} }), undefined);
    assert.equal(await auth.authenticate({ headers: { authorization: `Basic ${b64('a:b')}` } }), undefined);
    assert.deepEqual(lookup.asked, []);
  });

  const rejected: [string, Record<string, unknown> | undefined][] = [
    ['no secret', undefined],
    ['a wrong token secret', secret({ 'token-secret': 'ffffffffffffffff' })],
    ['a secret without token-secret', { ...secret(), data: { 'token-id': b64(ID), 'usage-bootstrap-authentication': b64('true') } }],
    ['a token id in data that differs', secret({ 'token-id': 'zzz999' })],
    ['the wrong secret type', secret({}, { type: 'Opaque' })],
    ['a secret being deleted', secret({}, { metadata: { name: `bootstrap-token-${ID}`, deletionTimestamp: '2020-01-01T00:00:00Z' } })],
    ['an expired token (spec 3.5)', secret({ expiration: iso(Date.now() - 1000) })],
    ['an unreadable expiration', secret({ expiration: 'tomorrow' })],
    ['no usage-bootstrap-authentication', { ...secret(), data: { 'token-id': b64(ID), 'token-secret': b64(SECRET) } }],
    ['usage-bootstrap-authentication "false"', secret({ 'usage-bootstrap-authentication': 'false' })],
    ['usage-bootstrap-authentication "True"', secret({ 'usage-bootstrap-authentication': 'True' })],
    ['an extra group outside system:bootstrappers:', secret({ 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' })],
    ['an extra group with an empty suffix', secret({ 'auth-extra-groups': 'system:bootstrappers:' })],
    ['an empty extra group in the list', secret({ 'auth-extra-groups': 'system:bootstrappers:a,,system:bootstrappers:b' })],
    ['an extra group with upper case', secret({ 'auth-extra-groups': 'system:bootstrappers:Nodes' })],
    ['data that is not base64', { ...secret(), data: { ...(secret().data as object), 'token-secret': '!!not base64!!' } }],
  ];
  for (const [what, obj] of rejected) {
    it(`spec 5.4: rejects a well-formed token with 401 for ${what}`, async () => {
      await assert.rejects(authWith(obj).authenticate(bearer(TOKEN)), is401);
    });
  }

  it('spec 5.4: never puts the token secret in the error', async () => {
    await assert.rejects(authWith(secret({ 'token-secret': 'ffffffffffffffff' })).authenticate(bearer(TOKEN)), (e: Error) => !e.message.includes(SECRET));
  });

  it('spec 5.3: a malformed bearer header is a 401 before any lookup', async () => {
    await assert.rejects(authWith(secret()).authenticate({ headers: { authorization: `Bearer ${TOKEN} x` } }), is401);
  });
});

describe('validateBootstrapTokenSecret (spec 2.9)', () => {
  const fields = (s: Record<string, unknown>) => validateBootstrapTokenSecret(s).map((e) => e.field);

  it('spec 2.9: accepts a complete secret and ignores secrets of other types', () => {
    const ok = secret({
      description: 'join token',
      expiration: '2030-01-02T15:04:05Z',
      'usage-bootstrap-signing': 'false',
      'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:ingress',
    });
    assert.deepEqual(validateBootstrapTokenSecret(ok), []);
    assert.deepEqual(validateBootstrapTokenSecret({ type: 'Opaque', data: { 'token-id': b64('X') } }), []);
  });

  it('spec 2.9: requires token-id and token-secret', () => {
    const s = { ...secret(), data: {} };
    assert.deepEqual(fields(s), ['data[token-id]', 'data[token-secret]']);
    assert.equal(validateBootstrapTokenSecret(s)[0]?.type, 'FieldValueRequired');
  });

  it('spec 2.9: checks token-id and token-secret shapes, never echoing the secret', () => {
    const s = secret({ 'token-id': 'ABC123', 'token-secret': 'TOO-SHORT' }, { metadata: { name: 'bootstrap-token-ABC123' } });
    const errs = validateBootstrapTokenSecret(s);
    assert.deepEqual(errs.map((e) => e.field), ['data[token-id]', 'data[token-secret]']);
    assert.ok(errs.every((e) => e.type === 'FieldValueInvalid'));
    assert.ok(!JSON.stringify(errs).includes('TOO-SHORT'));
    assert.deepEqual(fields(secret({ 'token-secret': '0123456789abcdef0' })), ['data[token-secret]']);
  });

  it('spec 2.9: the name must be bootstrap-token-<token-id>', () => {
    assert.deepEqual(fields(secret({}, { metadata: { name: 'bootstrap-token-zzz999' } })), ['metadata.name']);
    assert.deepEqual(fields(secret({}, { metadata: { name: 'my-token' } })), ['metadata.name']);
  });

  it('spec 2.9: expiration must be RFC 3339', () => {
    for (const bad of ['2030-01-02', '2030-01-02 15:04:05Z', '2030-13-01T00:00:00Z', '2030-02-30T00:00:00Z', '2030-01-02T15:04:05', 'soon']) {
      assert.deepEqual(fields(secret({ expiration: bad })), ['data[expiration]'], bad);
    }
  });

  it('spec 2.9: usage values are "true" or "false"', () => {
    const errs = validateBootstrapTokenSecret(secret({ 'usage-bootstrap-signing': 'yes', 'usage-bootstrap-authentication': 'TRUE' }));
    assert.deepEqual(errs.map((e) => e.field).sort(), ['data[usage-bootstrap-authentication]', 'data[usage-bootstrap-signing]']);
    assert.ok(errs.every((e) => e.type === 'FieldValueNotSupported'));
  });

  it('spec 2.9: every auth-extra-groups entry begins system:bootstrappers:', () => {
    const errs = validateBootstrapTokenSecret(secret({ 'auth-extra-groups': 'system:bootstrappers:ok,system:masters,dev' }));
    assert.deepEqual(errs.map((e) => e.field), ['data[auth-extra-groups]', 'data[auth-extra-groups]']);
    assert.match(errs[0]!.message, /system:masters/);
  });

  it('spec 2.9: data values must be base64', () => {
    assert.deepEqual(fields({ ...secret(), data: { ...(secret().data as object), description: 'plain text!' } }), ['data[description]']);
  });
});

describe('parseRfc3339 (spec 2.9 expiration)', () => {
  it('reads Z and numeric offsets, with or without fractions', () => {
    assert.equal(parseRfc3339('2030-01-02T15:04:05Z'), Date.UTC(2030, 0, 2, 15, 4, 5));
    assert.equal(parseRfc3339('2030-01-02T15:04:05.250Z'), Date.UTC(2030, 0, 2, 15, 4, 5, 250));
    assert.equal(parseRfc3339('2030-01-02T17:04:05+02:00'), Date.UTC(2030, 0, 2, 15, 4, 5));
    assert.equal(parseRfc3339('2030-01-02t10:04:05-05:00'), Date.UTC(2030, 0, 2, 15, 4, 5));
    assert.equal(parseRfc3339('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.equal(parseRfc3339('0050-01-01T00:00:00Z'), -60589296000000);
  });

  it('refuses other forms and impossible dates', () => {
    for (const bad of ['2023-02-29T00:00:00Z', '2030-01-02T24:00:00Z', '2030-01-02T15:60:00Z', '2030-01-02T15:04:60Z', '2030-01-02T15:04:05+24:00', '2030-1-2T15:04:05Z', '']) {
      assert.equal(parseRfc3339(bad), undefined, bad);
    }
  });
});
