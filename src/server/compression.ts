import { constants, createGzip, gzipSync } from 'node:zlib';
import { header, type Req, type Res } from './http.js';

/** The reference compresses responses larger than this (spec 4.4, APIResponseCompression). */
export const COMPRESSION_THRESHOLD = 128 * 1024;

/** True when the client accepts gzip (and did not refuse it with q=0). */
export function acceptsGzip(req: Req): boolean {
  const v = header(req, 'accept-encoding');
  if (!v) return false;
  return v.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name !== 'gzip' && name !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

/** Gzips a whole body above the threshold; returns the bytes to send and sets the headers. */
export function maybeGzip(req: Req, res: Res, body: Buffer, enabled: boolean): Buffer {
  if (!enabled || body.length < COMPRESSION_THRESHOLD || !acceptsGzip(req)) return body;
  res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Vary', 'Accept-Encoding');
  return gzipSync(body, { level: constants.Z_BEST_SPEED });
}

/**
 * A writer for streamed bodies (large lists): holds back the first 128 KiB; a body that stays smaller goes
 * out as is, a larger one switches to a gzip stream (headers are still unsent at that point).
 */
export function gzipWhenLarge(req: Req, res: Res, enabled: boolean) {
  let held: Buffer[] = [];
  let size = 0;
  let gz: ReturnType<typeof createGzip> | undefined;
  const plain = !enabled || !acceptsGzip(req);
  return {
    /** Returns false when the caller should wait for 'drain' on the response. */
    write(chunk: Buffer): boolean {
      if (plain) return res.write(chunk);
      // Compressed output goes to the socket from the gzip stream's 'data' events; the socket's own
      // backpressure is what the caller waits on, so report it rather than the gzip buffer's.
      if (gz) {
        gz.write(chunk);
        return !res.writableNeedDrain;
      }
      held.push(chunk);
      size += chunk.length;
      if (size < COMPRESSION_THRESHOLD) return true;
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Vary', 'Accept-Encoding');
      gz = createGzip({ level: constants.Z_BEST_SPEED });
      gz.on('data', (c: Buffer) => res.write(c));
      gz.on('end', () => res.end());
      gz.write(Buffer.concat(held));
      held = [];
      return true;
    },
    end(chunk: Buffer): void {
      if (plain) return void res.end(chunk);
      if (gz) {
        gz.end(chunk);
        return;
      }
      res.end(Buffer.concat([...held, chunk]));
    },
  };
}
