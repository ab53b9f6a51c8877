import type { StorageError } from '../storage/index.js';

/** One object as the cache holds it: the stored bytes, shared by every reader, plus what selectors need. */
export interface CachedItem {
  readonly key: string;
  /** The stored encoding (see registry/codec.ts); never copied. */
  readonly value: Uint8Array;
  readonly createRevision: number;
  readonly modRevision: number;
  /** Labels, extracted once when the item enters the cache (label selectors need no decoding). */
  readonly labels: Record<string, string> | undefined;
  /** The stored bytes could not be read back (encryption at rest without the key); `value` is empty. */
  readonly unreadable?: StorageError;
}

export type CacheEventType = 'PUT' | 'DELETE';

/** One change. For DELETE, `item` is the object as it was, and `revision` the revision of the delete. */
export interface CacheEvent {
  readonly revision: number;
  readonly type: CacheEventType;
  readonly key: string;
  readonly item: CachedItem;
  readonly prev: CachedItem | undefined;
  /** Encodings of this event shared by every watcher (encode once), keyed by the encoder's choice. */
  encoded?: Map<unknown, Buffer>;
}
