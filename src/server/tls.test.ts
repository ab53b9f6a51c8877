import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { type AddressInfo } from 'node:net';
import { request, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  APISERVER_COMMON_NAME,
  CA_COMMON_NAME,
  ensureServingCerts,
  issueClientCert,
  type ServingCerts,
} from './tls.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'tls-test-'));
  dirs.push(d);
  return d;
}
after(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('ensureServingCerts', () => {
  let dir: string;
  let certs: ServingCerts;
  before(async () => {
    dir = await tempDir();
    certs = await ensureServingCerts(dir, { hosts: ['api.example.test', '10.1.2.3'] });
  });

  it('creates a CA that signs a serving certificate for every host', () => {
    const ca = new X509Certificate(certs.caCertPem);
    const cert = new X509Certificate(certs.certPem);
    assert.equal(ca.subject, `CN=${CA_COMMON_NAME}`);
    assert.equal(ca.ca, true);
    assert.ok(ca.verify(ca.publicKey), 'CA is self-signed');
    assert.equal(cert.subject, `CN=${APISERVER_COMMON_NAME}`);
    assert.equal(cert.ca, false);
    assert.ok(cert.verify(ca.publicKey));
    assert.ok(cert.checkIssued(ca));
    assert.equal(cert.checkHost('localhost'), 'localhost');
    assert.equal(cert.checkHost('api.example.test'), 'api.example.test');
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(cert.checkIP('::1'), '::1');
    assert.equal(cert.checkIP('10.1.2.3'), '10.1.2.3');
    assert.equal(cert.checkHost('other.example.test'), undefined);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']); // serverAuth
    assert.equal(cert.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  });

  it('uses the documented validity periods', () => {
    const year = 365 * 24 * 3600 * 1000;
    const ca = new X509Certificate(certs.caCertPem);
    const cert = new X509Certificate(certs.certPem);
    const caDays = (Date.parse(ca.validTo) - Date.now()) / year;
    const certDays = (Date.parse(cert.validTo) - Date.now()) / year;
    assert.ok(caDays > 9.9 && caDays <= 10, `CA lifetime ${caDays} years`);
    assert.ok(certDays > 0.99 && certDays <= 1, `serving lifetime ${certDays} years`);
  });

  it('writes PKCS#8 keys readable only by the owner', async () => {
    for (const f of ['ca.key', 'apiserver.key']) {
      const st = await stat(join(dir, f));
      assert.equal(st.mode & 0o777, 0o600, f);
      assert.match(await readFile(join(dir, f), 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
    }
    assert.equal(await readFile(join(dir, 'ca.crt'), 'utf8'), certs.caCertPem);
    assert.equal(await readFile(join(dir, 'apiserver.crt'), 'utf8'), certs.certPem);
  });

  it('reuses the files on later calls', async () => {
    const again = await ensureServingCerts(dir, { hosts: ['10.1.2.3'] });
    assert.deepEqual(again, certs);
  });

  it('reissues only the serving certificate when a host is new', async () => {
    const d = await tempDir();
    const first = await ensureServingCerts(d, { hosts: [] });
    const second = await ensureServingCerts(d, { hosts: ['NEW.example.test'] });
    assert.equal(second.caCertPem, first.caCertPem);
    assert.equal(second.caKeyPem, first.caKeyPem);
    assert.notEqual(second.certPem, first.certPem);
    assert.equal(new X509Certificate(second.certPem).checkHost('new.example.test'), 'new.example.test');
  });

  it('reissues a missing or damaged serving certificate', async () => {
    const d = await tempDir();
    const first = await ensureServingCerts(d, { hosts: [] });
    await unlink(join(d, 'apiserver.crt'));
    const second = await ensureServingCerts(d, { hosts: [] });
    assert.notEqual(second.certPem, first.certPem);
    await writeFile(join(d, 'apiserver.key'), 'garbage');
    const third = await ensureServingCerts(d, { hosts: [] });
    assert.notEqual(third.keyPem, 'garbage');
    assert.ok(new X509Certificate(third.certPem).checkPrivateKey(createPrivateKey(third.keyPem)));
    assert.equal(third.caCertPem, first.caCertPem);
  });

  it('reissues an expired serving certificate', async () => {
    const d = await tempDir();
    const first = await ensureServingCerts(d, { hosts: [] });
    // A client certificate from the same CA stands in for an expired server certificate.
    const expired = await issueClientCert(first, { commonName: 'x' }, -1);
    await writeFile(join(d, 'apiserver.crt'), expired.certPem);
    await writeFile(join(d, 'apiserver.key'), expired.keyPem);
    const second = await ensureServingCerts(d, { hosts: [] });
    assert.notEqual(second.certPem, expired.certPem);
    assert.ok(Date.parse(new X509Certificate(second.certPem).validTo) > Date.now());
  });

  it('refuses to replace a CA whose key is missing', async () => {
    const d = await tempDir();
    await ensureServingCerts(d, { hosts: [] });
    await unlink(join(d, 'ca.key'));
    await assert.rejects(ensureServingCerts(d, { hosts: [] }), /ca\.key is missing/);
  });

  it('serves HTTPS that a client trusting only the CA accepts on 127.0.0.1', async () => {
    const server = createServer({ cert: certs.certPem, key: certs.keyPem }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/', ca: certs.caCertPem }, (res) => {
          let s = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (s += c));
          res.on('end', () => resolve(s));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(body, 'ok');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('issueClientCert (spec 5.2)', () => {
  it('issues a clientAuth certificate with CN as user and one O per group', async () => {
    const ca = await ensureServingCerts(await tempDir(), { hosts: [] });
    const { certPem, keyPem } = await issueClientCert(ca, { commonName: 'jane', organizations: ['dev', 'ops,eu'] });
    const cert = new X509Certificate(certPem);
    assert.ok(cert.verify(new X509Certificate(ca.caCertPem).publicKey));
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']); // clientAuth
    assert.deepEqual(cert.subject.split('\n'), ['O=dev', 'O=ops\\,eu', 'CN=jane']);
    assert.ok(cert.checkPrivateKey(createPrivateKey(keyPem)));
    const days = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 364 && days <= 365);
  });

  it('honours the validity in days', async () => {
    const ca = await ensureServingCerts(await tempDir(), { hosts: [] });
    const { certPem } = await issueClientCert(ca, { commonName: 'short' }, 2);
    const days = (Date.parse(new X509Certificate(certPem).validTo) - Date.now()) / 86_400_000;
    assert.ok(days > 1.9 && days <= 2);
    assert.equal(new X509Certificate(certPem).subject, 'CN=short');
  });
});
