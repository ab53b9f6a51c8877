/** Certificate requests and certificates for the CertificateSigningRequest tests (ECDSA, RSA and Ed25519 keys). */
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export type KeyKind = 'ecdsa' | 'rsa' | 'ed25519';

type Params = webcrypto.AlgorithmIdentifier | webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams | webcrypto.EcdsaParams;
const ALGORITHMS: Record<KeyKind, { key: Params; sign: Params }> = {
  ecdsa: { key: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  rsa: {
    key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    sign: { name: 'RSASSA-PKCS1-v1_5' },
  },
  ed25519: { key: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
};

async function keys(kind: KeyKind): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHMS[kind].key as webcrypto.EcKeyGenParams, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/** A PEM certificate request for `commonName`, signed by its own fresh key. */
export async function certificateRequestPem(commonName: string, kind: KeyKind = 'ecdsa'): Promise<string> {
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${commonName}`,
    keys: await keys(kind),
    signingAlgorithm: ALGORITHMS[kind].sign,
  });
  return csr.toString('pem');
}

/** A self-signed PEM certificate (what a signer would put into status.certificate). */
export async function certificatePem(commonName: string): Promise<string> {
  const pair = await keys('ecdsa');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    keys: pair,
    signingAlgorithm: ALGORITHMS.ecdsa.sign,
  });
  return cert.toString('pem');
}

/**
 * A self-signed PEM certificate with a basicConstraints extension saying whether it is a CA (trust bundle
 * anchors must be), and keyCertSign in its key usage when it is.
 */
export async function caCertificatePem(commonName: string, isCA = true): Promise<string> {
  const pair = await keys('ecdsa');
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '02',
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    keys: pair,
    signingAlgorithm: ALGORITHMS.ecdsa.sign,
    extensions: [
      new x509.BasicConstraintsExtension(isCA, undefined, true),
      new x509.KeyUsagesExtension(isCA ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  return cert.toString('pem');
}

/** JSON `[]byte` form of a PEM text. */
export const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
