import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import DatabaseCtor, { type Database, type Statement } from 'better-sqlite3';
import type { Backend, HistoryOptions, KeyValue, ListOptions, ListResult, WatchEvent, ProgressNotify } from '../backend.js';
import {
  asStorageError,
  compacted,
  conflict,
  futureRevision,
  keyExists,
  keyNotFound,
  StorageError,
} from '../errors.js';
import { HistoryWindow } from '../history-window.js';
import { WatchHub } from '../watch-hub.js';
import { type FeedRow, migrate, prefixEnd, type Row } from './schema.js';
import type { WireOutcome } from './writer-protocol.js';
import { WriterThread, type WriteOp } from './writer-thread.js';

export interface SqliteOptions {
  /** Path of the database file (created with its directory when missing). */
  path: string;
  history?: HistoryOptions;
  /** How often the change feed looks for writes made by other processes. Default 25 ms. */
  pollIntervalMs?: number;
  /** Other servers on the same file that tell each other about commits (worker processes of one server). */
  peers?: CommitPeers;
  /** How long a write retries while another connection holds the write lock. Default 5000 ms. */
  writeLockTimeoutMs?: number;
}

/**
 * A commit-notification channel between processes that share one database file. Optional: without it (or
 * for processes outside it) the change feed finds other writers' commits by polling.
 */
export interface CommitPeers {
  /** Called once after each group commit that wrote something, with the newest revision it wrote. */
  announce(revision: number): void;
  /** Calls `onPeerCommit` when another process committed up to `revision`; returns the unsubscribe. */
  subscribe(onPeerCommit: (revision: number) => void): () => void;
}

interface PendingWrite {
  op: WriteOp;
  resolve: (kv: KeyValue) => void;
  reject: (e: StorageError) => void;
}

const FEED_BATCH = 2000;
/** Reads wait this long in SQLite's busy handler; only the WAL read lock can contend, and only briefly. */
const READ_BUSY_TIMEOUT_MS = 5000;
/** A write retries a locked database for this long before it fails with Unavailable. */
const WRITE_LOCK_TIMEOUT_MS = 5000;
/**
 * Commits sent to the writer thread before the first is answered. Two let the thread start the next commit
 * while the main thread publishes the last one; more only make batches smaller.
 */
const MAX_COMMITS_IN_FLIGHT = 2;

/**
 * The embedded default backend: SQLite in WAL mode, one row per revision.
 *
 * Writes go to a writer thread with its own connection (`sqlite-writer.ts`), so inserts, the commit's fsync
 * and waiting for another process's write lock never block the event loop. Reads, the change feed and the
 * revision use the main thread's connection; WAL lets them run while a commit is in progress.
 *
 * Durability: `synchronous = FULL` makes every commit fsync the WAL before it returns, so an acknowledged
 * write survives `kill -9` and power loss. Group commit keeps that affordable: at most two commits are in
 * flight, and every write queued meanwhile goes into the next one (one transaction, one fsync); each caller
 * then gets its own result or error. A write fails only on a real error or after waiting 5 s for another
 * connection's write lock (`writeLockTimeoutMs`; "database is locked", Unavailable).
 *
 * Change feed: a local commit publishes its own rows from the values it wrote (no read-back). Writes by
 * other processes on the same file are read from the table (`id > lastSeen`): found by a poll that first
 * checks `PRAGMA data_version` (free when nothing changed), by a peer's announcement (`opts.peers`), by a
 * revision read that finds the feed behind, or as the gap before a local commit's first row. So watches see
 * every writer's changes once, in revision order.
 */
export class SqliteBackend implements Backend {
  readonly name = 'sqlite';
  private readonly db: Database;
  private readonly hub = new WatchHub();
  private readonly window: HistoryWindow;
  private readonly stmt: Record<string, Statement>;
  private readonly writer: WriterThread;
  private pending: PendingWrite[] = [];
  /** A flush is due on the next turn of the loop. */
  private flushScheduled = false;
  /** Commits sent to the writer thread and not yet answered (at most MAX_COMMITS_IN_FLIGHT). */
  private readonly committing = new Set<Promise<void>>();
  private pollTimer: NodeJS.Timeout;
  private dataVersion = -1;
  /** The revision query the reads of this turn wait for (see currentRevision). */
  private revisionCheck: Promise<number> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private compacting: Promise<number> | undefined;
  private unsubscribePeers: (() => void) | undefined;

  constructor(private readonly opts: SqliteOptions) {
    try {
      mkdirSync(dirname(opts.path), { recursive: true });
      this.db = new DatabaseCtor(opts.path);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = FULL');
      this.db.pragma(`busy_timeout = ${READ_BUSY_TIMEOUT_MS}`);
      migrate(this.db);
    } catch (e) {
      throw asStorageError(e, `opening ${opts.path}`);
    }
    const db = this.db;
    this.writer = new WriterThread({ path: opts.path, writeLockTimeoutMs: opts.writeLockTimeoutMs ?? WRITE_LOCK_TIMEOUT_MS });
    this.stmt = {
      revision: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'kv'`).pluck(),
      compactRev: db.prepare(`SELECT v FROM meta WHERE k = 'compact_rev'`).pluck(),
      latest: db.prepare(`SELECT id, name, created, deleted, value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1`),
      at: db.prepare(`SELECT id, name, created, deleted, value FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`),
      list: db.prepare(`
        SELECT kv.id, kv.name, kv.created, kv.deleted, kv.value FROM kv
        JOIN (SELECT MAX(id) AS mid FROM kv WHERE name >= ? AND name < ? AND id <= ? GROUP BY name) m ON kv.id = m.mid
        WHERE kv.deleted = 0 ORDER BY kv.name LIMIT ?`),
      count: db.prepare(`
        SELECT COUNT(*) FROM kv
        JOIN (SELECT MAX(id) AS mid FROM kv WHERE name >= ? AND name < ? GROUP BY name) m ON kv.id = m.mid
        WHERE kv.deleted = 0`).pluck(),
      feed: db.prepare(`
        SELECT kv.id, kv.name, kv.created, kv.deleted, kv.value,
               p.id AS pid, p.created AS pcreated, p.deleted AS pdeleted, p.value AS pvalue
        FROM kv LEFT JOIN kv p ON p.id = kv.prev WHERE kv.id > ? AND kv.id <= ? ORDER BY kv.id LIMIT ${FEED_BATCH}`),
      history: db.prepare(`
        SELECT kv.id, kv.name, kv.created, kv.deleted, kv.value,
               p.id AS pid, p.created AS pcreated, p.deleted AS pdeleted, p.value AS pvalue
        FROM kv LEFT JOIN kv p ON p.id = kv.prev
        WHERE kv.id > ? AND kv.id <= ? AND kv.name >= ? AND kv.name < ? ORDER BY kv.id`),
    };
    this.hub.lastRevision = this.readRevision();
    this.pollTimer = setInterval(() => this.pollIfChanged(), opts.pollIntervalMs ?? 25);
    this.pollTimer.unref();
    this.window = new HistoryWindow(opts.history);
    this.window.start(async () => void (await this.compact()));
    this.unsubscribePeers = opts.peers?.subscribe((revision) => this.onPeerCommit(revision));
  }

  /**
   * The store's revision. Every consistent read asks for it, and one query costs about as much as the rest
   * of a cached GET, so the reads that ask during one turn of the event loop share one query, run in the
   * loop's check phase (setImmediate) after them.
   *
   * Why sharing is linearizable: the query runs after every read that joined it had arrived, so its revision
   * is at least as new as any write acknowledged before any of those reads arrived. Example: in one poll
   * phase the sockets deliver GETs A and B; both ask and wait. In the check phase the query reads 41 and
   * answers both. A write another process acknowledges after that, and a GET C that arrives after the
   * acknowledgement, land in a later turn, whose own query sees the write.
   */
  currentRevision(): Promise<number> {
    this.revisionCheck ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.revisionCheck = undefined;
        try {
          resolve(
            this.guard('reading the revision', () => {
              const r = this.readRevision();
              // Another process committed and the feed has not seen it yet: catch up now, so a consistent read
              // that waits for this revision need not wait for the poll or the peer's announcement.
              if (r > this.hub.lastRevision && this.hub.size > 0) this.poll();
              return r;
            }),
          );
        } catch (e) {
          reject(e);
        }
      });
    });
    return this.revisionCheck;
  }

  async compactedRevision(): Promise<number> {
    return this.guard('reading the compact revision', () => this.readCompactRevision());
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    // One statement is already a consistent snapshot; only a read at a past revision needs the checks with it.
    return this.guard(`reading ${key}`, () => {
      const row = opts.revision
        ? (this.db.transaction(() => this.stmt.at!.get(key, this.checkReadRevision(opts.revision!)))() as Row | undefined)
        : (this.stmt.latest!.get(key) as Row | undefined);
      return row && !row.deleted ? toKV(row) : undefined;
    });
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.guard(`listing ${prefix}`, () =>
      this.db.transaction(() => {
        const revision = opts.revision ? this.checkReadRevision(opts.revision) : this.readRevision();
        const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
        const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
        const rows = this.stmt.list!.all(start, prefixEnd(prefix), revision, limit < 0 ? -1 : limit + 1) as Row[];
        const more = limit >= 0 && rows.length > limit;
        if (more) rows.pop();
        return { items: rows.map(toKV), revision, more };
      })(),
    );
  }

  async count(prefix: string): Promise<number> {
    return this.guard(`counting ${prefix}`, () => this.stmt.count!.get(prefix, prefixEnd(prefix)) as number);
  }

  create(key: string, value: Uint8Array): Promise<KeyValue> {
    return this.enqueue({ kind: 'create', key, value });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    return this.enqueue({ kind: 'update', key, value, expected: expectedModRevision });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue({ kind: 'delete', key, expected: expectedModRevision });
  }

  requestProgress(revision: number): void {
    this.hub.requestProgress(revision);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts: { progress: true }): AsyncIterable<WatchEvent | ProgressNotify>;
  watch(prefix: string, fromRevision: number, signal: AbortSignal, opts?: { progress: true }): AsyncIterable<WatchEvent | ProgressNotify> {
    if (this.closed) throw new StorageError('Unavailable', 'sqlite backend is closed');
    // Catch up first so that the history read below and the hub agree on lastRevision.
    this.poll();
    const compactRev = this.readCompactRevision();
    if (fromRevision < compactRev) throw compacted(fromRevision, compactRev);
    const history =
      fromRevision < this.hub.lastRevision
        ? (this.stmt.history!.all(fromRevision, this.hub.lastRevision, prefix, prefixEnd(prefix)) as FeedRow[]).map(toEvent)
        : [];
    return this.hub.open(prefix, fromRevision, history, signal, opts?.progress === true);
  }

  async compact(revision?: number): Promise<number> {
    if (this.compacting) return this.compacting;
    this.compacting = (async () => {
      const current = this.readRevision();
      const target = Math.min(revision ?? this.window.sample(current), current);
      const from = this.readCompactRevision();
      if (target <= from) return from;
      await this.writer.compact(from, target);
      return target;
    })()
      .catch((e) => {
        throw asStorageError(e, 'compacting');
      })
      .finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.compacting?.catch(() => undefined);
      this.closed = true; // no new writes from here on
      // Queued writes still commit (or fail after the lock timeout).
      while (this.pending.length > 0 || this.committing.size > 0) {
        if (this.committing.size > 0) await Promise.all(this.committing);
        else this.flush();
      }
      await this.writer.close().catch(() => undefined);
      this.unsubscribePeers?.();
      clearInterval(this.pollTimer);
      this.window.stop();
      this.hub.failAll(undefined);
      this.db.close();
    })();
    return this.closing;
  }

  // ---- writes: group commit ----

  private enqueue(op: WriteOp): Promise<KeyValue> {
    if (this.closed) return Promise.reject(new StorageError('Unavailable', 'sqlite backend is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ op, resolve, reject });
      if (!this.flushScheduled && this.committing.size < MAX_COMMITS_IN_FLIGHT) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends every queued write to the writer thread as one transaction, unless enough commits are in flight. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.committing.size >= MAX_COMMITS_IN_FLIGHT || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const commit: Promise<void> = this.writer
      .commit(batch.map((w) => w.op))
      .then(
        (outcomes) => this.settle(batch, outcomes),
        (e: unknown) => {
          const err = asStorageError(e, 'committing writes');
          for (const w of batch) w.reject(err);
        },
      )
      .finally(() => {
        this.committing.delete(commit);
        // Everything that queued during this commit goes into the next one, at once.
        this.flush();
      });
    this.committing.add(commit);
  }

  /**
   * Publishes a commit's rows and answers its writers. The rows' revisions are consecutive (one
   * transaction holds the write lock); rows other processes committed before them are read from the table
   * first, and rows the feed already published (a poll that ran before this reply) are not published again.
   */
  private settle(batch: PendingWrite[], outcomes: WireOutcome[]): void {
    const events: WatchEvent[] = [];
    const results: (KeyValue | StorageError)[] = batch.map(({ op }, i) => {
      const o = outcomes[i] as WireOutcome;
      if (!o.ok) {
        if (o.reason === 'exists') return keyExists(op.key);
        if (o.reason === 'missing') return keyNotFound(op.key);
        return conflict(op.key, op.expected ?? -1, o.actual);
      }
      const prev: KeyValue | undefined = o.prevRevision
        ? { key: op.key, value: o.prevValue ?? new Uint8Array(), createRevision: o.prevCreated, modRevision: o.prevRevision }
        : undefined;
      if (op.kind === 'delete') {
        events.push({ type: 'DELETE', revision: o.revision, key: op.key, prev: prev as KeyValue });
        return prev as KeyValue;
      }
      const kv: KeyValue = { key: op.key, value: op.value as Uint8Array, createRevision: o.created, modRevision: o.revision };
      events.push(prev ? { type: 'PUT', revision: o.revision, kv, prev } : { type: 'PUT', revision: o.revision, kv });
      return kv;
    });
    if (events.length > 0) {
      const first = (events[0] as WatchEvent).revision;
      try {
        if (first > this.hub.lastRevision + 1) this.poll(first - 1);
        this.hub.publish(first > this.hub.lastRevision ? events : events.filter((e) => e.revision > this.hub.lastRevision));
      } catch (e) {
        this.hub.failAll(asStorageError(e, 'reading the change feed'));
      }
      this.opts.peers?.announce((events[events.length - 1] as WatchEvent).revision);
    }
    batch.forEach((w, i) => {
      const r = results[i] as KeyValue | StorageError;
      if (r instanceof StorageError) w.reject(r);
      else w.resolve(r);
    });
  }

  /** Another process announced a commit: publish it now. */
  private onPeerCommit(revision: number): void {
    if (!this.closed && revision > this.hub.lastRevision) this.pollIfChanged();
  }

  // ---- change feed ----

  /**
   * Publishes other processes' commits found through `PRAGMA data_version`. Skipped while a local commit
   * is in flight: the writer thread's own commits change data_version too, and reading them here would
   * read back rows the commit's answer is about to publish from memory; its settle publishes any other
   * process's rows before its own (the gap), and the next poll after the last commit catches the rest.
   */
  private pollIfChanged(): void {
    if (this.closed || this.hub.size === 0 || this.committing.size > 0) return;
    try {
      const v = this.db.pragma('data_version', { simple: true }) as number;
      if (v === this.dataVersion) return;
      this.dataVersion = v;
      this.poll();
    } catch (e) {
      this.hub.failAll(asStorageError(e, 'reading the change feed'));
    }
  }

  /** Publishes every row after the last one seen, up to `upTo`, in id (= revision) order. */
  private poll(upTo = Number.MAX_SAFE_INTEGER): void {
    for (;;) {
      const rows = this.stmt.feed!.all(this.hub.lastRevision, upTo) as FeedRow[];
      if (rows.length === 0) return;
      this.hub.publish(rows.map(toEvent));
      if (rows.length < FEED_BATCH) return;
    }
  }

  // ---- helpers ----

  private readRevision(): number {
    return (this.stmt.revision!.get() as number | undefined) ?? 0;
  }

  private readCompactRevision(): number {
    return (this.stmt.compactRev!.get() as number | undefined) ?? 0;
  }

  private checkReadRevision(revision: number): number {
    const current = this.readRevision();
    if (revision > current) throw futureRevision(revision, current);
    const compactRev = this.readCompactRevision();
    if (revision < compactRev) throw compacted(revision, compactRev);
    return revision;
  }

  private guard<T>(what: string, fn: () => T): T {
    if (this.closed) throw new StorageError('Unavailable', 'sqlite backend is closed');
    try {
      return fn();
    } catch (e) {
      throw asStorageError(e, what);
    }
  }
}

function toKV(row: Row): KeyValue {
  return {
    key: row.name,
    value: row.value ?? new Uint8Array(),
    createRevision: row.created || row.id,
    modRevision: row.id,
  };
}

function toEvent(row: FeedRow): WatchEvent {
  const prev =
    row.pid !== null && !row.pdeleted
      ? toKV({ id: row.pid, name: row.name, created: row.pcreated ?? 0, deleted: 0, value: row.pvalue })
      : undefined;
  if (row.deleted) {
    // A tombstone always supersedes a live row; after compaction that row may be gone, so fall back to an
    // empty previous value rather than dropping the event.
    return { type: 'DELETE', revision: row.id, key: row.name, prev: prev ?? { key: row.name, value: new Uint8Array(), createRevision: row.created, modRevision: row.id } };
  }
  return prev ? { type: 'PUT', revision: row.id, kv: toKV(row), prev } : { type: 'PUT', revision: row.id, kv: toKV(row) };
}
