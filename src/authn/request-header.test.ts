import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueClientCert } from '../server/tls.js';
import { RequestHeaderAuthenticator } from './request-header.js';
import { craftCert, derOf, detailedPeer, tempCa, type Ca } from './testing.js';
import type { AuthRequest } from './types.js';

describe('RequestHeaderAuthenticator (spec 5.1: authenticating proxy)', () => {
  let proxyCa: Ca & { cleanup: () => Promise<void> };
  let clientCa: Ca & { cleanup: () => Promise<void> };
  let proxyCert: unknown;
  let otherProxyCert: unknown;
  let auth: RequestHeaderAuthenticator;

  before(async () => {
    [proxyCa, clientCa] = await Promise.all([tempCa(), tempCa()]);
    proxyCert = detailedPeer((await issueClientCert(proxyCa, { commonName: 'front-proxy' })).certPem);
    otherProxyCert = derOf((await issueClientCert(proxyCa, { commonName: 'other-proxy' })).certPem);
    auth = new RequestHeaderAuthenticator({ clientCA: proxyCa.caCertPem, allowedNames: ['front-proxy'] });
  });
  after(async () => {
    await proxyCa.cleanup();
    await clientCa.cleanup();
  });

  const req = (headers: AuthRequest['headers'], peerCertificate: unknown = proxyCert): AuthRequest => ({ headers, peerCertificate });

  it('spec 5.1: takes user, groups and extra from a trusted proxy', async () => {
    const user = await auth.authenticate(
      req({
        'x-remote-user': 'alice',
        'x-remote-group': ['dev', 'ops'],
        'x-remote-extra-scopes': ['read', 'write'],
        'x-remote-extra-acme.com%2fproject': 'p1',
        authorization: 'Bearer ignored',
      }),
    );
    assert.deepEqual(user, {
      username: 'alice',
      groups: ['dev', 'ops'],
      extra: { scopes: ['read', 'write'], 'acme.com/project': ['p1'] },
    });
  });

  it('spec 5.1: each group header occurrence is one group, commas included', async () => {
    const user = await auth.authenticate(req({ 'x-remote-user': 'a', 'x-remote-group': ['a,b', 'c'] }));
    assert.deepEqual(user?.groups, ['a,b', 'c']);
    assert.deepEqual((await auth.authenticate(req({ 'x-remote-user': 'a', 'x-remote-group': 'x, y' })))?.groups, ['x, y']);
  });

  it('spec 5.1: matches header names case-insensitively, lowercases and percent-decodes extra keys', async () => {
    const user = await auth.authenticate(req({ 'X-Remote-User': 'bob', 'X-REMOTE-GROUP': 'g', 'X-Remote-Extra-Foo%2FBar': 'v', 'X-Remote-Extra-bad%zz': 'w' }));
    assert.deepEqual(user, { username: 'bob', groups: ['g'], extra: { 'foo/bar': ['v'], 'bad%zz': ['w'] } });
  });

  it('spec 5.1: the first non-empty username header wins; empty values are skipped', async () => {
    const custom = new RequestHeaderAuthenticator({
      clientCA: proxyCa.caCertPem,
      usernameHeaders: ['X-User', 'X-Fallback-User'],
      groupHeaders: ['X-Groups', 'X-More-Groups'],
      extraHeaderPrefixes: ['X-Extra-', 'X-Also-'],
    });
    const user = await custom.authenticate(
      req({ 'x-user': '', 'x-fallback-user': ['carol', 'ignored'], 'x-groups': ['g1', ''], 'x-more-groups': 'g2', 'x-also-k': 'v', 'x-remote-user': 'no' }),
    );
    assert.deepEqual(user, { username: 'carol', groups: ['g1', 'g2'], extra: { k: ['v'] } });
  });

  it('spec 5.1: without a username header there is no opinion', async () => {
    assert.equal(await auth.authenticate(req({ 'x-remote-group': 'g' })), undefined);
    assert.equal(await auth.authenticate(req({ 'x-remote-user': '' })), undefined);
    assert.equal(await auth.authenticate(req({ 'x-remote-user': [] })), undefined);
  });

  it('spec 5.1: ignores the headers without a client certificate', async () => {
    assert.equal(await auth.authenticate({ headers: { 'x-remote-user': 'mallory' } }), undefined);
    for (const peer of [undefined, {}, null, []]) {
      const headers = { 'x-remote-user': 'mallory', 'x-remote-group': 'system:masters' };
      assert.equal(await auth.authenticate({ headers, peerCertificate: peer }), undefined);
    }
  });

  it('spec 5.1: ignores the headers from a certificate of another CA (even one the x509 method trusts)', async () => {
    const c = await issueClientCert(clientCa, { commonName: 'front-proxy' });
    assert.equal(await auth.authenticate(req({ 'x-remote-user': 'mallory' }, derOf(c.certPem))), undefined);
  });

  it('spec 5.1: ignores the headers from a proxy certificate whose name is not allowed', async () => {
    assert.equal(await auth.authenticate(req({ 'x-remote-user': 'mallory' }, otherProxyCert)), undefined);
    const anyName = new RequestHeaderAuthenticator({ clientCA: proxyCa.caCertPem, allowedNames: [] });
    assert.equal((await anyName.authenticate(req({ 'x-remote-user': 'ok' }, otherProxyCert)))?.username, 'ok');
  });

  it('spec 5.1: ignores the headers from expired, not-yet-valid, server-only or unreadable proxy certificates', async () => {
    const certs = await Promise.all([
      issueClientCert(proxyCa, { commonName: 'front-proxy' }, -1),
      craftCert(proxyCa, { commonName: 'front-proxy', notBeforeDays: 1 }),
      craftCert(proxyCa, { commonName: 'front-proxy', eku: ['1.3.6.1.5.5.7.3.1'] }),
    ]);
    for (const c of certs) assert.equal(await auth.authenticate(req({ 'x-remote-user': 'mallory' }, derOf(c.certPem))), undefined);
    assert.equal(await auth.authenticate(req({ 'x-remote-user': 'mallory' }, Buffer.from('junk'))), undefined);
  });

  it('spec 5.1: accepts a proxy certificate issued through an intermediate', async () => {
    const inter = await craftCert(proxyCa, { commonName: 'proxy-intermediate', ca: true, eku: null });
    const leaf = await craftCert({ caCertPem: inter.certPem, caKeyPem: inter.keyPem }, { commonName: 'front-proxy' });
    const user = await auth.authenticate(req({ 'x-remote-user': 'dan' }, detailedPeer(leaf.certPem, inter.certPem)));
    assert.equal(user?.username, 'dan');
  });

  it('spec 5.1: configuration errors surface at start-up', () => {
    assert.throws(() => new RequestHeaderAuthenticator({ clientCA: '' }), /no PEM certificate/);
    assert.throws(() => new RequestHeaderAuthenticator({ clientCA: proxyCa.caCertPem, usernameHeaders: [' '] }), /username header/);
  });
});
