/**
 * Limits on the request line and headers. HTTP/1.1: 1 MiB in all (URL included), as the reference sets it.
 * HTTP/2: 128 KiB, because node's HTTP/2 library drops the whole connection when a header block needs more
 * than a few CONTINUATION frames (its flood protection), whatever the advertised limit; clients that honour
 * the advertised SETTINGS_MAX_HEADER_LIST_SIZE (Go's) refuse a larger request themselves with a clear error.
 * node's own defaults (16 KiB, 64 KiB) would refuse long label selectors real clients send, and answer
 * without a Status body (HTTP/1.1) or reset the stream (HTTP/2); past these limits both protocols answer
 * 431 with a Status that names the limit.
 */
import type { Http2SecureServer } from 'node:http2';
import type { Socket } from 'node:net';
import { StatusError } from '../errors/index.js';

export const MAX_HEADER_BYTES = 1024 * 1024;
export const MAX_H2_HEADER_BYTES = 128 * 1024;
/** Advertised a little above the checked limit, so a request just past it gets a 431 Status, not a reset. */
export const H2_MAX_HEADER_LIST_SIZE = MAX_H2_HEADER_BYTES + 4096;

export const headersTooLarge = (limit = MAX_HEADER_BYTES) =>
  new StatusError(431, 'RequestEntityTooLarge', `the request line and headers are too large: the limit is ${limit} bytes`);

/** Size of an HTTP/2 header list as RFC 9113 §6.5.2 counts it (name + value + 32 per field). */
export function headerListSize(rawHeaders: readonly string[]): number {
  let n = 0;
  for (const h of rawHeaders) n += h.length;
  return n + 16 * rawHeaders.length;
}

/** The raw HTTP/1.1 answer to a request node's parser refused, with a Status body. */
export function clientErrorResponse(code: string | undefined): Buffer {
  const e =
    code === 'HPE_HEADER_OVERFLOW'
      ? headersTooLarge()
      : code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new StatusError(408, 'Timeout', 'the request was not received in time')
        : new StatusError(400, 'BadRequest', `the request is not valid HTTP/1.1${code ? ` (${code})` : ''}`);
  const body = JSON.stringify(e.toStatus());
  const reason = e.code === 431 ? 'Request Header Fields Too Large' : e.code === 408 ? 'Request Timeout' : 'Bad Request';
  return Buffer.from(
    `HTTP/1.1 ${e.code} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Applies the HTTP/1.1 limit and answers parser errors with a Status (node's default sends bare text). */
export function limitHttp1Headers(server: Http2SecureServer): void {
  // The HTTP/1.1 fallback reads its limit from the server object, not from createSecureServer's options.
  (server as unknown as { maxHeaderSize: number }).maxHeaderSize = MAX_HEADER_BYTES;
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    // On a keep-alive connection earlier answers were written; only one whose headers went out blocks ours.
    const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    // Keep reading (and dropping) what the client still sends: closing a socket with unread input resets
    // the connection, and the client then loses the answer before it has read it.
    socket.on('data', () => undefined);
    socket.resume();
    socket.end(clientErrorResponse(err.code));
    // A client that does not read its answer is not waited for.
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}
