/**
 * Reading certificate requests and issuing certificates with `@peculiar/x509`, loaded on first use only
 * (it takes a while to load, and a cluster without certificate requests never needs it).
 */
import { X509Certificate, createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import type { RequestFacts } from './rules.js';

type X509Module = typeof X509;
let loaded: Promise<X509Module> | undefined;

function x509(): Promise<X509Module> {
  loaded ??= import('@peculiar/x509').then((m) => {
    m.cryptoProvider.set(webcrypto as unknown as Parameters<typeof m.cryptoProvider.set>[0]);
    return m;
  });
  return loaded;
}

const SAN_OID = '2.5.29.17';

/** The request's subjectAltName extension, read as one whatever class the library parsed it into. */
function sanOf(lib: X509Module, request: X509.Pkcs10CertificateRequest): X509.SubjectAlternativeNameExtension | undefined {
  const ext = request.getExtension(SAN_OID);
  if (!ext) return undefined;
  return ext instanceof lib.SubjectAlternativeNameExtension ? ext : new lib.SubjectAlternativeNameExtension(ext.rawData);
}

export interface ParsedRequest {
  facts: RequestFacts;
  request: X509.Pkcs10CertificateRequest;
}

/** `spec.request` (base64 of PEM) parsed, its self-signature checked; throws with the reason otherwise. */
export async function parseCertificateRequest(specRequest: unknown): Promise<ParsedRequest> {
  if (typeof specRequest !== 'string') throw new Error('spec.request is missing');
  const pem = Buffer.from(specRequest, 'base64').toString('latin1');
  const m = /-----BEGIN CERTIFICATE REQUEST-----[\s\S]*?-----END CERTIFICATE REQUEST-----/.exec(pem);
  if (!m) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const lib = await x509();
  const request = new lib.Pkcs10CertificateRequest(m[0]);
  if (!(await request.verify())) throw new Error('the certificate request signature does not verify');
  const names = sanOf(lib, request)?.names.items ?? [];
  const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    request,
    facts: {
      commonName: request.subjectName.getField('CN')[0] ?? '',
      organizations: request.subjectName.getField('O'),
      dnsNames: of('dns'),
      ipAddresses: of('ip'),
      emailAddresses: of('email'),
      uris: of('url'),
    },
  };
}

/** A loaded signing CA: its certificate, its key for WebCrypto, and how it signs. */
export interface SigningCa {
  certPem: string;
  notAfter: number;
  key: webcrypto.CryptoKey;
  algorithm: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
  subjectKeyId?: string;
  subject: X509.Name;
}

const CURVES: Record<string, { curve: string; hash: string }> = {
  prime256v1: { curve: 'P-256', hash: 'SHA-256' },
  secp384r1: { curve: 'P-384', hash: 'SHA-384' },
  secp521r1: { curve: 'P-521', hash: 'SHA-512' },
};

/** Loads the `--cluster-signing-*` pair; throws when they do not belong together or cannot sign. */
export async function loadSigningCa(certPem: string, keyPem: string): Promise<SigningCa> {
  const cert = new X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  const spki = (k: Parameters<typeof createPublicKey>[0]) => createPublicKey(k).export({ type: 'spki', format: 'der' });
  if (!spki(key).equals(cert.publicKey.export({ type: 'spki', format: 'der' }))) throw new Error('the signing key does not match the signing certificate');
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  let importAlg: webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
  let algorithm: SigningCa['algorithm'];
  if (key.asymmetricKeyType === 'rsa') {
    importAlg = algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  } else if (key.asymmetricKeyType === 'ec') {
    const c = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!c) throw new Error(`the signing key's curve ${key.asymmetricKeyDetails?.namedCurve ?? '?'} is not supported (P-256, P-384, P-521)`);
    importAlg = { name: 'ECDSA', namedCurve: c.curve };
    algorithm = { name: 'ECDSA', hash: c.hash };
  } else if (key.asymmetricKeyType === 'ed25519') {
    importAlg = algorithm = { name: 'Ed25519' };
  } else {
    throw new Error(`signing keys of type ${key.asymmetricKeyType ?? '?'} are not supported (RSA, ECDSA, Ed25519)`);
  }
  const lib = await x509();
  const parsed = new lib.X509Certificate(certPem);
  const ski = parsed.getExtension(lib.SubjectKeyIdentifierExtension)?.keyId;
  return {
    certPem,
    notAfter: Date.parse(cert.validTo),
    key: await webcrypto.subtle.importKey('pkcs8', pkcs8, importAlg as webcrypto.EcKeyImportParams, false, ['sign']),
    algorithm,
    subjectKeyId: ski,
    subject: parsed.subjectName,
  };
}

export interface IssueParams {
  notBefore: number;
  notAfter: number;
  keyUsage: number;
  extKeyUsages: string[];
}

/** A leaf certificate for the request's subject, key and alternative names, signed by `ca`, as PEM. */
export async function issueCertificate(ca: SigningCa, req: ParsedRequest, p: IssueParams): Promise<string> {
  const lib = await x509();
  const extensions: X509.Extension[] = [new lib.BasicConstraintsExtension(false, undefined, true)];
  if (p.keyUsage !== 0) extensions.push(new lib.KeyUsagesExtension(p.keyUsage, true));
  if (p.extKeyUsages.length > 0) extensions.push(new lib.ExtendedKeyUsageExtension(p.extKeyUsages));
  if (ca.subjectKeyId) extensions.push(new lib.AuthorityKeyIdentifierExtension(ca.subjectKeyId));
  const san = sanOf(lib, req.request);
  if (san) extensions.push(san);
  // A positive 128-bit serial: the top bit cleared so DER does not read it as negative.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: req.request.subjectName,
    issuer: ca.subject,
    notBefore: new Date(p.notBefore),
    notAfter: new Date(p.notAfter),
    publicKey: req.request.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.algorithm as webcrypto.EcdsaParams,
    extensions,
  });
  return cert.toString('pem');
}
