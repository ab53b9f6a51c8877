/**
 * A way to open a TCP stream to host:port other than connecting directly: the egress selector's proxies
 * (src/egress/). Clients take an optional Dialer; without one they connect as usual and pay nothing.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';

export interface Dialer {
  /** Distinguishes connection pools: calls through different dialers never share a connection. */
  readonly id: string;
  /** A stream that reaches host:port (plain bytes; the caller adds TLS on top when it needs it). */
  dial(host: string, port: number): Promise<Duplex>;
}

type Callback = (err: Error | null, socket?: Duplex) => void;
type AgentWithDial = { createConnection(options: Record<string, unknown>, cb: Callback): undefined };

/**
 * Makes an HTTP or HTTPS agent open its connections through `dialer`. Node's agents accept a
 * createConnection that answers through the callback, so the proxy handshake can finish first; the TLS
 * options the agent computed (CA, client certificate, server name) then apply to the tunnelled stream.
 */
export function dialThrough<A extends http.Agent>(agent: A, dialer: Dialer, secure: boolean): A {
  (agent as unknown as AgentWithDial).createConnection = (options, cb) => {
    const host = String(options.host ?? 'localhost');
    const port = Number(options.port ?? (secure ? 443 : 80));
    dialer.dial(host, port).then(
      (stream) => {
        if (!secure) return cb(null, stream);
        const servername = typeof options.servername === 'string' && options.servername !== '' ? options.servername : isIP(host) ? undefined : host;
        cb(null, tls.connect({ ...(options as tls.ConnectionOptions), socket: stream, ...(servername ? { servername } : {}) }));
      },
      (e: unknown) => cb(e as Error),
    );
    return undefined;
  };
  return agent;
}

function isIP(h: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(':');
}
