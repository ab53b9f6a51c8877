import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { isStatusError } from '../errors/index.js';
import { ensureServingCerts, issueClientCert } from '../server/tls.js';
import { peerCertificateChain, verifyClientChain } from './client-cert.js';
import { craftCert, derOf, detailedPeer, tempCa, type Ca } from './testing.js';
import { X509Authenticator } from './x509.js';

const is401 = (e: unknown) => isStatusError(e) && e.code === 401;
const ANY_EKU = '2.5.29.37.0';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

describe('X509Authenticator (spec 5.2)', () => {
  let ca: Ca & { cleanup: () => Promise<void> };
  let foreign: Ca & { cleanup: () => Promise<void> };
  let auth: X509Authenticator;

  before(async () => {
    [ca, foreign] = await Promise.all([tempCa(), tempCa()]);
    auth = new X509Authenticator(ca.caCertPem);
  });
  after(async () => {
    await ca.cleanup();
    await foreign.cleanup();
  });

  it('spec 5.2: the common name is the user and every organization a group', async () => {
    const c = await issueClientCert(ca, { commonName: 'alice', organizations: ['dev', 'ops, and more', 'a+b=c'] });
    assert.deepEqual(await auth.authenticate({ headers: {}, peerCertificate: detailedPeer(c.certPem) }), {
      username: 'alice',
      groups: ['dev', 'ops, and more', 'a+b=c'],
    });
  });

  it('spec 5.2: a user without organizations has no groups; names with escapable characters stay intact', async () => {
    const c = await issueClientCert(ca, { commonName: 'x\nO=system:masters, a+b;<c>' });
    assert.deepEqual(await auth.authenticate({ headers: {}, peerCertificate: derOf(c.certPem) }), {
      username: 'x\nO=system:masters, a+b;<c>',
      groups: [],
    });
  });

  it('spec 5.2: accepts a DER buffer, a list of DER buffers, concatenated DER and an X509Certificate', async () => {
    const c = await issueClientCert(ca, { commonName: 'bob', organizations: ['g'] });
    const der = derOf(c.certPem);
    for (const peer of [der, [der], Buffer.concat([der, derOf(ca.caCertPem)]), new X509Certificate(c.certPem), new Uint8Array(der)]) {
      assert.equal((await auth.authenticate({ headers: {}, peerCertificate: peer }))?.username, 'bob');
    }
  });

  it('spec 5.2: has no opinion without a certificate', async () => {
    for (const peer of [undefined, null, {}, [], Buffer.alloc(0)]) {
      assert.equal(await auth.authenticate({ headers: {}, peerCertificate: peer }), undefined);
    }
  });

  it('spec 5.2: has no opinion on a valid certificate without a common name', async () => {
    const c = await craftCert(ca, { commonName: '' });
    assert.equal(await auth.authenticate({ headers: {}, peerCertificate: derOf(c.certPem) }), undefined);
  });

  const rejects = async (peer: unknown, why: RegExp) =>
    assert.throws(() => auth.authenticate({ headers: {}, peerCertificate: peer }), (e) => is401(e) && why.test((e as Error).message));

  it('spec 5.2: rejects a certificate from a foreign CA with 401', async () => {
    const c = await issueClientCert(foreign, { commonName: 'mallory', organizations: ['system:masters'] });
    await rejects(detailedPeer(c.certPem), /unknown authority/);
    // Sending the foreign CA along does not make it trusted.
    await rejects(detailedPeer(c.certPem, foreign.caCertPem), /unknown authority/);
  });

  it('spec 5.2: rejects an expired certificate and one not yet valid with 401', async () => {
    const expired = await issueClientCert(ca, { commonName: 'old' }, -1);
    await rejects(derOf(expired.certPem), /expired/);
    const crafted = await craftCert(ca, { commonName: 'old', notBeforeDays: -10, notAfterDays: -1 });
    await rejects(derOf(crafted.certPem), /expired/);
    const future = await craftCert(ca, { commonName: 'soon', notBeforeDays: 1, notAfterDays: 10 });
    await rejects(derOf(future.certPem), /not yet valid/);
  });

  it('spec 5.2: requires client authentication in the extended key usage when the extension is present', async () => {
    const server = await craftCert(ca, { commonName: 'svc', eku: [SERVER_AUTH] });
    await rejects(derOf(server.certPem), /client authentication/);
    for (const eku of [null, [ANY_EKU], [SERVER_AUTH, '1.3.6.1.5.5.7.3.2']]) {
      const c = await craftCert(ca, { commonName: 'ok', eku });
      assert.equal((await auth.authenticate({ headers: {}, peerCertificate: derOf(c.certPem) }))?.username, 'ok');
    }
  });

  it('spec 5.2: follows a presented intermediate CA to the trusted root', async () => {
    const inter = await craftCert(ca, { commonName: 'intermediate', ca: true, eku: null });
    const interCa = { caCertPem: inter.certPem, caKeyPem: inter.keyPem };
    const leaf = await craftCert(interCa, { commonName: 'carol', organizations: ['team'] });
    assert.deepEqual(await auth.authenticate({ headers: {}, peerCertificate: detailedPeer(leaf.certPem, inter.certPem, ca.caCertPem) }), {
      username: 'carol',
      groups: ['team'],
    });
    assert.equal((await auth.authenticate({ headers: {}, peerCertificate: [derOf(leaf.certPem), derOf(inter.certPem)] }))?.username, 'carol');
    await rejects(derOf(leaf.certPem), /unknown authority/); // the intermediate is needed
    // An intermediate in the CA bundle itself is a trust anchor.
    const viaBundle = new X509Authenticator(inter.certPem);
    assert.equal((await viaBundle.authenticate({ headers: {}, peerCertificate: derOf(leaf.certPem) }))?.username, 'carol');
  });

  it('spec 5.2: refuses intermediates that are not CAs, expired, or not for client authentication', async () => {
    const cases = [
      { ca: false, eku: null },
      { ca: true, eku: null, notAfterDays: -1, notBeforeDays: -5 },
      { ca: true, eku: [SERVER_AUTH] },
    ];
    for (const o of cases) {
      const inter = await craftCert(ca, { commonName: 'i', ...o });
      const leaf = await craftCert({ caCertPem: inter.certPem, caKeyPem: inter.keyPem }, { commonName: 'dave' });
      await rejects([derOf(leaf.certPem), derOf(inter.certPem)], /unknown authority/);
    }
  });

  it('spec 5.2: trusts every CA of a bundle file with several', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'client-ca-'));
    try {
      const file = join(dir, 'ca.pem');
      await writeFile(file, `# two CAs\n${foreign.caCertPem}${ca.caCertPem}`);
      const both = X509Authenticator.fromFile(file);
      for (const issuer of [ca, foreign]) {
        const c = await issueClientCert(issuer, { commonName: 'erin' });
        assert.equal((await both.authenticate({ headers: {}, peerCertificate: derOf(c.certPem) }))?.username, 'erin');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('spec 5.2: rejects unreadable certificate data with 401', async () => {
    await rejects(Buffer.from([0x30, 0x03, 1, 2, 3]), /unreadable/);
    await rejects(Buffer.from('not a certificate'), /not DER/);
    await rejects({ raw: 'string' }, /DER/);
    await rejects(42, /unrecognized/);
  });

  it('spec 5.2: a bundle without certificates is a start-up error', () => {
    assert.throws(() => new X509Authenticator('nothing here'), /no PEM certificate/);
    assert.throws(() => new X509Authenticator('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), /unreadable certificate #1/);
  });

  it('spec 5.2: authenticates what a real TLS handshake hands over (requestCert, rejectUnauthorized: false)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'x509-tls-'));
    const serving = await ensureServingCerts(dir, { hosts: [] });
    const inter = await craftCert(ca, { commonName: 'tls-intermediate', ca: true, eku: null });
    const leaf = await craftCert({ caCertPem: inter.certPem, caKeyPem: inter.keyPem }, { commonName: 'frank', organizations: ['a', 'b'] });
    const alien = await issueClientCert(foreign, { commonName: 'mallory' });
    const peers: unknown[] = [];
    const server = tls.createServer(
      { key: serving.keyPem, cert: serving.certPem, requestCert: true, rejectUnauthorized: false, ca: ca.caCertPem },
      (socket) => {
        peers.push(socket.getPeerCertificate(true));
        socket.end();
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const connect = (cert: string | undefined, key: string | undefined) =>
      new Promise<void>((resolve, reject) => {
        const s = tls.connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', servername: 'localhost', ca: serving.caCertPem, cert, key });
        s.on('error', reject);
        s.on('close', () => resolve());
        s.resume();
      });
    try {
      await connect(`${leaf.certPem}\n${inter.certPem}\n`, leaf.keyPem);
      await connect(alien.certPem, alien.keyPem);
      await connect(undefined, undefined);
      assert.equal(peers.length, 3);
      assert.deepEqual(await auth.authenticate({ headers: {}, peerCertificate: peers[0] }), { username: 'frank', groups: ['a', 'b'] });
      await rejects(peers[1], /unknown authority/);
      assert.equal(await auth.authenticate({ headers: {}, peerCertificate: peers[2] }), undefined);
    } finally {
      server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('peerCertificateChain / verifyClientChain (spec 5.2)', () => {
  it('walks the issuer chain once, stopping at the self-referencing root', async () => {
    const ca = await tempCa();
    try {
      const c = await issueClientCert(ca, { commonName: 'u' });
      const chain = peerCertificateChain(detailedPeer(c.certPem, ca.caCertPem));
      assert.equal(chain.length, 2);
      assert.ok(chain[1]!.equals(derOf(ca.caCertPem)));
      assert.equal(verifyClientChain(chain, [new X509Certificate(ca.caCertPem)]).subject, 'CN=u');
      assert.throws(() => verifyClientChain([], [new X509Certificate(ca.caCertPem)]), /no client certificate/);
    } finally {
      await ca.cleanup();
    }
  });
});
