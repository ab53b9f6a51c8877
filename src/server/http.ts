import type { IncomingHttpHeaders } from 'node:http';
import { PROTOBUF_MEDIA_TYPE } from '../api/naming.js';
import { encode, JSON_MEDIA, negotiate, YAML_MEDIA } from '../encoding/index.js';
import { StatusError, tooLarge } from '../errors/index.js';

/** Largest accepted request body: 3 MiB, like the reference's default limit. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The part of a request the handlers use; satisfied by node's HTTP/1.1 request (whose body is read by
 * iterating it) and by the raw HTTP/2 stream adapter (which reads its body with `readAll`).
 */
export interface Req extends Partial<AsyncIterable<Buffer | string>> {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  /** Repeated header lines kept apart (as arrays); a name sent once may map to its one string. */
  headersDistinct?: Record<string, string | string[] | undefined>;
  socket: unknown;
  readAll?(limit: number, tooLarge: () => Error): Promise<Buffer>;
}

/** The part of a response the handlers use (HTTP/1.1 and HTTP/2 compat). */
export interface Res {
  statusCode: number;
  headersSent: boolean;
  writableEnded: boolean;
  writableNeedDrain?: boolean;
  /** Bytes accepted but not yet sent. */
  readonly writableLength?: number;
  /** Drops the response (and, for HTTP/1.1, its connection). */
  destroy?(): unknown;
  readonly destroyed?: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  getHeader(name: string): unknown;
  write(chunk: Buffer | string, cb?: (err?: Error | null) => void): boolean;
  end(chunk?: Buffer | string): unknown;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
}

/**
 * Resolves when the socket drains (true), or when the response closes or `signal` aborts (false: stop
 * writing); removes its listeners either way. A client that never reads is cut off by the stall guard,
 * which closes the response.
 */
export function drained(res: Res, signal?: AbortSignal): Promise<boolean> {
  if (res.destroyed || signal?.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const finish = (ok: boolean) => {
      res.removeListener('drain', onDrain);
      res.removeListener('close', onClose);
      signal?.removeEventListener('abort', onClose);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onClose = () => finish(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
    signal?.addEventListener('abort', onClose, { once: true });
  });
}

/** Reads the whole body, failing with 413 past the limit (before buffering more than it). */
export function readBody(req: Req, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(bodyTooLarge(limit));
  return req.readAll ? req.readAll(limit, () => bodyTooLarge(limit)) : readIterable(req as AsyncIterable<Buffer | string>, limit);
}

async function readIterable(req: AsyncIterable<Buffer | string>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(b);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

const bodyTooLarge = (limit: number) => tooLarge(`the request body is too large: the limit is ${limit} bytes`);

export function header(req: Req, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function sendBytes(res: Res, code: number, contentType: string, body: Buffer, headers: Record<string, string> = {}): void {
  res.statusCode = code;
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', body.length);
  for (const k in headers) res.setHeader(k, headers[k] as string);
  res.end(body);
}

export function sendJson(res: Res, code: number, value: unknown, headers: Record<string, string> = {}): void {
  sendBytes(res, code, 'application/json', Buffer.from(JSON.stringify(value)), headers);
}

export function sendText(res: Res, code: number, text: string): void {
  sendBytes(res, code, 'text/plain; charset=utf-8', Buffer.from(text), { 'X-Content-Type-Options': 'nosniff' });
}

const STATUS_OFFERS = [JSON_MEDIA, YAML_MEDIA, PROTOBUF_MEDIA_TYPE];

/**
 * The Status in the media type the client accepts, as the reference answers errors (a protobuf client
 * gets a protobuf Status); JSON when it accepts none of them or sent no Accept.
 */
export function sendStatusError(res: Res, e: StatusError, accept?: string): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  let media = JSON_MEDIA;
  if (accept && accept !== JSON_MEDIA) {
    try {
      media = negotiate(accept, STATUS_OFFERS).mediaType;
    } catch {
      // Nothing acceptable (the request may be failing for that very reason): JSON.
    }
  }
  if (media === JSON_MEDIA) return sendJson(res, e.code, e.toStatus(), e.headers ?? {});
  sendBytes(res, e.code, media, encode(e.toStatus(), media), e.headers ?? {});
}

/**
 * Writes a list without building it in memory: items are written in ~64 KiB chunks as they are produced,
 * waiting for the socket to drain, and the list metadata goes last (JSON key order is free).
 */
export async function streamList(
  res: Res,
  body: { kind: string; apiVersion: string; metadata: object; items: Iterable<Buffer> },
  headOnly = false,
  out: { write(b: Buffer): boolean; end(b: Buffer): void } = { write: (b) => res.write(b), end: (b) => void res.end(b) },
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json');
  if (headOnly) {
    res.end();
    return;
  }
  let chunk: Buffer[] = [Buffer.from(`{"kind":${JSON.stringify(body.kind)},"apiVersion":${JSON.stringify(body.apiVersion)},"items":[`)];
  let size = 0;
  let first = true;
  const comma = Buffer.from(',');
  for (const item of body.items) {
    if (!first) chunk.push(comma);
    first = false;
    chunk.push(item);
    size += item.length + 1;
    if (size >= 64 * 1024) {
      const ok = out.write(Buffer.concat(chunk));
      chunk = [];
      size = 0;
      if (!ok && !(await drained(res))) return;
      if (res.writableEnded) return;
    }
  }
  chunk.push(Buffer.from(`],"metadata":${JSON.stringify(body.metadata)}}`));
  out.end(Buffer.concat(chunk));
}
