/**
 * Self-signed serving certificates so that `npm start` gives HTTPS on 127.0.0.1 with nothing installed
 * (architecture: "What we ship"), plus client certificates for tests of spec 5.2.
 * `@peculiar/x509` issues; `node:crypto` parses and checks (it is faster and already trusted by `tls`).
 */
import { KeyObject, X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { GROUP_SUFFIX } from '../api/naming.js';

type X509Module = typeof X509;
let x509Module: Promise<X509Module> | undefined;
/**
 * Loaded on first issue only: the library takes ~200 ms to load (its ASN.1 schemas), while a restart
 * that reuses its files needs nothing but node:crypto.
 */
function loadX509(): Promise<X509Module> {
  x509Module ??= import('@peculiar/x509').then((m) => {
    m.cryptoProvider.set(webcrypto as unknown as Parameters<typeof m.cryptoProvider.set>[0]);
    return m;
  });
  return x509Module;
}

/** The maker token, derived so that only naming.ts spells it (architecture rule 5). */
const MAKER = GROUP_SUFFIX.slice(0, GROUP_SUFFIX.indexOf('.'));
export const CA_COMMON_NAME = `${MAKER}-ca`;
export const APISERVER_COMMON_NAME = `${MAKER}-apiserver`;

export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const SERVING_CERT_FILE = 'apiserver.crt';
export const SERVING_KEY_FILE = 'apiserver.key';

/** Names every local client uses, so a default server is reachable however loopback is spelled. */
const ALWAYS_HOSTS = ['localhost', '127.0.0.1', '::1'];
const DAY_MS = 24 * 60 * 60 * 1000;
/** Backdating absorbs small clock differences between the issuing and the verifying machine. */
const BACKDATE_MS = 5 * 60 * 1000;
/** A serving certificate this close to expiry is replaced at start rather than failing mid-run. */
const RENEW_BEFORE_MS = DAY_MS;

const EC_ALG = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING_ALG = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface ServingCerts {
  caCertPem: string;
  caKeyPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * Returns the CA and serving certificate in `dir`, creating what is missing. The CA is created only when
 * both of its files are absent: replacing an existing CA would silently invalidate every issued
 * credential, so a damaged CA is an error. The serving certificate is reissued when it is missing,
 * unreadable, not from this CA, (nearly) expired, or lacks one of the requested hosts.
 */
export async function ensureServingCerts(dir: string, opts: { hosts: string[] }): Promise<ServingCerts> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const hosts = normalizeHosts(opts.hosts);
  const ca = await loadOrCreateCa(dir);

  const [certPem, keyPem] = await Promise.all([
    readOptional(join(dir, SERVING_CERT_FILE)),
    readOptional(join(dir, SERVING_KEY_FILE)),
  ]);
  if (certPem !== undefined && keyPem !== undefined && servingCertUsable(certPem, keyPem, ca.caCertPem, hosts)) {
    return { ...ca, certPem, keyPem };
  }

  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.caCertPem);
  const caKey = await importPrivateKey(ca.caKeyPem);
  const keys = await generateKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [APISERVER_COMMON_NAME] }],
    issuer: caCert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + 365 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) => ({ type: isIP(h) ? ('ip' as const) : ('dns' as const), value: h })),
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  const out = { certPem: cert.toString('pem'), keyPem: exportKeyPem(keys.privateKey) };
  await writeAtomic(join(dir, SERVING_KEY_FILE), out.keyPem, 0o600);
  await writeAtomic(join(dir, SERVING_CERT_FILE), out.certPem, 0o644);
  return { ...ca, ...out };
}

/** A client certificate for spec 5.2: the common name is the user, each organization a group (own O= RDN). */
export async function issueClientCert(
  ca: { caCertPem: string; caKeyPem: string },
  subject: { commonName: string; organizations?: string[] },
  validityDays = 365,
): Promise<{ certPem: string; keyPem: string }> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.caCertPem);
  const caKey = await importPrivateKey(ca.caKeyPem);
  const keys = await generateKeys();
  const now = Date.now();
  // JSON names avoid RFC 4514 escaping: a user or group name may contain commas or `=`.
  const name: X509.JsonName = [
    ...(subject.organizations ?? []).map((o) => ({ O: [o] })),
    { CN: [subject.commonName] },
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: name,
    issuer: caCert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + validityDays * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: exportKeyPem(keys.privateKey) };
}

async function loadOrCreateCa(dir: string): Promise<{ caCertPem: string; caKeyPem: string }> {
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  const [caCertPem, caKeyPem] = await Promise.all([readOptional(certPath), readOptional(keyPath)]);
  if (caCertPem !== undefined && caKeyPem !== undefined) {
    checkCa(caCertPem, caKeyPem, certPath);
    return { caCertPem, caKeyPem };
  }
  if (caCertPem !== undefined || caKeyPem !== undefined) {
    const missing = caCertPem === undefined ? certPath : keyPath;
    throw new Error(`${missing} is missing while its pair exists; delete both CA files to create a new CA`);
  }

  const x509 = await loadX509();
  const keys = await generateKeys();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [CA_COMMON_NAME] }],
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + 10 * 365 * DAY_MS),
    keys,
    signingAlgorithm: SIGNING_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const created = { caCertPem: cert.toString('pem'), caKeyPem: exportKeyPem(keys.privateKey) };
  // Key first: a certificate without its key would be reported as a damaged CA on the next start.
  await writeAtomic(keyPath, created.caKeyPem, 0o600);
  await writeAtomic(certPath, created.caCertPem, 0o644);
  return created;
}

function checkCa(certPem: string, keyPem: string, certPath: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) throw new Error('the CA key does not match the certificate');
  } catch (e) {
    throw new Error(`${certPath}: unusable CA (${(e as Error).message}); delete both CA files to create a new CA`);
  }
  if (!cert.ca) throw new Error(`${certPath}: not a CA certificate`);
  if (Date.parse(cert.validTo) <= Date.now()) {
    throw new Error(`${certPath}: the CA expired on ${cert.validTo}; delete both CA files to create a new CA`);
  }
}

function servingCertUsable(certPem: string, keyPem: string, caCertPem: string, hosts: string[]): boolean {
  try {
    const cert = new X509Certificate(certPem);
    const ca = new X509Certificate(caCertPem);
    if (!cert.verify(ca.publicKey) || !cert.checkIssued(ca)) return false;
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return false;
    if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS) return false;
    // checkHost also accepts wildcard SANs; an exact match is not required for a host to be served.
    return hosts.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
  } catch {
    return false; // unreadable files are replaced, they hold nothing worth keeping
  }
}

/** Requested hosts plus the loopback names, without brackets, blanks or duplicates. */
function normalizeHosts(hosts: string[]): string[] {
  const out: string[] = [];
  for (const raw of [...hosts, ...ALWAYS_HOSTS]) {
    let h = raw.trim();
    if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
    if (isIP(h) === 0) h = h.toLowerCase(); // DNS names compare case-insensitively
    if (h !== '' && !out.includes(h)) out.push(h);
  }
  return out;
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_ALG, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

function exportKeyPem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ format: 'pem', type: 'pkcs8' }) as string;
}

async function importPrivateKey(pem: string): Promise<webcrypto.CryptoKey> {
  // node:crypto reads any PEM key form (PKCS#8 or SEC1); webcrypto wants PKCS#8 DER.
  const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
  return webcrypto.subtle.importKey('pkcs8', der, EC_ALG, false, ['sign']);
}

/** 128 random bits with the top bit clear, so the DER integer stays positive (RFC 5280 4.1.2.2). */
function serialNumber(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Write then rename, so a crash never leaves a half-written key or certificate behind. */
async function writeAtomic(path: string, data: string, mode: number): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}
