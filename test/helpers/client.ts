import { request as httpsRequest } from 'node:https';
import type { RunningServer } from '../../src/index.js';

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** The body as received (protobuf and other binary answers). */
  body: Buffer;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body bytes (sent as is). */
  raw?: Buffer | string;
  headers?: Record<string, string | string[]>;
  token?: string | null;
  /** A client certificate (PEM) and key for TLS client authentication. */
  cert?: { certPem: string; keyPem: string };
}

/** A minimal HTTPS client for integration tests: real TLS to the server's CA, bearer token auth. */
export function client(server: Pick<RunningServer, 'url' | 'caCertPem' | 'adminToken'>) {
  return function call(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string | string[]> = { ...(opts.headers ?? {}) };
    const token = opts.token === undefined ? server.adminToken : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: Buffer | undefined;
    if (opts.raw !== undefined) payload = Buffer.from(opts.raw);
    else if (opts.body !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.body));
      headers['content-type'] ??= 'application/json';
    }
    if (payload) headers['content-length'] = String(payload.length);
    return new Promise((resolve, reject) => {
      const tls = opts.cert ? { cert: opts.cert.certPem, key: opts.cert.keyPem } : {};
      const req = httpsRequest(new URL(path, server.url), { method, headers, ca: server.caCertPem, ...tls, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, body });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  };
}

/**
 * Opens a watch (on a connection of its own) and collects parsed events until `count` arrived (or the
 * timeout). `onOpen` runs when the response headers arrive, i.e. once the server is watching.
 */
export function watchEvents(
  server: Pick<RunningServer, 'url' | 'caCertPem' | 'adminToken'>,
  path: string,
  count: number,
  timeoutMs = 5000,
  onOpen?: () => void,
): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const events: any[] = [];
    let buf = '';
    const req = httpsRequest(new URL(path, server.url), { headers: { authorization: `Bearer ${server.adminToken}` }, ca: server.caCertPem, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        let t = '';
        res.on('data', (c) => (t += c));
        res.on('end', () => reject(new Error(`watch status ${res.statusCode}: ${t}`)));
        return;
      }
      onOpen?.();
      res.on('data', (c: Buffer) => {
        buf += c.toString('utf8');
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line));
          if (events.length >= count) {
            clearTimeout(timer);
            req.destroy();
            resolve(events);
            return;
          }
        }
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`watch timed out with ${events.length}/${count} events: ${JSON.stringify(events.map((e) => e.type))}`));
    }, timeoutMs);
    req.on('error', (e) => {
      if (events.length < count) reject(e);
    });
    req.end();
  });
}
