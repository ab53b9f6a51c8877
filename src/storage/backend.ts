/**
 * The storage seam: a revisioned key-value store with etcd's semantics.
 *
 * Rules every implementation keeps (the contract suite in ./testing checks each one):
 * - One global revision for the whole store. Every successful write (create, update, delete) adds exactly 1.
 *   A failed write changes nothing, not even the revision.
 * - Each live key carries `createRevision` (the write that created it) and `modRevision` (its last write).
 * - `create` fails with KeyExists when the key is live; `update` and `delete` compare the caller's expected
 *   modRevision with the stored one and fail with Conflict when they differ (compare-and-swap), NotFound when
 *   the key is not live.
 * - Reads (`get`, `list`) see the latest state, or the state at any revision inside the history window.
 *   A revision older than the window is Compacted; one newer than the store is FutureRevision.
 * - `watch(prefix, fromRevision)` yields every change with revision > fromRevision, in revision order, with no
 *   gap and no duplicate, including changes made by other handles on the same store (another process on the
 *   same SQLite file, another client of the same etcd). A fromRevision older than the window fails with
 *   Compacted; a fromRevision in the future simply waits.
 * - History is kept for a time window (5 minutes by default); compaction runs by itself.
 * - Every failure is a StorageError; no driver error escapes.
 */

import type { StorageError } from './errors.js';

/** One key as stored. `value` is opaque bytes (the API layer stores encoded objects). */
export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  readonly createRevision: number;
  readonly modRevision: number;
  /**
   * Set by a wrapper that transforms values (encryption at rest): the value was read with a key other than
   * the one writes use now, so an update that changes nothing is still worth writing (it re-encrypts).
   */
  readonly stale?: boolean;
  /**
   * Set by such a wrapper, only for a caller that asked with `markUnreadable`: the stored bytes could not be
   * turned back into a value (no configured key reads them). `value` is then empty; reading it must fail.
   */
  readonly unreadable?: StorageError;
}

export interface ListOptions {
  /** Read at this revision (0 or undefined = latest). */
  readonly revision?: number;
  /** First key to return (inclusive); used for pagination. Must start with the prefix. */
  readonly startKey?: string;
  /** At most this many keys (0 or undefined = all). */
  readonly limit?: number;
  /**
   * A value that cannot be read back comes as an item with `unreadable` set instead of failing the whole
   * list (for the watch cache, which must hold every key). Plain backends never produce such items.
   */
  readonly markUnreadable?: boolean;
}

export interface ListResult {
  readonly items: KeyValue[];
  /** The revision the list was read at. */
  readonly revision: number;
  /** True when more keys under the prefix follow the last returned one. */
  readonly more: boolean;
}

export type WatchEvent =
  | { readonly type: 'PUT'; readonly revision: number; readonly kv: KeyValue; readonly prev?: KeyValue }
  | { readonly type: 'DELETE'; readonly revision: number; readonly key: string; readonly prev: KeyValue };

/**
 * A progress notification: every change under the watched prefix up to `revision` has been delivered, even
 * when the writes at those revisions were under other prefixes. Lets a cache answer a consistent read without
 * a change of its own. Sent only to watches that ask for it; a backend that never sends it is still correct.
 */
export interface ProgressNotify {
  readonly type: 'PROGRESS';
  readonly revision: number;
}

export interface Backend {
  /** Short name for logs and metrics: "memory", "sqlite", "etcd". */
  readonly name: string;
  /** The newest revision of the whole store (what a consistent read must reach). */
  currentRevision(): Promise<number>;
  /** Readiness of the store within a short deadline, failing with the reason (default: currentRevision answers). */
  healthCheck?(): Promise<void>;
  /** The newest compacted revision; reads and watches before it are Compacted. */
  compactedRevision(): Promise<number>;
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /** Keys starting with `prefix`, in byte order of the key. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of live keys under `prefix` at the latest revision. */
  count(prefix: string): Promise<number>;
  create(key: string, value: Uint8Array): Promise<KeyValue>;
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue>;
  /** Deletes the key and returns what it held. Without `expectedModRevision` the delete is unconditional. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Every change under `prefix` after `fromRevision`. Ends when `signal` aborts; throws StorageError. */
  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  /**
   * The same, interleaved with progress notifications (in order: a notification follows the events it
   * covers). A backend may send them only when asked through `requestProgress`.
   */
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: { progress: true; markUnreadable?: boolean }): AsyncIterable<WatchEvent | ProgressNotify>;
  /**
   * Someone waits for the watches with progress to reach `revision`: send them progress notifications until
   * the feed has passed it. Optional: a backend that sends progress on its own, or never, leaves it out.
   */
  requestProgress?(revision: number): void;
  /** Drops history at and before `revision` (default: what falls outside the window). Returns it. */
  compact(revision?: number): Promise<number>;
  /** Releases every handle (files, sockets, timers). Open watches end. */
  close(): Promise<void>;
}

/** How long history is kept, and how often compaction runs by itself. */
export interface HistoryOptions {
  /** Default 5 minutes (spec section 8). */
  readonly windowMs?: number;
  /** Default 60 s. Set 0 to disable the automatic compactor (tests that compact by hand). */
  readonly compactIntervalMs?: number;
}

export const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;
export const DEFAULT_COMPACT_INTERVAL_MS = 60_000;
