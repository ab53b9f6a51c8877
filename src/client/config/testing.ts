/**
 * A connection to a server started in the same process (tests): its URL, its CA and its admin token.
 * Takes the fields of `startServer()`'s result by shape, since the client layer may not import the server.
 */
import type { ClusterConnection } from '../contract.js';

export interface StartedServerFacts {
  url: string;
  caCertPem: string;
  adminToken: string;
}

export function connectionForServer(server: StartedServerFacts, extra: Partial<ClusterConnection> = {}): ClusterConnection {
  const credentials = { token: server.adminToken };
  return { server: server.url, caPem: server.caCertPem, credentials: { get: () => credentials }, ...extra };
}
