/**
 * Authenticating proxy (spec 5.1 item 2 and 5): a front proxy authenticates the user by any means and
 * passes the identity in headers. The headers are believed only from a caller holding a client
 * certificate of the proxy CA (and, when configured, one of the allowed names); anyone else could set them.
 */
import type { X509Certificate } from 'node:crypto';
import { peerCertificateChain, subjectNames, verifyClientChain } from './client-cert.js';
import { parseCertificates } from './pem.js';
import type { AuthRequest, Authenticator, UserInfo } from './types.js';

export interface RequestHeaderOptions {
  /** PEM CA certificate(s) that sign the proxy's client certificate (`--requestheader-client-ca-file`). */
  clientCA: string;
  /** Common names the proxy certificate may have; empty allows any certificate of the CA. */
  allowedNames?: string[];
  usernameHeaders?: string[];
  groupHeaders?: string[];
  extraHeaderPrefixes?: string[];
}

export class RequestHeaderAuthenticator implements Authenticator {
  private readonly roots: readonly X509Certificate[];
  private readonly allowedNames: ReadonlySet<string>;
  private readonly usernameHeaders: readonly string[];
  private readonly groupHeaders: readonly string[];
  private readonly extraPrefixes: readonly string[];

  constructor(options: RequestHeaderOptions) {
    this.roots = parseCertificates(options.clientCA, 'request header client CA');
    this.allowedNames = new Set(options.allowedNames ?? []);
    // Header names compare case-insensitively; node hands them over lowercased.
    const names = (v: string[] | undefined, dflt: string[]) => (v ?? dflt).map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
    this.usernameHeaders = names(options.usernameHeaders, ['X-Remote-User']);
    this.groupHeaders = names(options.groupHeaders, ['X-Remote-Group']);
    this.extraPrefixes = names(options.extraHeaderPrefixes, ['X-Remote-Extra-']);
    if (this.usernameHeaders.length === 0) throw new Error('request header authentication needs at least one username header');
  }

  /**
   * No opinion unless a trusted proxy sent a username: untrusted callers' identity headers are ignored
   * (their certificate, if any, is judged by the x509 authenticator on its own).
   */
  authenticate(req: AuthRequest): UserInfo | undefined {
    if (!this.trustedProxy(req.peerCertificate)) return undefined;
    const headers = headerValues(req.headers);

    let username: string | undefined;
    for (const h of this.usernameHeaders) {
      const first = headers.get(h)?.[0];
      if (first) {
        username = first;
        break;
      }
    }
    if (username === undefined) return undefined;

    // Each header occurrence is one group: splitting on commas would break group names that hold one.
    const groups = this.groupHeaders.flatMap((h) => headers.get(h) ?? []);
    const extra: Record<string, string[]> = {};
    for (const [name, values] of headers) {
      const prefix = this.extraPrefixes.find((p) => name.startsWith(p));
      if (prefix === undefined || values.length === 0) continue;
      const key = unescapeExtraKey(name.slice(prefix.length));
      if (key === '') continue;
      (extra[key] ??= []).push(...values);
    }
    const user: UserInfo = { username, groups };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return user;
  }

  private trustedProxy(peer: unknown): boolean {
    try {
      const chain = peerCertificateChain(peer);
      if (chain.length === 0) return false;
      const leaf = verifyClientChain(chain, this.roots);
      return this.allowedNames.size === 0 || this.allowedNames.has(subjectNames(leaf).commonName);
    } catch {
      return false;
    }
  }
}

/**
 * Lowercased header name → its non-empty values. A string is one value, a list one value per header line
 * (pass node's `headersDistinct` to keep repeated headers apart: `headers` joins them with ", ").
 */
function headerValues(headers: AuthRequest['headers']): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v) => v !== '');
    const key = name.toLowerCase();
    out.set(key, [...(out.get(key) ?? []), ...values]);
  }
  return out;
}

/**
 * Header names cannot carry every character an extra key may hold (`/`, upper case), so proxies
 * percent-encode them; like the reference, a key that does not decode is kept as sent.
 */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
