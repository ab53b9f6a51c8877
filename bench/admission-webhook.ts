/**
 * The no-op admission webhook of `npm run bench -- admission`, run as a child process of the benchmark so it
 * neither shares the load generator's event loop nor hides its CPU in the benchmark's: the parent asks it
 * over IPC for its own CPU time and call counts around each phase.
 *
 * HTTPS offering HTTP/2 and HTTP/1.1 by ALPN, as webhook servers written with Go's standard library do (the
 * server's webhook client takes HTTP/2 when offered), a certificate generated at start for 127.0.0.1, and an `allowed: true` AdmissionReview v1 answer built from a template: only the uid changes.
 */
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMISSION_GROUP } from '../src/api/naming.js';
import { ensureServingCerts } from '../src/server/tls.js';

/** The argument the benchmark starts this file with. */
export const SERVE_FLAG = '--serve-noop-webhook';

/** Messages between the benchmark and this child. */
export type ToWebhook = { type: 'stats' } | { type: 'stop' };
export type FromWebhook =
  | { type: 'ready'; url: string; caBundle: string }
  | { type: 'stats'; cpuMicros: number; calls: Record<string, number>; connections: number };

const ANSWER_HEAD = `{"apiVersion":"${ADMISSION_GROUP}/v1","kind":"AdmissionReview","response":{"uid":`;
const ANSWER_TAIL = ',"allowed":true}}';
// The server writes `request.uid` first; the prefix check keeps the shortcut honest and falls back to a full parse.
const UID_PREFIX = `{"kind":"AdmissionReview","apiVersion":"${ADMISSION_GROUP}/v1","request":{"uid":"`;

/** The review's request uid, read without decoding the whole review when the server's layout allows it. */
export function reviewUid(body: string): string {
  if (body.startsWith(UID_PREFIX)) {
    const end = body.indexOf('"', UID_PREFIX.length);
    const uid = body.slice(UID_PREFIX.length, end);
    if (end > 0 && !uid.includes('\\')) return uid;
  }
  const uid = (JSON.parse(body) as { request?: { uid?: unknown } }).request?.uid;
  if (typeof uid !== 'string') throw new Error('the review has no request.uid');
  return uid;
}

export function allowAnswer(uid: string): string {
  return ANSWER_HEAD + JSON.stringify(uid) + ANSWER_TAIL;
}

async function serve(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-webhook-'));
  const certs = await ensureServingCerts(dir, { hosts: ['127.0.0.1'] });
  const calls: Record<string, number> = {};
  const server = http2.createSecureServer({ cert: certs.certPem, key: certs.keyPem, allowHTTP1: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?', 1)[0]!;
      calls[path] = (calls[path] ?? 0) + 1;
      let answer: string;
      try {
        answer = allowAnswer(reviewUid((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end((e as Error).message);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  // TLS connections accepted: a client that does not keep its connections pays a handshake per call.
  let connections = 0;
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const send = (m: FromWebhook) => process.send!(m);
  process.on('message', (m: ToWebhook) => {
    if (m.type === 'stats') {
      const u = process.cpuUsage();
      send({ type: 'stats', cpuMicros: u.user + u.system, calls: { ...calls }, connections });
    } else if (m.type === 'stop') {
      for (const socket of sockets) socket.destroy();
      server.close(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  // The benchmark gone (crashed or killed): do not linger.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', url: `https://127.0.0.1:${port}`, caBundle: Buffer.from(certs.caCertPem).toString('base64') });
}

// Only as the benchmark's child (its tests import the helpers above).
if (process.argv.includes(SERVE_FLAG) && process.send) await serve();
