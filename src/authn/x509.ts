/**
 * Client certificates (spec 5.2, `--client-ca-file`): the subject common name is the user, each
 * organization a group.
 */
import { readFileSync } from 'node:fs';
import type { X509Certificate } from 'node:crypto';
import { unauthorized } from '../errors/index.js';
import { peerCertificateChain, subjectNames, verifyClientChain } from './client-cert.js';
import { parseCertificates } from './pem.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

export class X509Authenticator implements Authenticator {
  private readonly roots: readonly X509Certificate[];

  /** `clientCaPem`: one or more PEM CA certificates; none is a start-up error. */
  constructor(clientCaPem: string, source = 'client CA') {
    this.roots = parseCertificates(clientCaPem, source);
  }

  static fromFile(path: string): X509Authenticator {
    return new X509Authenticator(readFileSync(path, 'utf8'), path);
  }

  /**
   * No certificate: no opinion. A certificate that does not verify is a 401 rather than "no opinion":
   * the client meant to authenticate with it, and falling through to anonymous would hide the mistake.
   */
  authenticate(req: AuthRequest): UserInfo | undefined {
    let leaf: X509Certificate;
    try {
      const chain = peerCertificateChain(req.peerCertificate);
      if (chain.length === 0) return undefined;
      leaf = verifyClientChain(chain, this.roots);
    } catch (e) {
      throw unauthorized(`x509: ${(e as Error).message}`);
    }
    const { commonName, organizations } = subjectNames(leaf);
    // Like the reference: a valid certificate that names no user has no opinion (another method may know it).
    if (commonName === '') return undefined;
    return { username: commonName, groups: organizations };
  }
}
