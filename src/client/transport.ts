/**
 * How the client's requests reach a server. `Transport` owns what every transport does the same way (the
 * 401 retry, JSON answers, Status errors); `Http2Transport` speaks HTTP/2 over TLS to any server of this
 * family, and `DirectTransport` (direct-transport.ts) calls a filter chain in the same process.
 */
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { Readable } from 'node:stream';
import type { ClusterConnection, Credentials } from './contract.js';
import { statusErrorFrom } from './status-error.js';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestSpec {
  method: string;
  /** Absolute API path (`/api/v1/...`); the server URL's path prefix is put in front. */
  path: string;
  query?: Query;
  /** A Buffer or string goes as is; anything else is sent as JSON. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  headers?: OutgoingHttpHeaders;
  signal?: AbortSignal;
  /** Overrides the connection's request timeout; 0 = none. */
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OpenStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The response body as it arrives; destroying it ends the request (a watch stops). */
  stream: Readable;
}

/** A request that got no complete answer in time (client side; the server may still act on it). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
}

export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) if (v !== undefined) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/**
 * What every transport shares: a 401 drops cached credentials and the request is tried once more; a non-2xx
 * answer becomes the StatusError its body carries.
 */
export abstract class Transport {
  constructor(readonly connection: ClusterConnection) {}

  /** One request with its whole body; a 401 drops cached credentials and tries once more. */
  async request(spec: RequestSpec): Promise<RawResponse> {
    const first = await this.requestOnce(spec);
    if (first.status !== 401 || !this.connection.credentials.invalidate) return first;
    this.connection.credentials.invalidate();
    return this.requestOnce(spec);
  }

  /** A request whose 2xx JSON answer is returned parsed; anything else becomes a StatusError. */
  async json<T>(spec: RequestSpec): Promise<T> {
    const res = await this.request({ accept: 'application/json', ...spec });
    if (res.status < 200 || res.status > 299) throw statusErrorFrom(res.status, res.body);
    return (res.body.length ? JSON.parse(res.body.toString('utf8')) : {}) as T;
  }

  /** Opens a long-running stream (watch); a non-2xx answer is read whole and thrown as a StatusError. */
  async open(spec: RequestSpec): Promise<OpenStream> {
    let attempt = await this.openOnce(spec);
    if (attempt.status === 401 && this.connection.credentials.invalidate) {
      attempt.stream.destroy();
      this.connection.credentials.invalidate();
      attempt = await this.openOnce(spec);
    }
    if (attempt.status >= 200 && attempt.status <= 299) return attempt;
    const body = await readAll(attempt.stream);
    throw statusErrorFrom(attempt.status, body);
  }

  /** Releases what the transport holds; requests under way finish first. */
  abstract close(): void;

  protected abstract requestOnce(spec: RequestSpec): Promise<RawResponse>;
  protected abstract openOnce(spec: RequestSpec): Promise<OpenStream>;
}

/** The request headers every transport sends, and the body as bytes. */
export function outgoing(spec: RequestSpec, connection: ClusterConnection, creds: Credentials): { headers: OutgoingHttpHeaders; payload: Buffer | undefined } {
  const headers: OutgoingHttpHeaders = { ...spec.headers, accept: spec.accept ?? 'application/json' };
  if (connection.userAgent) headers['user-agent'] = connection.userAgent;
  if (creds.token) headers.authorization = `Bearer ${creds.token}`;
  let payload: Buffer | undefined;
  if (spec.body !== undefined) {
    payload = Buffer.isBuffer(spec.body) ? spec.body : Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));
    headers['content-type'] = spec.contentType ?? 'application/json';
  }
  return { headers, payload };
}

interface Session {
  h2: ClientHttp2Session;
  certKey: string;
  active: number;
}

/**
 * HTTP/2 transport: one session per client shared by every request and watch, opened again when the server
 * goes away or the client certificate changes. The server of this family speaks TLS only (HTTP/2 by ALPN, no
 * plain-text port), so `http://` servers are refused rather than half supported.
 */
export class Http2Transport extends Transport {
  private readonly origin: string;
  private readonly prefix: string;
  private session: Session | undefined;
  /** Sessions opened so far (tests check reuse with it). */
  sessionsOpened = 0;
  private closed = false;

  constructor(connection: ClusterConnection) {
    super(connection);
    const url = new URL(connection.server);
    if (url.protocol !== 'https:') {
      throw new Error(`server ${connection.server}: only https:// servers are supported (the server of this API family serves TLS only)`);
    }
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
  }

  /** Closes the session; requests under way finish first. */
  close(): void {
    this.closed = true;
    this.session?.h2.close();
    this.session = undefined;
  }

  protected async requestOnce(spec: RequestSpec): Promise<RawResponse> {
    const timeoutMs = spec.timeoutMs ?? this.connection.requestTimeoutMs ?? 0;
    const { stream, status, headers } = await this.openOnce(spec, timeoutMs);
    return { status, headers, body: await readAll(stream) };
  }

  protected async openOnce(spec: RequestSpec, timeoutMs = 0): Promise<OpenStream> {
    if (this.closed) throw new Error('client transport is closed');
    spec.signal?.throwIfAborted();
    const creds = await this.connection.credentials.get();
    const session = this.sessionFor(creds);
    const { headers, payload } = outgoing(spec, this.connection, creds);
    headers[':method'] = spec.method;
    headers[':path'] = `${this.prefix}${spec.path}${queryString(spec.query)}`;
    session.active++;
    if (session.active === 1) session.h2.ref();
    const stream = session.h2.request(headers, { endStream: payload === undefined, signal: spec.signal });
    stream.once('close', () => {
      session.active--;
      if (session.active === 0) session.h2.unref();
    });
    if (payload) stream.end(payload);
    return new Promise<OpenStream>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          stream.close(constants.NGHTTP2_CANCEL);
          reject(new RequestTimeoutError(`${spec.method} ${spec.path}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        // The timer covers the body too: it is cleared when the stream ends.
        stream.once('close', () => clearTimeout(timer));
      }
      stream.once('response', (h) => resolve({ status: Number(h[':status']), headers: h, stream }));
      stream.once('error', (e) => {
        if (timer) clearTimeout(timer);
        reject(e);
      });
      // Closed before any answer (reset, session gone): never leave the caller waiting.
      stream.once('close', () => reject(new Error(`${spec.method} ${spec.path}: stream closed before a response (code ${stream.rstCode})`)));
    });
  }

  private sessionFor(creds: Credentials): Session {
    const certKey = creds.certPem ? `${creds.certPem}\n${creds.keyPem ?? ''}` : '';
    const current = this.session;
    if (current && !current.h2.closed && !current.h2.destroyed && current.certKey === certKey) return current;
    // A changed client certificate needs a new TLS handshake; the old session drains and closes.
    if (current && !current.h2.closed) current.h2.close();
    const c = this.connection;
    const h2 = connect(this.origin, {
      ...(c.caPem ? { ca: c.caPem } : {}),
      rejectUnauthorized: !c.insecureSkipTlsVerify,
      ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
      ...(creds.certPem ? { cert: creds.certPem, key: creds.keyPem } : {}),
    });
    const session: Session = { h2, certKey, active: 0 };
    this.sessionsOpened++;
    const forget = () => {
      if (this.session === session) this.session = undefined;
    };
    // After GOAWAY or an error no new stream may start on it: the next request opens another session.
    h2.on('goaway', forget);
    h2.on('close', forget);
    h2.on('error', forget);
    h2.unref();
    this.session = session;
    return session;
  }
}

/** Collects a stream's body (bounded by what the server sends: one response). */
export function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    stream.once('error', reject);
    // After 'end' this is a no-op; otherwise the body was cut off.
    stream.once('close', () => reject(new Error(`response body cut off${'rstCode' in stream ? ` (stream code ${String(stream.rstCode)})` : ''}`)));
  });
}
