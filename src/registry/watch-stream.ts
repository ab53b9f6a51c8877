import { INITIAL_EVENTS_END_ANNOTATION } from '../api/naming.js';
import { apiVersionOf } from '../api/types.js';
import type { CacheEvent, CachedItem } from '../cacher/index.js';
import { badRequest, gone, internalError } from '../errors/index.js';
import { convertUnconverted, decodeUnconverted, objectJson } from './codec.js';
import type { ApiObject } from '../api/types.js';
import { StatusError } from '../errors/index.js';
import { collectionPrefix } from './keys.js';
import { makeFilter, type Filter } from './list-watch.js';
import type { ResourceReader } from './reader.js';
import { beyondAnyRevision, canonicalResourceVersion, parseResourceVersion } from './resource-version.js';
import { tooLargeRV } from './storage-errors.js';
import type { ResourceType } from './types.js';

export interface WatchRequest {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  /** The WatchList feature gate (alpha, off by default): required for sendInitialEvents. */
  watchListEnabled: boolean;
  timeoutMs: number;
  bookmarkIntervalMs: number;
  /** A watcher that falls this many events behind is ended (it re-watches from its last revision). */
  maxQueue: number;
  /** The same bound in bytes of queued events (default 64 MiB), so a stuck reader pins bounded memory. */
  maxQueueBytes?: number;
  /** Called when the watcher fell too far behind and was ended (its consumer may be stuck writing). */
  onOverflow?: () => void;
  /** Renders event lines in another form (e.g. metadata only); ignored for types converted by a call out. */
  view?: WatchView;
}

/**
 * Another rendering of watch events: `render` gets the event type and the object's JSON and returns the bytes
 * to send; they are made once per event and shared by every watcher with the same view `id`.
 */
export interface WatchView {
  id: string;
  render(kind: string, objectJson: Buffer): Buffer;
}

const DEFAULT_MAX_QUEUE_BYTES = 64 * 1024 * 1024;

type EventKind = 'ADDED' | 'MODIFIED' | 'DELETED';

/** Validates the watch parameters of spec 4.2 / 4.5; every invalid combination is a 400 that says why. */
export function checkWatchRequest(r: WatchRequest): void {
  if (r.sendInitialEvents !== undefined) {
    if (!r.watchListEnabled) {
      throw badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (r.sendInitialEvents && r.resourceVersionMatch !== 'NotOlderThan') {
      throw badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (r.sendInitialEvents && !r.allowWatchBookmarks) {
      throw badRequest('allowWatchBookmarks: Forbidden: sendInitialEvents requires allowWatchBookmarks=true');
    }
  } else if (r.resourceVersionMatch) {
    throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  if (r.resourceVersion) parseResourceVersion(r.resourceVersion);
}

/**
 * A watch served from the watch cache: each yielded Buffer is one JSON event line. Events are encoded once
 * per view and event type and the bytes are shared by every watcher (architecture rule 3).
 */
export async function* watchFromCache(
  reader: ResourceReader,
  namespace: string | undefined,
  r: WatchRequest,
  signal: AbortSignal,
): AsyncGenerator<Buffer> {
  checkWatchRequest(r);
  const t = reader.type;
  const filter = makeFilter(t, r.labelSelector, r.fieldSelector);
  const prefix = collectionPrefix(t.storageKey, t.namespaced ? namespace : undefined);
  const cacher = reader.cacher;
  const view = t.asyncConversion ? undefined : r.view;
  const rv = r.resourceVersion ?? '';
  const from = rv === '' ? 0 : parseResourceVersion(rv);
  const initial = r.sendInitialEvents === true || from === 0;
  await cacher.ready;
  if (rv === '') await reader.consistent();
  if (from !== 0 && r.sendInitialEvents) {
    const ok = !beyondAnyRevision(from) && (await cacher.waitFor(from, r.timeoutMs));
    if (!ok) throw tooLargeRV(canonicalResourceVersion(rv), cacher.revision);
  }

  // Live events wait in `queue`; the initial snapshot, and the history a resumed watch replays, are kept as
  // items and events and encoded as they are sent, so they neither count against the slow-reader bound nor
  // are encoded all at once. (A replay counted as backlog would end a watch resumed from far enough back
  // before it sent anything, and its client would resume from the same place again, for ever.)
  const queue: Buffer[] = [];
  let head = 0;
  let queuedBytes = 0;
  const maxQueueBytes = r.maxQueueBytes ?? DEFAULT_MAX_QUEUE_BYTES;
  const snapshot: CachedItem[] = [];
  let history: CacheEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const push = (b: Buffer) => {
    if (ended) return;
    if (queue.length - head >= r.maxQueue || queuedBytes + b.length > maxQueueBytes) {
      // Too slow: end the watch (the client re-watches from its last revision) and let go of what it pinned.
      ended = true;
      queue.length = 0;
      head = 0;
      queuedBytes = 0;
      r.onOverflow?.();
    } else {
      queue.push(b);
      queuedBytes += b.length;
    }
    wakeUp();
  };
  // Ending must wake the loop even with nothing queued (a quiet watch at its timeout).
  const finish = () => {
    ended = true;
    wakeUp();
  };
  const bookmark = (revision: number | string, endOfInitial = false) =>
    Buffer.from(
      `${JSON.stringify({
        type: 'BOOKMARK',
        object: {
          kind: t.kind,
          apiVersion: apiVersionOf(t.group, t.version),
          metadata: { resourceVersion: String(revision), ...(endOfInitial ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } : {}) },
        },
      })}\n`,
    );

  // Everything from here to `subscribe` runs in one tick: the snapshot and the live events meet exactly.
  let after = 0;
  if (initial) {
    after = cacher.revision;
    for (const item of cacher.range(prefix)) {
      if (reader.matches(item, filter)) snapshot.push(item);
    }
    if (r.sendInitialEvents) push(bookmark(after, true));
  } else {
    if (from < cacher.oldestResumable) {
      yield errorLine(from, cacher.oldestResumable);
      return;
    }
    after = from;
    for (const e of cacher.eventsSince(from) ?? []) if (e.revision > after && e.key.startsWith(prefix)) history.push(e);
    const last = history[history.length - 1];
    if (last) after = last.revision;
  }
  const unsubscribe = cacher.subscribe(onEvent, finish);

  function onEvent(e: CacheEvent): void {
    if (e.revision <= after || !e.key.startsWith(prefix)) return;
    if (e.item.unreadable) return void (push(unreadableLine(e.item)), finish());
    const kind = transition(reader, e, filter);
    if (kind) push(line(t, kind, e.item.value, e.revision, e, view));
  }

  /** The line of one replayed event: undefined when the selector hides it, an ERROR line when unreadable. */
  function replayed(e: CacheEvent): Buffer | undefined {
    if (e.item.unreadable) return unreadableLine(e.item);
    const kind = transition(reader, e, filter);
    return kind ? line(t, kind, e.item.value, e.revision, e, view) : undefined;
  }

  const timers: NodeJS.Timeout[] = [];
  const onAbort = wakeUp;
  signal.addEventListener('abort', onAbort, { once: true });
  // A watch from a future resourceVersion resumes from there, quoted as the client sent it (exact past 2^53).
  const resumeAt = () => (cacher.revision >= after ? cacher.revision : canonicalResourceVersion(rv));
  timers.push(
    setTimeout(() => {
      // Just before the server closes the watch, a bookmark tells the client where to resume.
      if (r.allowWatchBookmarks) push(bookmark(resumeAt()));
      finish();
    }, r.timeoutMs),
  );
  if (r.allowWatchBookmarks && r.bookmarkIntervalMs > 0) {
    timers.push(setInterval(() => push(bookmark(resumeAt())), r.bookmarkIntervalMs));
  }
  try {
    // A conversion that calls out: events are converted per watcher, a batch per call (see convertedEvents).
    if (t.asyncConversion) {
      const take = () => {
        // Replayed history first, a batch at a time (events the selector hides make no line); then what
        // queued up live.
        const batch: Buffer[] = [];
        while (history.length > 0 && batch.length === 0) {
          for (const e of history.splice(0, SNAPSHOT_BATCH)) {
            const b = replayed(e);
            if (b) batch.push(b);
            if (e.item.unreadable) {
              history = [];
              queue.length = 0;
              ended = true;
              break;
            }
          }
        }
        if (batch.length > 0) return batch;
        const pending = queue.slice(head).filter((b) => b.length > 0);
        queue.length = 0;
        head = 0;
        queuedBytes = 0;
        return pending;
      };
      return yield* convertedEvents(t, snapshot, take, () => ended, signal, () => new Promise<void>((resolve) => (wake = resolve)));
    }
    for (let i = 0; i < snapshot.length && !signal.aborted; i++) {
      const item = snapshot[i] as CachedItem;
      snapshot[i] = undefined as unknown as CachedItem;
      if (item.unreadable) return yield unreadableLine(item);
      yield line(t, 'ADDED', item.value, item.modRevision, undefined, view);
    }
    for (let i = 0; i < history.length && !signal.aborted; i++) {
      const e = history[i] as CacheEvent;
      history[i] = undefined as unknown as CacheEvent;
      const b = replayed(e);
      if (b) yield b;
      if (e.item.unreadable) return;
    }
    history = [];
    for (;;) {
      while (head < queue.length) {
        const b = queue[head] as Buffer;
        queue[head++] = EMPTY;
        queuedBytes -= b.length;
        if (b.length > 0) yield b;
      }
      if (head > 1024) {
        queue.splice(0, head);
        head = 0;
      }
      if (ended || signal.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    unsubscribe();
    for (const x of timers) clearTimeout(x);
    signal.removeEventListener('abort', onAbort);
  }
}

const EMPTY = Buffer.alloc(0);

/** How an event looks through a selector: objects entering or leaving it are ADDED or DELETED. */
function transition(reader: ResourceReader, e: CacheEvent, filter: Filter): EventKind | undefined {
  if (e.type === 'DELETE') return reader.matches(e.item, filter) ? 'DELETED' : undefined;
  const now = reader.matches(e.item, filter);
  const before = e.prev ? reader.matches(e.prev, filter) : false;
  if (now && before) return 'MODIFIED';
  if (now) return e.prev && filter.empty ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

/**
 * One event line, cached on the event per view and type so every watcher shares the bytes. A type converted
 * by a call out gets the stored form here (shared by all its views); convertedEvents converts it.
 */
function line(t: ResourceType, kind: EventKind, value: Uint8Array, revision: number, e: CacheEvent | undefined, view?: WatchView): Buffer {
  const base = t.asyncConversion ? `stored|${kind}` : `${t.group}/${t.version}/${t.plural}|${kind}`;
  const key = view ? `${base}|${view.id}` : base;
  const cached = e?.encoded?.get(key);
  if (cached) return cached;
  const object = t.asyncConversion ? Buffer.from(JSON.stringify(decodeUnconverted(value, revision))) : objectJson(t, value, revision);
  const b = view ? view.render(kind, object) : Buffer.concat([Buffer.from(`{"type":"${kind}","object":`), object, Buffer.from('}\n')]);
  if (e) (e.encoded ??= new Map()).set(key, b);
  return b;
}

/** Initial objects sent per conversion call. */
const SNAPSHOT_BATCH = 100;

/**
 * The watch loop of a type converted by a call out: the initial objects in batches, then whatever events
 * queued up since the last call, each batch in one conversion, order kept. A failed conversion ends the
 * watch with an ERROR event carrying its Status.
 */
async function* convertedEvents(
  t: ResourceType,
  snapshot: CachedItem[],
  take: () => Buffer[],
  ended: () => boolean,
  signal: AbortSignal,
  waitForMore: () => Promise<void>,
): AsyncGenerator<Buffer> {
  const send = async function* (lines: Buffer[]) {
    try {
      yield* await convertLines(t, lines);
      return true;
    } catch (e) {
      const status = (e instanceof StatusError ? e : internalError((e as Error).message)).toStatus();
      yield Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
      return false;
    }
  };
  for (let i = 0; i < snapshot.length && !signal.aborted; i += SNAPSHOT_BATCH) {
    const batch: Buffer[] = [];
    for (const item of snapshot.slice(i, i + SNAPSHOT_BATCH)) {
      if (item.unreadable) return yield unreadableLine(item);
      batch.push(line(t, 'ADDED', item.value, item.modRevision, undefined));
    }
    if (!(yield* send(batch))) return;
  }
  snapshot.length = 0;
  for (;;) {
    if (signal.aborted) return;
    // Everything queued since the last batch (events that came while it was converted and sent included).
    const batch = take();
    if (batch.length > 0) {
      if (!(yield* send(batch))) return;
      continue;
    }
    if (ended()) return;
    // Nothing pending, checked in this same tick: the next push wakes this wait.
    await waitForMore();
  }
}

/** Event lines whose objects are in the stored form, converted to the type's version in one call. */
async function convertLines(t: ResourceType, lines: Buffer[]): Promise<Buffer[]> {
  const events = lines.map((b) => JSON.parse(b.toString('utf8')) as { type: string; object: ApiObject });
  const at = events.flatMap((e, i) => (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' ? [i] : []));
  const converted = await convertUnconverted(t, at.map((i) => (events[i] as { object: ApiObject }).object));
  at.forEach((i, j) => ((events[i] as { object: ApiObject }).object = converted[j] as ApiObject));
  const changed = new Set(at);
  return events.map((e, i) => (changed.has(i) ? Buffer.from(`${JSON.stringify(e)}\n`) : (lines[i] as Buffer)));
}

/** An object whose stored value cannot be read back ends the watch with a 500, as a failed read would. */
function unreadableLine(item: CachedItem): Buffer {
  const status = internalError(item.unreadable?.message ?? `cannot read the stored value of ${item.key}`).toStatus();
  return Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
}

function errorLine(from: number, oldest: number): Buffer {
  const status = gone(`too old resource version: ${from} (${oldest})`).toStatus();
  return Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
}

export type { CachedItem };
