/**
 * A small HTTPS client the test kit uses to talk to its own server (fixtures, CRD waits): real requests
 * through the whole filter chain, on kept-alive connections so that a fixture load is not one TLS
 * handshake per document.
 */
import { Agent, request } from 'node:https';

export interface AdminResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export class AdminClient {
  private readonly agent: Agent;

  constructor(
    private readonly url: string,
    caCertPem: string,
    private readonly token: string,
  ) {
    this.agent = new Agent({ keepAlive: true, ca: caCertPem, maxSockets: 8 });
  }

  call(method: string, path: string, body?: { text: string; contentType: string }): Promise<AdminResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    const payload = body === undefined ? undefined : Buffer.from(body.text);
    if (body && payload) {
      headers['content-type'] = body.contentType;
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The message of a Status body, else the raw text (what an error should show the test author). */
export function statusMessage(r: AdminResponse): string {
  const m = (r.json as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : r.text.slice(0, 500);
}
