/**
 * The PEM payloads of a CertificateSigningRequest: `spec.request` (one CERTIFICATE REQUEST whose signature
 * must verify, as the reference's ParseCSR + CheckSignature) and `status.certificate` (CERTIFICATE blocks).
 * JSON carries both as base64 of the PEM text. Checks are synchronous (node:crypto) because validation is.
 */
import { createPublicKey, verify, X509Certificate } from 'node:crypto';
import { readDerElement, type DerElement } from '../../../util/der.js';

export interface PemBlock {
  type: string;
  headers: boolean;
  der: Buffer;
}

const BLOCK = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Every PEM block in `text`, in order. Text around the blocks is ignored, and so is a block whose body is
 * not padded base64, as Go's pem.Decode skips both (the reference's validators see only the blocks left).
 */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const body = m[2] ?? '';
    // Headers (`Proc-Type: ...`) come first and end at a blank line; base64 never has a ':'.
    const headers = (body.split(/\r?\n/)[0] ?? '').includes(':');
    const blank = body.search(/\r?\n\r?\n/);
    const b64 = (headers && blank >= 0 ? body.slice(blank) : body).replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length % 4 !== 0) continue;
    out.push({ type: m[1] ?? '', headers, der: Buffer.from(b64, 'base64') });
  }
  return out;
}

/** Decodes a JSON `[]byte` field; undefined when it is not base64. */
export function decodeBytes(v: string): Buffer | undefined {
  const compact = v.replace(/\s+/g, '');
  return BASE64.test(compact) && compact.length % 4 === 0 ? Buffer.from(compact, 'base64') : undefined;
}

/** The elements inside a constructed DER element. */
export function children(buf: Buffer, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let at = parent.content; at < parent.end; ) {
    const d = readDerElement(buf, at, parent.end);
    out.push(d);
    at = d.end;
  }
  return out;
}

/** An OBJECT IDENTIFIER element in dotted form. */
export function oid(buf: Buffer, d: DerElement): string {
  const bytes = buf.subarray(d.content, d.end);
  const first = bytes[0] ?? 0;
  const parts = [Math.floor(first / 40), first % 40];
  let v = 0;
  for (const b of bytes.subarray(1)) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

/** Signature algorithms by OID: the digest node:crypto verifies with (null for Ed25519) and the key family. */
const ALGORITHMS: Record<string, { hash: string | null; family: 'rsa' | 'ecdsa' | 'ed25519' }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', family: 'rsa' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', family: 'rsa' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', family: 'rsa' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', family: 'rsa' },
  '1.2.840.10045.4.1': { hash: 'sha1', family: 'ecdsa' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', family: 'ecdsa' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', family: 'ecdsa' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', family: 'ecdsa' },
  '1.3.101.112': { hash: null, family: 'ed25519' },
};

const FAILURE = { rsa: 'crypto/rsa: verification error', ecdsa: 'x509: ECDSA verification failure', ed25519: 'x509: Ed25519 verification failure' };

/**
 * Why `pem` is not a valid certificate request (first block CERTIFICATE REQUEST, well-formed, signed by
 * its own key), or undefined when it is.
 */
export function certificateRequestProblem(pem: string): string | undefined {
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const buf = block.der;
  let info: DerElement, algorithm: string, signature: Buffer, spki: Buffer;
  try {
    const top = readDerElement(buf, 0);
    const [infoDer, algDer, sigDer] = children(buf, top);
    if (top.tag !== 0x30 || !infoDer || !algDer || !sigDer || infoDer.tag !== 0x30 || sigDer.tag !== 0x03) throw new Error('shape');
    info = infoDer;
    const algOid = children(buf, algDer)[0];
    if (!algOid || algOid.tag !== 0x06) throw new Error('shape');
    algorithm = oid(buf, algOid);
    signature = buf.subarray(sigDer.content + 1, sigDer.end);
    const spkiDer = children(buf, info)[2];
    if (!spkiDer || spkiDer.tag !== 0x30) throw new Error('shape');
    spki = buf.subarray(spkiDer.start, spkiDer.end);
  } catch {
    return 'x509: malformed certificate request';
  }
  const alg = ALGORITHMS[algorithm];
  if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
  try {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    const ok = verify(alg.hash, buf.subarray(info.start, info.end), { key, dsaEncoding: 'der' }, signature);
    return ok ? undefined : FAILURE[alg.family];
  } catch {
    return FAILURE[alg.family];
  }
}

/** The reference's validateCertificate: one or more CERTIFICATE blocks without headers, each parsing. */
export function certificateChainProblem(pem: string): string | undefined {
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${b.type}"`;
    if (b.headers) return 'no PEM block headers are permitted';
    if (b.der.length === 0) return 'found CERTIFICATE PEM block containing 0 certificates';
    try {
      new X509Certificate(b.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}
