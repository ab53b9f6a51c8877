/**
 * Calls a webhook backend configured by a kubeconfig (image policy, token review, access review): POSTs a
 * JSON body to the kubeconfig's server URL over kept-alive
 * connections, with its CA, client certificate and credentials, a deadline on the whole exchange and a
 * bound on the answer's size. A failure says whether trying again could help (the connection failed, the
 * deadline passed, or the backend answered 429 or 5xx).
 */
import http from 'node:http';
import https from 'node:https';
import { dialThrough, type Dialer } from './dialer.js';
import type { WebhookConnection } from './webhook-kubeconfig.js';
import { httpClientSpan } from './trace-hook.js';

/** The reference's default deadline for a webhook call. */
export const BACKEND_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export class BackendFailure extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

export interface WebhookBackend {
  /** The answer's body, or a BackendFailure. */
  post(body: string): Promise<string>;
  close(): void;
}

/** `dialer`: the egress selection's way to the backend (undefined: connect directly). */
export function webhookBackend(conn: WebhookConnection, timeoutMs = BACKEND_TIMEOUT_MS, dialer?: Dialer): WebhookBackend {
  const secure = conn.url.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        maxSockets: 64,
        ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
        ...(conn.cert !== undefined ? { cert: conn.cert, key: conn.key } : {}),
        ...(conn.insecureSkipVerify ? { rejectUnauthorized: false } : {}),
        ...(conn.serverName !== undefined ? { servername: conn.serverName } : {}),
      })
    : new http.Agent({ keepAlive: true, maxSockets: 64 });
  if (dialer) dialThrough(agent, dialer, secure);
  const url = conn.url.href;
  return {
    post(body: string): Promise<string> {
      // Within a traced request (token and access reviews): a client span, its traceparent sent along.
      const span = httpClientSpan('POST', conn.url);
      if (!span) return send(body);
      return send(body, span.traceparent).then(
        (answer) => (span.end(), answer),
        (e: unknown) => {
          span.fail((e as Error).message);
          span.end();
          throw e;
        },
      );
    },
    close() {
      agent.destroy();
    },
  };

  function send(body: string, traceparent?: string): Promise<string> {
      return new Promise<string>((resolve, reject) => {
        let settled = false;
        const fail = (why: string, retryable: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          req.destroy();
          reject(new BackendFailure(why, retryable));
        };
        const payload = Buffer.from(body, 'utf8');
        const headers: Record<string, string | number> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length };
        if (conn.authorization) headers.authorization = conn.authorization;
        if (traceparent) headers.traceparent = traceparent;
        const req = (secure ? https : http).request(conn.url, { method: 'POST', agent, headers });
        const timer = setTimeout(() => fail(`Post "${url}": context deadline exceeded`, true), timeoutMs);
        req.on('error', (e) => fail(`Post "${url}": ${e.message}`, true));
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER_BYTES) return fail(`the backend's answer is larger than ${MAX_ANSWER_BYTES} bytes`, false);
            chunks.push(c);
          });
          res.on('error', (e) => fail(`Post "${url}": ${e.message}`, true));
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            // The reference's wording for an answer outside 2xx.
            if (code < 200 || code >= 300) return fail(`Error contacting webhook: ${code}`, code === 429 || code >= 500);
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
        });
        req.end(payload);
      });
  }
}
