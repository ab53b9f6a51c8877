/** PEM reading shared by the certificate and service account authenticators (spec 5.2, 5.4). */
import { X509Certificate } from 'node:crypto';
import { pemBlocks } from '../util/pem.js';

export { pemBlocks, type PemBlock } from '../util/pem.js';

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
