/**
 * A real HTTPS admission webhook for tests: a CA and serving certificate generated in a temporary
 * directory, a handler that sees each AdmissionReview and answers it (or misbehaves on purpose).
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCerts } from '../../src/server/tls.js';

export interface Review {
  apiVersion: string;
  kind: string;
  request: Record<string, any>;
}

/** What a handler does with one call: an answer object, raw bytes, or a hang until the socket closes. */
export type Reply = { response: Record<string, unknown>; apiVersion?: string } | { raw: string; status?: number } | { hang: true };

export interface WebhookServer {
  url: string;
  port: number;
  caBundle: string;
  caPem: string;
  reviews: Review[];
  /** Paths the calls came to (with their query). */
  paths: string[];
  /** Request headers of each call, in the same order. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export const allow = (review: Review, extra: Record<string, unknown> = {}): Reply => ({ response: { uid: review.request.uid, allowed: true, ...extra } });
export const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

export async function startWebhookServer(handler: (review: Review, path: string) => Reply | Promise<Reply>, hosts: string[] = []): Promise<WebhookServer> {
  const dir = await mkdtemp(join(tmpdir(), 'orch-webhook-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1', 'localhost', ...hosts] });
  const reviews: Review[] = [];
  const paths: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      reviews.push(review);
      paths.push(req.url ?? '');
      headers.push(req.headers);
      const reply = await handler(review, req.url ?? '');
      if ('hang' in reply) return;
      if ('raw' in reply) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
        return res.end(reply.raw);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: reply.apiVersion ?? review.apiVersion, kind: 'AdmissionReview', response: reply.response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caPem: certs.caCertPem,
    caBundle: Buffer.from(certs.caCertPem).toString('base64'),
    reviews,
    paths,
    headers,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
