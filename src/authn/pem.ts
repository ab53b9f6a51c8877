/** PEM reading shared by the certificate and service account authenticators (spec 5.2, 5.4). */
import { X509Certificate } from 'node:crypto';

export interface PemBlock {
  /** The word(s) between BEGIN and END, e.g. `CERTIFICATE`, `EC PRIVATE KEY`. */
  label: string;
  /** The whole block, headers included, as node:crypto wants it. */
  text: string;
}

/** Every `-----BEGIN x-----` … `-----END x-----` block in order; text between blocks (comments) is ignored. */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g)) {
    out.push({ label: m[1]!, text: `${m[0]}\n` });
  }
  return out;
}

/**
 * The certificates of a CA bundle. A bundle without any certificate is a configuration error, reported at
 * start-up: silently trusting nothing would make every client certificate fail with no hint why.
 */
export function parseCertificates(pem: string, source = 'CA bundle'): X509Certificate[] {
  const certs: X509Certificate[] = [];
  for (const block of pemBlocks(pem)) {
    if (block.label !== 'CERTIFICATE') continue;
    try {
      certs.push(new X509Certificate(block.text));
    } catch (e) {
      throw new Error(`${source}: unreadable certificate #${certs.length + 1}: ${(e as Error).message}`);
    }
  }
  if (certs.length === 0) throw new Error(`${source}: no PEM certificate found`);
  return certs;
}
