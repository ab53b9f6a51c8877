/**
 * Reads the subject organizations (O=) out of a CertificateSigningRequest's `spec.request`: the JSON
 * `[]byte` (base64) of a PEM `CERTIFICATE REQUEST` block, PKCS#10 in DER. Only the walk down to the subject
 * is done here; the request's signature and shape were checked by the type's validation before this runs.
 */

import { readDerElement, type DerElement } from '../../util/der.js';

/** id-at-organizationName (2.5.4.10) as DER content bytes. */
const ORGANIZATION_OID = Buffer.from([0x55, 0x04, 0x0a]);
const SEQUENCE = 0x30;
const SET = 0x31;
const OID = 0x06;

function childrenOf(der: Buffer, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let at = parent.content; at < parent.end; ) {
    const e = readDerElement(der, at, parent.end);
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
  const top = readDerElement(der, 0, der.length);
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
