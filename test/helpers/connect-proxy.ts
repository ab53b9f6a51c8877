/**
 * A real HTTP CONNECT proxy for tests: listens on TCP, TLS (client certificate required) or a Unix socket,
 * opens one tunnel per CONNECT and records the authority each tunnel was asked for.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface ConnectProxy {
  /** Authorities (host:port) of the tunnels opened, in order. */
  tunnels: string[];
  /** `http://127.0.0.1:<port>`, `https://localhost:<port>` or the socket path. */
  address: string;
  /** Cuts every open tunnel; the proxy keeps listening. */
  cutTunnels(): void;
  close(): Promise<void>;
}

export type ProxyListen = { kind: 'tcp' } | { kind: 'tls'; cert: string; key: string; ca: string } | { kind: 'uds'; path: string };

/** `refuse`: answer 403 to every CONNECT instead of tunnelling (read at each CONNECT, so it may change). */
export async function startConnectProxy(listen: ProxyListen, opts: { refuse?: boolean } = {}): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Duplex>();
  const server =
    listen.kind === 'tls'
      ? https.createServer({ cert: listen.cert, key: listen.key, ca: listen.ca, requestCert: true, rejectUnauthorized: true })
      : http.createServer();
  server.on('request', (_req, res) => {
    res.writeHead(405);
    res.end();
  });
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (opts.refuse) return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const authority = req.url ?? '';
    tunnels.push(authority);
    const colon = authority.lastIndexOf(':');
    const host = authority.slice(0, colon).replace(/^\[|\]$/g, '');
    const upstream = net.connect({ host, port: Number(authority.slice(colon + 1)) }, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  if (listen.kind === 'uds') await new Promise<void>((resolve) => server.listen(listen.path, resolve));
  else await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = listen.kind === 'uds' ? 0 : (server.address() as net.AddressInfo).port;
  const address = listen.kind === 'uds' ? listen.path : listen.kind === 'tls' ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  return {
    tunnels,
    address,
    cutTunnels() {
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
