/** What counts as "credentials were presented", shared by the anonymous authenticator and the union. */
import { unauthorized } from '../errors/index.js';
import type { AuthRequest } from './types.js';

/**
 * The trimmed Authorization header, or undefined when absent or blank. Several Authorization headers are
 * ambiguous (which one would the client mean?), so they are rejected rather than one being picked.
 */
export function authorizationHeader(headers: AuthRequest['headers']): string | undefined {
  let raw = headers.authorization;
  if (raw === undefined) {
    // Node lowercases header names; other callers (tests, http2 adapters) may not.
    for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'authorization') raw = v;
  }
  if (Array.isArray(raw)) {
    const present = raw.filter((v) => v.trim() !== '');
    if (present.length > 1) throw unauthorized();
    raw = present[0];
  }
  const value = raw?.trim();
  return value === '' ? undefined : value;
}

/** True when the request carries an Authorization header or a client certificate. */
export function hasCredentials(req: AuthRequest): boolean {
  if (hasPeerCertificate(req.peerCertificate)) return true;
  try {
    return authorizationHeader(req.headers) !== undefined;
  } catch {
    return true; // several Authorization headers are still credentials, just unusable ones
  }
}

/** tls `getPeerCertificate()` returns `{}` when the client sent none; empty buffers and lists mean none too. */
function hasPeerCertificate(cert: unknown): boolean {
  if (cert === undefined || cert === null) return false;
  if (ArrayBuffer.isView(cert)) return cert.byteLength > 0;
  if (cert instanceof ArrayBuffer) return cert.byteLength > 0;
  if (Array.isArray(cert)) return cert.length > 0;
  if (typeof cert === 'object') return Object.keys(cert).length > 0;
  return true;
}
