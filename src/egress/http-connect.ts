/**
 * A Dialer that reaches its targets through an HTTP CONNECT proxy (the egress selector's `HTTPConnect`
 * protocol): one tunnel per connection, the proxy itself reached over plain TCP, TLS with a client
 * certificate, or a Unix socket.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { Dialer } from '../util/dialer.js';

/** How the proxy is reached (files already read). */
export type ProxyEndpoint =
  | { kind: 'tcp'; host: string; port: number }
  | { kind: 'tls'; host: string; port: number; ca?: string; cert: string; key: string }
  | { kind: 'uds'; path: string };

/** A proxy that neither answers nor fails is given up after this long. */
const HANDSHAKE_TIMEOUT_MS = 30_000;
/** A proxy's answer head longer than this is refused. */
const MAX_HEAD_BYTES = 16 * 1024;

let dialers = 0;

export function httpConnectDialer(proxy: ProxyEndpoint, name: string): Dialer {
  const id = `egress-${name}-${++dialers}`;
  const where = proxy.kind === 'uds' ? `unix://${proxy.path}` : `${proxy.kind === 'tls' ? 'https' : 'http'}://${proxy.host}:${proxy.port}`;
  return {
    id,
    dial: (host, port) => tunnel(proxy, where, host, port),
  };
}

function open(proxy: ProxyEndpoint): net.Socket {
  switch (proxy.kind) {
    case 'tcp':
      return net.connect({ host: proxy.host, port: proxy.port });
    case 'tls':
      return tls.connect({
        host: proxy.host,
        port: proxy.port,
        ...(net.isIP(proxy.host) ? {} : { servername: proxy.host }),
        ...(proxy.ca !== undefined ? { ca: proxy.ca } : {}),
        cert: proxy.cert,
        key: proxy.key,
      });
    case 'uds':
      // A leading '@' names a Linux abstract socket, as Go spells it; node spells it with a NUL byte.
      return net.connect({ path: proxy.path.startsWith('@') ? `\0${proxy.path.slice(1)}` : proxy.path });
  }
}

function tunnel(proxy: ProxyEndpoint, where: string, host: string, port: number): Promise<Duplex> {
  const authority = `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const socket = open(proxy);
    let head = Buffer.alloc(0);
    const fail = (why: string) => {
      cleanup();
      socket.destroy();
      reject(new Error(`proxy ${where} while dialing ${authority}: ${why}`));
    };
    const onError = (e: Error) => fail(e.message);
    const onClose = () => fail('the proxy closed the connection');
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_HEAD_BYTES) fail('the proxy answer is too long');
        return;
      }
      const statusLine = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
      if (!m || m[1] !== '200') return fail(`the proxy answered ${JSON.stringify(statusLine)}`);
      cleanup();
      socket.pause(); // whoever takes the stream resumes it; nothing is read before then
      // Bytes after the answer's head already belong to the tunnelled stream.
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    const timer = setTimeout(() => fail('no answer to CONNECT in time'), HANDSHAKE_TIMEOUT_MS);
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off('data', onData);
    };
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.on('data', onData);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  });
}
