import type { ApiObject } from '../api/types.js';
import { apiVersionOf } from '../api/types.js';
import type { Cacher, CachedItem } from '../cacher/index.js';
import { matchesFields, matchesLabels, requirements } from '../selectors/index.js';
import type { Backend } from '../storage/index.js';
import { decodeFromStorage, decodeUnconverted, objectJson, objectsJson } from './codec.js';
import { continueExpired, decodeContinue, encodeContinue } from './continue-token.js';
import { collectionPrefix } from './keys.js';
import { listObjects, listReadMode, makeFilter, type Filter, type ListParams } from './list-watch.js';
import { beyondAnyRevision } from './resource-version.js';
import { fromStorageError, tooLargeRV } from './storage-errors.js';
import type { ResourceType } from './types.js';

/** A list ready to be written: items are produced lazily, so a 100,000-item list is never one big string. */
export interface ListBody {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  /** Each item's JSON bytes. */
  items: Iterable<Buffer>;
}

export interface ReaderOptions {
  /** How long a read waits for the cache to reach a revision before giving up (spec 7: then 504). */
  waitMs: number;
  /** Whether a list without resourceVersion may be answered by the cache (else storage reads it). */
  consistentListFromCache: boolean;
}

/**
 * Serves lists and gets of one resource view from the watch cache, with the resourceVersion semantics of
 * spec 4.5; reads the cache cannot answer (an exact past revision) go to storage.
 */
export class ResourceReader {
  constructor(
    readonly type: ResourceType,
    private readonly backend: Backend,
    readonly cacher: Cacher,
    private readonly opts: ReaderOptions,
  ) {}

  /**
   * Whether the cache can answer a consistent read: it holds everything up to the backend's current revision,
   * at once or after a short wait. False means the caller reads storage instead (also always the case on a
   * feed without progress notifications, whose cache falls behind the store's revision by design).
   */
  async consistent(): Promise<boolean> {
    await this.cacher.ready;
    const current = await this.backend.currentRevision().catch(fromStorageError);
    if (this.cacher.revision >= current) return true;
    if (!this.cacher.progressNotified) return false;
    return this.cacher.waitFor(current, this.opts.waitMs);
  }

  /**
   * Whether the cache can answer a read that must be at least as new as `revision` (a resourceVersion from
   * the client). Waits for it where the feed reports progress (504 past the wait: the revision is in the
   * future); without progress notifications the cache may legitimately lag, so false sends the read to
   * storage, which answers with its latest state or the 504. `text` is the client's value for the message.
   */
  async reached(revision: number, text = String(revision)): Promise<boolean> {
    await this.cacher.ready;
    if (this.cacher.revision >= revision) return true;
    // Past 2^53 no store's revision can get there (and storage must not be asked for it): 504 at once.
    if (beyondAnyRevision(revision)) throw tooLargeRV(text, this.cacher.revision);
    if (!this.cacher.progressNotified) return false;
    if (!(await this.cacher.waitFor(revision, this.opts.waitMs))) throw tooLargeRV(text, this.cacher.revision);
    return true;
  }

  async list(namespace: string | undefined, p: ListParams): Promise<ListBody> {
    const t = this.type;
    const filter = makeFilter(t, p.labelSelector, p.fieldSelector);
    const prefix = collectionPrefix(t.storageKey, t.namespaced ? namespace : undefined);
    const mode = listReadMode(p);
    const limit = p.limit && p.limit > 0 ? p.limit : 0;
    let start: string | undefined;
    if (p.continue) {
      const token = decodeContinue(p.continue, prefix);
      await this.cacher.ready;
      // A later page is read at the first page's revision: from the cache while it still is at it.
      // Otherwise storage answers at the token's revision (410 once it is compacted away).
      if (token.rv !== this.cacher.revision) return this.fromStorage(namespace, p);
      start = token.start;
    } else if (mode.mode === 'latest') {
      if (p.resourceVersion === '0') await this.cacher.ready;
      else if (!this.opts.consistentListFromCache || !(await this.consistent())) return this.fromStorage(namespace, p);
    } else if (mode.mode === 'notOlderThan') {
      if (!(await this.reached(mode.revision, mode.text))) return this.fromStorage(namespace, p);
    } else {
      await this.cacher.ready;
      if (mode.revision !== this.cacher.revision) return this.fromStorage(namespace, p);
    }

    // Take the snapshot synchronously: no event can interleave with these lines.
    const revision = this.cacher.revision;
    // A stored value that cannot be read back fails the list as a whole (never skipped, never half sent).
    const unreadable = this.cacher.firstUnreadable(prefix, start);
    if (unreadable) fromStorageError(unreadable);
    const body: ListBody = { kind: t.listKind, apiVersion: apiVersionOf(t.group, t.version), metadata: { resourceVersion: String(revision) }, items: [] };
    if (!limit) {
      const snapshot = [...this.cacher.range(prefix, start)];
      // A conversion that calls out converts the whole answer in one batch.
      body.items = t.asyncConversion ? await objectsJson(t, snapshot.filter((i) => this.matches(i, filter))) : this.encodeAll(snapshot, filter);
      return body;
    }
    const page: Buffer[] = [];
    const pageItems: CachedItem[] = [];
    let next: string | undefined;
    let remaining = 0;
    const it = this.cacher.range(prefix, start);
    for (let r = it.next(); !r.done; r = it.next()) {
      if (page.length + pageItems.length >= limit) {
        next = r.value.key;
        remaining = this.cacher.count(prefix, next);
        break;
      }
      if (!this.matches(r.value, filter)) continue;
      if (t.asyncConversion) pageItems.push(r.value);
      else page.push(objectJson(t, r.value.value, r.value.modRevision));
    }
    body.items = t.asyncConversion ? await objectsJson(t, pageItems) : page;
    if (next) {
      body.metadata.continue = encodeContinue({ rv: revision, start: next });
      // spec 2.3: only without selectors, and never on the last page.
      if (filter.empty) body.metadata.remainingItemCount = remaining;
    }
    return body;
  }

  private *encodeAll(items: CachedItem[], filter: Filter): Generator<Buffer> {
    for (const item of items) if (this.matches(item, filter)) yield objectJson(this.type, item.value, item.modRevision);
  }

  /** Label selectors use the cached labels; field selectors other than name/namespace decode the object. */
  matches(item: CachedItem, filter: Filter): boolean {
    if (filter.empty) return true;
    if (!matchesLabels(filter.labels, item.labels)) return false;
    const reqs = requirements(filter.fields);
    if (reqs.length === 0) return true;
    const needsObject = reqs.some((r) => r.field !== 'metadata.name' && r.field !== 'metadata.namespace');
    // Selectors of a type converted by a call out see the stored form (no call per object).
    if (needsObject) return filter.matches(this.type.asyncConversion ? decodeUnconverted(item.value, item.modRevision) : this.decode(item));
    const rest = item.key.slice(collectionPrefix(this.type.storageKey).length);
    const slash = rest.indexOf('/');
    const fields = this.type.namespaced && slash >= 0
      ? { 'metadata.namespace': rest.slice(0, slash), 'metadata.name': rest.slice(slash + 1) }
      : { 'metadata.namespace': '', 'metadata.name': rest };
    return matchesFields(filter.fields, fields);
  }

  decode(item: CachedItem, revision = item.modRevision): ApiObject {
    return decodeFromStorage(this.type, item.value, revision);
  }

  private async fromStorage(namespace: string | undefined, p: ListParams): Promise<ListBody> {
    const t = this.type;
    const r = await listObjects(t, this.backend, namespace, p).catch((e: { code?: number }) => {
      if (p.continue && e.code === 410) throw continueExpired();
      throw e;
    });
    const metadata: ListBody['metadata'] = { resourceVersion: r.resourceVersion };
    if (r.continue) metadata.continue = r.continue;
    return {
      kind: t.listKind,
      apiVersion: apiVersionOf(t.group, t.version),
      metadata,
      items: r.items.map((o) => Buffer.from(JSON.stringify(o))),
    };
  }
}
