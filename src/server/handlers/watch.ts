import { encode, JSON_MEDIA, negotiate } from '../../encoding/index.js';
import { badRequest, notAcceptable } from '../../errors/index.js';
import type { GenericStore } from '../../registry/index.js';
import { watchObjects } from '../../registry/index.js';
import { header } from '../http.js';
import type { ResourceContext } from './resource.js';

/** The server's default watch length is randomized so that clients do not reconnect in one storm. */
const MIN_WATCH_SECONDS = 1800;

/** Streams watch events, one JSON document per line (spec 4.7). YAML is not a streaming format (406). */
export async function serveWatch(ctx: ResourceContext, store: GenericStore, namespace: string | undefined): Promise<void> {
  const accept = header(ctx.req, 'accept');
  let media: string;
  try {
    media = negotiate(accept, [JSON_MEDIA]).mediaType;
  } catch {
    throw notAcceptable('watch streams are served as application/json only; YAML is not a streaming format');
  }
  const q = ctx.query;
  const timeoutRaw = q.get('timeoutSeconds');
  if (timeoutRaw !== null && !/^\d+$/.test(timeoutRaw)) throw badRequest(`timeoutSeconds: Invalid value: "${timeoutRaw}"`);
  const seconds = timeoutRaw !== null ? Number(timeoutRaw) : MIN_WATCH_SECONDS * (1 + Math.random());
  const fieldSelector = q.get('fieldSelector') ?? '';
  const ac = new AbortController();
  const stop = () => ac.abort();
  const timer = setTimeout(stop, seconds * 1000);
  ctx.res.on('close', stop);
  ctx.shutdown.addEventListener('abort', stop, { once: true });
  try {
    const events = watchObjects(
      store.type,
      ctx.registry.backend,
      namespace,
      {
        labelSelector: q.get('labelSelector') ?? '',
        fieldSelector: ctx.info.name && !fieldSelector ? `metadata.name=${ctx.info.name}` : fieldSelector,
        ...(q.has('resourceVersion') ? { resourceVersion: q.get('resourceVersion') as string } : {}),
      },
      ac.signal,
    );
    // Validation errors (bad selectors) surface before the 200 is sent.
    const first = events.next();
    const firstResult = await Promise.race([first, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
    ctx.res.statusCode = 200;
    ctx.res.setHeader('Content-Type', media);
    ctx.res.setHeader('Cache-Control', 'no-cache, private');
    ctx.res.setHeader('Transfer-Encoding', 'chunked');
    const write = (e: unknown) => ctx.res.write(Buffer.concat([encode(e, media), Buffer.from('\n')]));
    let r = firstResult === 'pending' ? await first : firstResult;
    while (!r.done) {
      if (!write(r.value)) {
        // Backpressure: wait for the socket, but never past the end of the watch.
        await new Promise<void>((resolve) => {
          ctx.res.once('drain', () => resolve());
          ac.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
      if (ac.signal.aborted) break;
      r = await events.next();
    }
    await events.return(undefined);
  } finally {
    clearTimeout(timer);
    ctx.shutdown.removeEventListener('abort', stop);
    if (!ctx.res.writableEnded) ctx.res.end();
  }
}
