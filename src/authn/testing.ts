/**
 * Certificates for the authenticator tests: a real CA from `ensureServingCerts`, plus hand-made ones
 * (intermediates, odd validity, missing or other key usages) that `issueClientCert` deliberately cannot make.
 */
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { ensureServingCerts } from '../server/tls.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;

export interface Ca {
  caCertPem: string;
  caKeyPem: string;
}

/** A fresh CA in a temporary directory, removed again by `cleanup`. */
export async function tempCa(): Promise<Ca & { cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'authn-ca-'));
  const { caCertPem, caKeyPem } = await ensureServingCerts(dir, { hosts: [] });
  return { caCertPem, caKeyPem, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface CraftOptions {
  commonName: string;
  organizations?: string[];
  /** Offsets from now in days. */
  notBeforeDays?: number;
  notAfterDays?: number;
  /** A CA certificate (for intermediates). */
  ca?: boolean;
  /** Extended key usage OIDs; null leaves the extension out. Default: clientAuth. */
  eku?: string[] | null;
}

/** A certificate signed by `issuer`, with a fresh P-256 key; returns PEM cert and PKCS#8 key. */
export async function craftCert(issuer: Ca, o: CraftOptions): Promise<{ certPem: string; keyPem: string }> {
  const issuerCert = new x509.X509Certificate(issuer.caCertPem);
  const der = createPrivateKey(issuer.caKeyPem).export({ format: 'der', type: 'pkcs8' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']);
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(o.ca ?? false, undefined, true),
    await x509.AuthorityKeyIdentifierExtension.create(issuerCert.publicKey),
  ];
  if (o.ca) {
    extensions.push(new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true));
    extensions.push(await x509.SubjectKeyIdentifierExtension.create(keys.publicKey));
  }
  const eku = o.eku === undefined ? [x509.ExtendedKeyUsage.clientAuth] : o.eku;
  if (eku !== null) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: `01${randomBytes(8).toString('hex')}`,
    subject: [...(o.organizations ?? []).map((org) => ({ O: [org] })), { CN: [o.commonName] }],
    issuer: issuerCert.subject,
    notBefore: new Date(now + (o.notBeforeDays ?? -1) * DAY),
    notAfter: new Date(now + (o.notAfterDays ?? 30) * DAY),
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: SIGN,
    extensions,
  });
  const keyPem = webcrypto.subtle.exportKey('pkcs8', keys.privateKey).then((k) =>
    createPrivateKey({ key: Buffer.from(k), format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }) as string,
  );
  return { certPem: cert.toString('pem'), keyPem: await keyPem };
}

/** DER of a PEM certificate, as `getPeerCertificate().raw` holds it. */
export const derOf = (pem: string): Buffer => new X509Certificate(pem).raw;

/** Shaped like `tlsSocket.getPeerCertificate(true)`: `raw` and an issuer chain ending in a self-reference. */
export function detailedPeer(...pems: string[]): Record<string, unknown> {
  const nodes = pems.map((p) => ({ raw: derOf(p), subject: {} }) as Record<string, unknown>);
  nodes.forEach((n, i) => (n.issuerCertificate = nodes[i + 1] ?? n));
  return nodes[0] ?? {};
}
