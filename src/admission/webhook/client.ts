/**
 * POSTs an AdmissionReview over HTTPS: verified against the webhook's caBundle (or the system roots),
 * connections kept alive per client configuration, a deadline on the whole exchange and a bound on the
 * answer's size, so a hanging, slow or flooding webhook costs one failed call and nothing more.
 */
import https from 'node:https';
import { dialThrough, type Dialer } from '../../util/dialer.js';
import { DEADLINE_MESSAGE, H2Client } from '../../util/h2/client.js';
import { closeH2Sessions, h2Session } from './h2-pool.js';
import { httpClientSpan } from '../../util/trace-hook.js';

/** Larger answers are refused: no legitimate review answer comes near it. */
export const MAX_ANSWER_BYTES = 3 * 1024 * 1024;
/** Connections per pool: concurrent calls to one webhook beyond this wait for a free one. */
const MAX_SOCKETS = 64;
/** Connection pools kept at once; the least recently used one is closed past this. */
const MAX_AGENTS = 128;

export interface Target {
  /** Where to connect: host (or IP) and port. */
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** The TLS name the certificate must carry (the service DNS name, or the URL's host). */
  readonly serverName: string;
  readonly ca?: string;
  /** The connection pool this call belongs to. */
  readonly poolKey: string;
  /** The URL as messages show it (a service by its DNS name and port). */
  readonly url: string;
  /** The egress selection's way to the target (its id is part of poolKey); undefined connects directly. */
  readonly dialer?: Dialer;
}

/** Why a call failed, worded after the reference's `Post "<url>": <reason>`. */
export class CallFailed extends Error {}

const agents = new Map<string, https.Agent>();

function agentFor(t: Target): https.Agent {
  let a = agents.get(t.poolKey);
  if (a) {
    agents.delete(t.poolKey);
    agents.set(t.poolKey, a);
    return a;
  }
  // Every socket the pool opens is kept: under concurrent load a smaller free pool closes connections
  // between bursts and reopens them, and a TLS handshake costs more CPU than the call itself.
  a = new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, maxFreeSockets: MAX_SOCKETS, ca: t.ca, timeout: 60_000 });
  if (t.dialer) dialThrough(a, t.dialer, true);
  agents.set(t.poolKey, a);
  if (agents.size > MAX_AGENTS) {
    const [oldest, agent] = agents.entries().next().value as [string, https.Agent];
    agents.delete(oldest);
    agent.destroy();
  }
  return a;
}

/** Closes every kept connection (tests and shutdown). */
export function closeWebhookConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
  closeH2Sessions();
}

/**
 * The answer's body, or throws CallFailed. Over HTTP/2 when the webhook offers it (see h2-pool.ts), else
 * over the HTTP/1.1 keep-alive pool. The deadline covers connecting too. With a live HTTP/2 connection
 * nothing is awaited before the request is sent.
 */
export function postReview(t: Target, body: string, timeoutMs: number): Promise<string> {
  const session = h2Session(t, isIP(t.serverName), MAX_ANSWER_BYTES);
  if (session instanceof H2Client) return traced(t, (tp) => postH2(session, t, body, timeoutMs, tp));
  if (session === 'http/1.1') return traced(t, (tp) => postH1(t, body, timeoutMs, tp));
  return connectThenPost(session, t, body, timeoutMs);
}

async function connectThenPost(connecting: Promise<H2Client | undefined>, t: Target, body: string, timeoutMs: number): Promise<string> {
  const started = performance.now();
  let session: H2Client | undefined;
  try {
    session = await withDeadline(connecting, timeoutMs);
  } catch (e) {
    throw new CallFailed(`Post "${t.url}": ${(e as Error).message}`);
  }
  const left = Math.max(1, timeoutMs - (performance.now() - started));
  return traced(t, (tp) => (session ? postH2(session, t, body, left, tp) : postH1(t, body, left, tp)));
}

/** Within a traced request: a client span, and its traceparent sent to the webhook. */
async function traced(t: Target, post: (traceparent: string | undefined) => Promise<string>): Promise<string> {
  const span = httpClientSpan('POST', `https://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}${t.path}`);
  if (!span) return post(undefined);
  try {
    return await post(span.traceparent);
  } catch (e) {
    span.fail((e as Error).message);
    throw e;
  } finally {
    span.end();
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(DEADLINE_MESSAGE)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e as Error);
      },
    );
  });
}

async function postH2(session: H2Client, t: Target, body: string, timeoutMs: number, traceparent: string | undefined): Promise<string> {
  const payload = Buffer.from(body, 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': String(payload.length) };
  if (traceparent) headers.traceparent = traceparent;
  let answer;
  try {
    answer = await session.request('POST', t.path, headers, payload, timeoutMs);
  } catch (e) {
    throw new CallFailed(`Post "${t.url}": ${(e as Error).message}`);
  }
  const code = answer.status;
  if (code < 200 || code > 206) throw new CallFailed(`Post "${t.url}": the server answered ${code}: ${answer.body.toString('utf8').slice(0, 256)}`);
  return answer.body.toString('utf8');
}

/**
 * Reads an answer of at most MAX_ANSWER_BYTES from `source` (an HTTP/1.1 response);
 * at its end a 2xx answer's text goes to `done`, any other status to `fail`.
 */
function collectAnswer(source: NodeJS.EventEmitter, status: () => number, fail: (why: string) => void, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  source.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_ANSWER_BYTES) return fail(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(c);
  });
  source.on('error', (e: Error) => fail(e.message));
  source.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    const code = status();
    if (code < 200 || code > 206) return fail(`the server answered ${code}: ${text.slice(0, 256)}`);
    done(text);
  });
}

function postH1(t: Target, body: string, timeoutMs: number, traceparent?: string): Promise<string> {
  const url = t.url;
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new CallFailed(`Post "${url}": ${why}`));
    };
    const req = https.request({
      host: t.host,
      port: t.port,
      path: t.path,
      method: 'POST',
      // Node checks the certificate against `servername` when set, else against `host`: a service's
      // endpoint IP is dialled while its DNS name is verified, as the reference does.
      servername: isIP(t.serverName) ? undefined : t.serverName,
      agent: agentFor(t),
      headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(body, 'utf8'), ...(traceparent ? { traceparent } : {}) },
    });
    const timer = setTimeout(() => fail(DEADLINE_MESSAGE), timeoutMs);
    req.on('error', (e) => fail(e.message));
    req.on('response', (res) => {
      collectAnswer(res, () => res.statusCode ?? 0, fail, (text) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(text);
      });
    });
    // A string body goes out in one write with the request head (node joins them); a Buffer would be a
    // second write through TLS.
    req.end(body, 'utf8');
  });
}

function isIP(h: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(':');
}
