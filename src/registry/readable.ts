/**
 * Cached items whose stored value no encryption provider can read (spec 2.12), as met by the server's own
 * readers of the watch cache (authentication, admission, authorization, configuration followers). Each
 * reader makes such an item an explicit outcome through these helpers instead of decoding empty bytes.
 * Everything here costs one property check per item while every value is readable.
 */
import type { CachedItem } from '../cacher/index.js';
import { internalError, type StatusError } from '../errors/index.js';
import type { StorageError } from '../storage/index.js';
import { collectionPrefix } from './keys.js';
import type { ResourceType } from './types.js';

/** An item that could not be read back: `unreadable` says why, and its message names the object. */
export type UnreadableItem = CachedItem & { readonly unreadable: StorageError };

export const isUnreadable = (item: CachedItem): item is UnreadableItem => item.unreadable !== undefined;

/** The 500 a request gets for an object no provider can read; the message names the object's key. */
export const unreadableStatus = (item: UnreadableItem): StatusError => internalError(item.unreadable.message);

/** The item when its value can be read; otherwise the 500 Status naming it is thrown. */
export function readable(item: CachedItem): CachedItem {
  if (item.unreadable) throw unreadableStatus(item as UnreadableItem);
  return item;
}

/** The readable items of `items`, in order; each unreadable one goes to `skipped` instead. */
export function* readableItems(items: Iterable<CachedItem>, skipped: (item: UnreadableItem) => void): Generator<CachedItem> {
  for (const item of items) {
    if (item.unreadable) skipped(item as UnreadableItem);
    else yield item;
  }
}

/** Namespace ('' for cluster-scoped) and name of a cached item of `type`, from its key alone. */
export function itemRef(type: ResourceType, key: string): { namespace: string; name: string } {
  const rest = key.slice(collectionPrefix(type.storageKey).length);
  const slash = type.namespaced ? rest.indexOf('/') : -1;
  return slash >= 0 ? { namespace: rest.slice(0, slash), name: rest.slice(slash + 1) } : { namespace: '', name: rest };
}

/** Remembered versions before the memory starts over (an object would be logged once more, nothing worse). */
const REMEMBERED = 1000;

/**
 * Logs each unreadable object once per stored version: a reader meets the same item on every request or
 * every pass over the cache, and one line per object is what an operator needs.
 */
export class UnreadableLog {
  private readonly seen = new Set<string>();

  constructor(
    private readonly log: (msg: string) => void,
    /** Who skips or refuses the object, and what that means, e.g. "rbac: not granting". */
    private readonly what: string,
  ) {}

  report(item: UnreadableItem): void {
    const id = `${item.key}@${item.modRevision}`;
    if (this.seen.has(id)) return;
    if (this.seen.size >= REMEMBERED) this.seen.clear();
    this.seen.add(id);
    this.log(`${this.what}: ${item.unreadable.message}`);
  }

  /** `report` as a callback (for readableItems). */
  readonly skip = (item: UnreadableItem): void => this.report(item);
}
