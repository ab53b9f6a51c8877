/**
 * Client certificate chains (spec 5.2), shared by the x509 and authenticating-proxy authenticators.
 * The TLS server asks for a certificate but does not reject unknown ones (`rejectUnauthorized: false`),
 * because the two authenticators trust different CAs; so each verifies the chain itself, here.
 */
import { X509Certificate } from 'node:crypto';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
/** Leaf, a few intermediates, root: deeper chains are not seen in practice and bound the work per request. */
const MAX_CHAIN = 8;

/**
 * The DER certificates the client presented, leaf first; [] when it presented none. Accepts what
 * `tlsSocket.getPeerCertificate(true)` returns (`raw` plus an `issuerCertificate` chain whose root points
 * at itself), an `X509Certificate`, one DER buffer (several concatenated certificates allowed) or a list
 * of DER buffers. Throws on anything else non-empty: credentials that cannot be read are not "none".
 */
export function peerCertificateChain(peer: unknown): Buffer[] {
  if (peer === undefined || peer === null) return [];
  if (Array.isArray(peer)) return peer.flatMap((p) => (isBytes(p) ? splitDer(Buffer.from(p)) : peerCertificateChain(p)));
  if (isBytes(peer)) return splitDer(Buffer.from(peer));
  if (typeof peer !== 'object') throw new Error('unrecognized client certificate');
  if (Object.keys(peer).length === 0 && !(peer instanceof X509Certificate)) return []; // tls: `{}` means none
  const chain: Buffer[] = [];
  let cur: unknown = peer;
  while (cur !== null && typeof cur === 'object' && chain.length < MAX_CHAIN) {
    const raw = (cur as { raw?: unknown }).raw;
    if (!isBytes(raw)) throw new Error('client certificate without DER bytes');
    const der = Buffer.from(raw);
    if (chain.some((c) => c.equals(der))) break; // the root's issuerCertificate is itself
    chain.push(der);
    cur = (cur as { issuerCertificate?: unknown }).issuerCertificate;
  }
  return chain;
}

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

/** Splits concatenated DER SEQUENCEs by their length headers. */
function splitDer(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < buf.length) {
    if (buf[i] !== 0x30 || i + 2 > buf.length) throw new Error('client certificate is not DER');
    const first = buf[i + 1]!;
    let len = first;
    let header = 2;
    if (first & 0x80) {
      const n = first & 0x7f;
      if (n < 1 || n > 4 || i + 2 + n > buf.length) throw new Error('client certificate is not DER');
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + buf[i + 2 + k]!;
      header = 2 + n;
    }
    if (i + header + len > buf.length) throw new Error('client certificate is truncated');
    out.push(buf.subarray(i, i + header + len));
    i += header + len;
  }
  return out;
}

/**
 * Verifies a presented chain against trusted roots and returns the leaf; throws an Error saying why not.
 * Like the reference (Go's x509.Verify with ClientAuth usage): the path runs from the leaf through presented
 * intermediates (which must be CAs) to a root of the bundle; every certificate on it must be within its
 * validity dates and, when it restricts extended key usage, allow client authentication. Presented
 * certificates are never trusted on their own, only as links to a bundle root.
 */
export function verifyClientChain(chainDer: readonly Buffer[], roots: readonly X509Certificate[], now = Date.now()): X509Certificate {
  const [leafDer, ...rest] = chainDer;
  if (leafDer === undefined) throw new Error('no client certificate');
  const leaf = parse(leafDer);
  const pool = rest.slice(0, MAX_CHAIN).map(parse);
  checkUsable(leaf, now);

  const used = new Set<X509Certificate>();
  let cur = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const root = roots.find((r) => issuedBy(cur, r) && usable(r, now));
    if (root) return leaf;
    const next = pool.find((c) => !used.has(c) && c.ca && issuedBy(cur, c) && usable(c, now));
    if (!next) break;
    used.add(next);
    cur = next;
  }
  throw new Error('certificate signed by unknown authority');
}

function parse(der: Buffer): X509Certificate {
  try {
    return new X509Certificate(der);
  } catch {
    throw new Error('unreadable client certificate');
  }
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function usable(cert: X509Certificate, now: number): boolean {
  try {
    checkUsable(cert, now);
    return true;
  } catch {
    return false;
  }
}

/** Validity dates and extended key usage; the message names which check failed (for server logs). */
function checkUsable(cert: X509Certificate, now: number): void {
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  if (!(from <= now)) throw new Error(`certificate is not yet valid (valid from ${cert.validFrom})`);
  if (!(now <= to)) throw new Error(`certificate has expired (valid to ${cert.validTo})`);
  // Node 20 calls the extended key usage list `keyUsage`; later versions add `extKeyUsage`.
  const eku = (cert as { extKeyUsage?: string[] }).extKeyUsage ?? cert.keyUsage;
  if (eku !== undefined && !eku.includes(CLIENT_AUTH) && !eku.includes(ANY_EXTENDED_KEY_USAGE)) {
    throw new Error('certificate is not valid for client authentication');
  }
}

/**
 * Common name and organizations of the subject. Read from node's decoded name object rather than the
 * printed `subject` string: that one escapes `,`, `+`, newlines and more (RFC 2253 style), and a user or
 * group name may contain any of them. Several CNs: the last wins, as in Go's pkix.Name.
 */
export function subjectNames(cert: X509Certificate): { commonName: string; organizations: string[] } {
  const subject = cert.toLegacyObject().subject as unknown as Record<string, string | string[] | undefined>;
  const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  return { commonName: list(subject.CN).at(-1) ?? '', organizations: list(subject.O) };
}
