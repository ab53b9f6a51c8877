import { PROTOBUF_MEDIA_TYPE } from '../../api/naming.js';
import { encodeWatchEventProtobuf, JSON_MEDIA, type Representation } from '../../encoding/index.js';
import type { ApiObject } from '../../api/types.js';
import type { ResourceType } from '../../registry/index.js';
import { tableFor } from './table-output.js';
import { isMetadataRep, metadataWatchBytes, metadataWatchView, negotiateRead } from './metadata-output.js';
import { notAcceptable } from '../../errors/index.js';
import type { GenericStore } from '../../registry/index.js';
import { checkWatchRequest, watchFromCache, type WatchRequest } from '../../registry/index.js';
import { invalidParameter } from '../../registry/resource-version.js';
import { drained, header } from '../http.js';
import type { ResourceContext } from './resource.js';

const WATCH_OFFERS = [JSON_MEDIA, PROTOBUF_MEDIA_TYPE];
/** Custom resources have no protobuf form (spec 4.4). */
const CUSTOM_WATCH_OFFERS = [JSON_MEDIA];

function flag(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v === 'true' || v === '1' || v === '') return true;
  if (v === 'false' || v === '0') return false;
  throw invalidParameter(name, v, 'must be true or false');
}

/** Node's timers hold at most 2^31-1 ms (about 24.8 days); a longer one fires at once, with a warning. */
export const MAX_WATCH_TIMEOUT_MS = 2 ** 31 - 1;
const INT64_MAX = 9223372036854775807n;

/**
 * How long a watch stays open: `timeoutSeconds` when given and non-zero, else a random length between one and
 * two minimum request timeouts (so clients do not reconnect in one storm); capped to what a timer can hold.
 * Negative, fractional or non-numeric values (and any past int64, which the reference cannot parse) are 400.
 */
export function watchTimeoutMs(raw: string | null, minTimeoutSeconds: number, random: () => number = Math.random): number {
  if (raw !== null) {
    if (!/^\d+$/.test(raw)) throw invalidParameter('timeoutSeconds', raw, 'must be a non-negative integer');
    const digits = raw.replace(/^0+(?=\d)/, '');
    if (digits.length > 19 || (digits.length === 19 && BigInt(digits) > INT64_MAX)) {
      throw invalidParameter('timeoutSeconds', raw, `value out of range: must be at most ${INT64_MAX}`);
    }
  }
  const seconds = raw !== null && Number(raw) > 0 ? Number(raw) : minTimeoutSeconds * (1 + random());
  return Math.min(seconds * 1000, MAX_WATCH_TIMEOUT_MS);
}

/**
 * Streams watch events, one JSON document per line (spec 4.7), from the watch cache. YAML is not a
 * streaming format (406). The default length is randomized so that clients do not reconnect in one storm.
 */
export async function serveWatch(ctx: ResourceContext, store: GenericStore, namespace: string | undefined): Promise<void> {
  let media: string;
  let table: Representation | undefined;
  let metadata: Representation | undefined;
  try {
    const rep = negotiateRead(header(ctx.req, 'accept'), store.type.custom ? CUSTOM_WATCH_OFFERS : WATCH_OFFERS);
    media = rep.mediaType;
    if (isMetadataRep(rep)) metadata = rep;
    // Tables are JSON documents (spec 2.6): each event's object becomes a one-row Table.
    else if (rep.as) {
      table = rep;
      media = JSON_MEDIA;
    }
  } catch {
    throw notAcceptable('watch streams are served as application/json only; YAML is not a streaming format');
  }
  // Events of a metadata watch are each rendered once and shared by every watcher asking for the same form.
  const view = metadata ? metadataWatchView(metadata, media) : undefined;
  const q = ctx.query;
  const fieldSelector = q.get('fieldSelector') ?? '';
  const sendInitialEvents = flag(q, 'sendInitialEvents');
  const request: WatchRequest = {
    labelSelector: q.get('labelSelector') ?? '',
    fieldSelector: ctx.info.name && !fieldSelector ? `metadata.name=${ctx.info.name}` : fieldSelector,
    ...(q.has('resourceVersion') ? { resourceVersion: q.get('resourceVersion') as string } : {}),
    ...(q.get('resourceVersionMatch') ? { resourceVersionMatch: q.get('resourceVersionMatch') as string } : {}),
    allowWatchBookmarks: flag(q, 'allowWatchBookmarks') ?? false,
    ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
    watchListEnabled: ctx.features.enabled('WatchList'),
    timeoutMs: watchTimeoutMs(q.get('timeoutSeconds'), ctx.watch.minTimeoutSeconds),
    bookmarkIntervalMs: ctx.watch.bookmarkIntervalMs,
    maxQueue: ctx.watch.maxQueue,
    maxQueueBytes: ctx.watch.maxQueueBytes,
    // A reader this far behind is ended; if it is also not reading, what is still buffered for it is dropped.
    onOverflow: () => {
      overflowed = true;
      ac.abort();
    },
    ...(view ? { view } : {}),
  };
  checkWatchRequest(request);
  let overflowed = false;
  const ac = new AbortController();
  const stop = () => ac.abort();
  ctx.res.on('close', stop);
  ctx.shutdown.addEventListener('abort', stop, { once: true });
  let columnsSent = 0;
  // Found once per watch; each event then costs two field updates.
  const sent = ctx.metrics?.watchSeries(store.type.group, store.type.version, store.type.kind);
  const events = watchFromCache(ctx.registry.reader(store.type), namespace, request, ac.signal);
  try {
    sent?.watchers.inc();
    // Errors found before the first event (selectors, a too large resourceVersion) are still plain Statuses;
    // a watch with nothing to say yet must still send its headers, or clients wait for them.
    const first = events.next();
    const early = await Promise.race([first, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);
    ctx.res.statusCode = 200;
    ctx.res.setHeader('Content-Type', media === PROTOBUF_MEDIA_TYPE ? `${media};stream=watch` : media);
    ctx.res.setHeader('Cache-Control', 'no-cache, private');
    (ctx.res as { flushHeaders?: () => void }).flushHeaders?.();
    let r = early === 'pending' ? await first : early;
    while (!r.done) {
      // Protobuf watches re-encode each shared JSON line into the length-prefixed frame (spec 4.4).
      const bytes = metadata
        ? metadataWatchBytes(r.value, metadata, media)
        : table
          ? toTableLine(r.value, store.type, table, q, columnsSent++ === 0)
          : media === PROTOBUF_MEDIA_TYPE
            ? toProtobufFrame(r.value)
            : r.value;
      if (sent) {
        sent.events.inc();
        sent.sizes.observe(bytes.length);
      }
      if (!ctx.res.write(bytes) && !(await drained(ctx.res, ac.signal))) break;
      if (ac.signal.aborted) break;
      r = await events.next();
    }
  } finally {
    sent?.watchers.dec();
    await events.return(undefined);
    ctx.shutdown.removeEventListener('abort', stop);
    // Before the headers went out an error is still answered as a Status, by the chain.
    if (overflowed && ctx.res.writableNeedDrain) ctx.res.destroy?.();
    else if (ctx.res.headersSent && !ctx.res.writableEnded) ctx.res.end();
  }
}

function toProtobufFrame(line: Buffer): Buffer {
  const e = JSON.parse(line.toString('utf8')) as { type: string; object: Parameters<typeof encodeWatchEventProtobuf>[1] };
  return encodeWatchEventProtobuf(e.type, e.object);
}

/** A watch event whose object is rendered as a Table; column definitions go with the first event only. */
function toTableLine(line: Buffer, type: ResourceType, rep: Representation, q: URLSearchParams, first: boolean): Buffer {
  const e = JSON.parse(line.toString('utf8')) as { type: string; object: ApiObject };
  if (e.type === 'ERROR') return line;
  const rv = e.object.metadata?.resourceVersion;
  const objects = e.type === 'BOOKMARK' ? [] : [e.object];
  const t = tableFor(type, rep, objects, q, rv ? { resourceVersion: rv } : undefined) as { columnDefinitions?: unknown[] };
  if (!first) t.columnDefinitions = [];
  return Buffer.from(`${JSON.stringify({ type: e.type, object: t })}\n`);
}
