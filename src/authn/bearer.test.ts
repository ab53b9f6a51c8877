import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import { bearerToken } from './bearer.js';
import { hasCredentials } from './credentials.js';

const is401 = (e: unknown) => isStatusError(e) && e.code === 401 && e.reason === 'Unauthorized';

describe('bearerToken (spec 5.3: Authorization: Bearer <token>)', () => {
  it('returns the token, with the scheme matched case-insensitively', () => {
    assert.equal(bearerToken({ authorization: 'Bearer abc.def-123' }), 'abc.def-123');
    assert.equal(bearerToken({ authorization: 'bearer abc' }), 'abc');
    assert.equal(bearerToken({ authorization: 'BEARER abc' }), 'abc');
    assert.equal(bearerToken({ authorization: '  Bearer abc  ' }), 'abc', 'surrounding whitespace is HTTP padding');
  });

  it('finds the header whatever the case of its name, and a single-entry list', () => {
    assert.equal(bearerToken({ Authorization: 'Bearer abc' }), 'abc');
    assert.equal(bearerToken({ authorization: ['Bearer abc'] }), 'abc');
  });

  it('has no opinion without an Authorization header or with another scheme', () => {
    assert.equal(bearerToken({}), undefined);
    assert.equal(bearerToken({ authorization: undefined }), undefined);
    assert.equal(bearerToken({ authorization: '' }), undefined);
    assert.equal(bearerToken({ authorization: '   ' }), undefined);
    assert.equal(bearerToken({ authorization: 'Basic dXNlcjpwYXNz' }), undefined);
    assert.equal(bearerToken({ authorization: 'Bearerabc' }), undefined, 'a different scheme word');
    assert.equal(bearerToken({ 'x-other': 'Bearer abc' }), undefined);
  });

  for (const bad of ['Bearer', 'bearer ', 'Bearer  abc', 'Bearer abc def', 'Bearer\tabc', 'Bearer abc\tdef']) {
    it(`rejects a malformed bearer header with 401: ${JSON.stringify(bad)}`, () => {
      assert.throws(() => bearerToken({ authorization: bad }), is401);
    });
  }

  it('rejects several Authorization headers with 401', () => {
    assert.throws(() => bearerToken({ authorization: ['Bearer a', 'Bearer b'] }), is401);
  });
});

describe('hasCredentials (spec 5.1)', () => {
  it('sees an Authorization header of any scheme, or a client certificate', () => {
    assert.equal(hasCredentials({ headers: { authorization: 'Basic eA==' } }), true);
    assert.equal(hasCredentials({ headers: { authorization: 'Bearer' } }), true);
    assert.equal(hasCredentials({ headers: { authorization: ['Bearer a', 'Bearer b'] } }), true);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: Buffer.from([0x30, 0x03]) }), true);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: [Buffer.from([0x30])] }), true);
  });

  it('sees nothing in a blank header, an empty certificate object or an empty chain', () => {
    assert.equal(hasCredentials({ headers: {} }), false);
    assert.equal(hasCredentials({ headers: { authorization: ' ' } }), false);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: {} }), false);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: [] }), false);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: Buffer.alloc(0) }), false);
    assert.equal(hasCredentials({ headers: {}, peerCertificate: null }), false);
  });
});
