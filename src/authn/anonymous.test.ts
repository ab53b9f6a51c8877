import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnonymousAuthenticator } from './anonymous.js';

describe('AnonymousAuthenticator (spec 5.1, 2.7)', () => {
  const anon = new AnonymousAuthenticator();

  it('makes a request without credentials system:anonymous in system:unauthenticated', async () => {
    assert.deepEqual(await anon.authenticate({ headers: {} }), {
      username: 'system:anonymous',
      groups: ['system:unauthenticated'],
    });
    assert.equal((await anon.authenticate({ headers: { authorization: '' }, peerCertificate: {} }))?.username, 'system:anonymous');
  });

  it('has no opinion when any credentials are present', async () => {
    assert.equal(await anon.authenticate({ headers: { authorization: 'Bearer x' } }), undefined);
    assert.equal(await anon.authenticate({ headers: { authorization: 'Basic eDp5' } }), undefined);
    assert.equal(await anon.authenticate({ headers: { authorization: 'Bearer' } }), undefined);
    assert.equal(await anon.authenticate({ headers: {}, peerCertificate: Buffer.from([0x30]) }), undefined);
  });
});
