/**
 * Reads the subject organizations (O=) out of a CertificateSigningRequest's `spec.request`: the JSON
 * `[]byte` (base64) of a PEM `CERTIFICATE REQUEST` block, PKCS#10 in DER. Only the walk down to the subject
 * is done here; the request's signature and shape were checked by the type's validation before this runs.
 */

/** id-at-organizationName (2.5.4.10) as DER content bytes. */
const ORGANIZATION_OID = Buffer.from([0x55, 0x04, 0x0a]);
const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;

interface Element {
  tag: number;
  content: number;
  end: number;
}

function element(der: Buffer, at: number, limit: number): Element {
  const tag = der[at];
  let len = der[at + 1];
  if (tag === undefined || len === undefined) throw new Error('truncated');
  let content = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error('bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (der[content + i] ?? NaN);
    content += n;
  }
  const end = content + len;
  if (!Number.isFinite(end) || end > limit) throw new Error('truncated');
  return { tag, content, end };
}

function childrenOf(der: Buffer, parent: Element): Element[] {
  const out: Element[] = [];
  for (let at = parent.content; at < parent.end; ) {
    const e = element(der, at, parent.end);
    out.push(e);
    at = e.end;
  }
  return out;
}

/** The DER of the first CERTIFICATE REQUEST block of a PEM text, or undefined. */
export function certificateRequestDer(pem: string): Buffer | undefined {
  const m = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]*?)-----END CERTIFICATE REQUEST-----/.exec(pem);
  if (!m) return undefined;
  const body = (m[1] ?? '').split('\n').filter((l) => !l.includes(':')).join('').replace(/\s+/g, '');
  return body === '' ? undefined : Buffer.from(body, 'base64');
}

/** The organizations of a PKCS#10 request's subject, in order; throws on a request it cannot walk. */
export function subjectOrganizations(der: Buffer): string[] {
  const top = element(der, 0, der.length);
  const info = childrenOf(der, top)[0];
  if (top.tag !== SEQUENCE || !info || info.tag !== SEQUENCE) throw new Error('not a certificate request');
  const subject = childrenOf(der, info)[1];
  if (!subject || subject.tag !== SEQUENCE) throw new Error('no subject');
  const out: string[] = [];
  for (const rdn of childrenOf(der, subject)) {
    if (rdn.tag !== SET) throw new Error('bad subject');
    for (const atv of childrenOf(der, rdn)) {
      const [type, value] = childrenOf(der, atv);
      if (!type || !value || type.tag !== OID) throw new Error('bad subject');
      if (der.subarray(type.content, type.end).equals(ORGANIZATION_OID)) out.push(der.subarray(value.content, value.end).toString('utf8'));
    }
  }
  return out;
}

/**
 * The organizations asked for by a CSR's `spec.request` (base64 of PEM), or undefined when it is not a
 * request that can be read.
 */
export function requestedOrganizations(request: unknown): string[] | undefined {
  if (typeof request !== 'string') return undefined;
  const der = certificateRequestDer(Buffer.from(request, 'base64').toString('latin1'));
  if (!der) return undefined;
  try {
    return subjectOrganizations(der);
  } catch {
    return undefined;
  }
}
