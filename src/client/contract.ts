/**
 * The seam between the client's transport (./ REST, watch, informers) and where its credentials come from
 * (./config/: kubeconfig files, flags, exec credential plugins).
 */
import type { DirectHandler } from './direct-transport.js';

/** What one request authenticates with. A client certificate is per connection; a token per request. */
export interface Credentials {
  token?: string;
  certPem?: string;
  keyPem?: string;
}

/** Supplies credentials; `invalidate` after a 401 drops cached ones (an exec plugin then runs again, once). */
export interface CredentialSource {
  get(): Credentials | Promise<Credentials>;
  invalidate?(): void;
}

/** Everything needed to reach one server of this API family. */
export interface ClusterConnection {
  /** `https://host:port` (or `http://` for a plain-text server), optionally with a path prefix. */
  server: string;
  /** PEM bundle trusted for the server's certificate; the system roots when absent. */
  caPem?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  credentials: CredentialSource;
  /** Per request; 0 or absent = none (watches are never cut by it). */
  requestTimeoutMs?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
  /**
   * A server in this process: requests go straight into its filter chain (direct-transport.ts) rather than
   * over HTTPS to `server`, which then only names it. Authentication, authorization and admission still apply.
   */
  direct?: DirectHandler;
}
