/**
 * The writer thread of a `SqliteBackend` (started by `WriterThread`): it owns the connection that writes,
 * so the inserts, the commit's fsync and waits for another process's write lock never block the server's
 * event loop. It handles one request at a time, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import DatabaseCtor from 'better-sqlite3';
import { compactRange } from './compactor.js';
import { packOutcomes, unpackOp, type CommitRequest, type OpenRequest, type WireOutcome, type WriterReply, type WriterRequest } from './writer-protocol.js';

interface LatestRow {
  id: number;
  created: number;
  deleted: number;
  value: Buffer | null;
}

/** Waits between attempts at a write lock held by another connection (ms); the last one repeats. */
const BUSY_BACKOFF_MS = [0.2, 0.5, 1, 2, 4];

const { path, writeLockTimeoutMs } = workerData as OpenRequest;
const port = parentPort!;
const db = new DatabaseCtor(path);
db.pragma('synchronous = FULL');
// The lock wait is ours (below): SQLite's own busy handler sleeps in steps of up to 100 ms.
db.pragma('busy_timeout = 0');
const latest = db.prepare(`SELECT id, created, deleted, value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1`);
const insertRow = db.prepare(`INSERT INTO kv (name, created, deleted, prev, value) VALUES (?, ?, ?, ?, ?)`);
const publishCompactRev = db.prepare(
  `INSERT INTO meta (k, v) VALUES ('compact_rev', ?) ON CONFLICT (k) DO UPDATE SET v = max(v, excluded.v)`,
);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Runs `fn` (one write transaction), retrying while another connection holds the write lock. */
function withWriteLock<T>(fn: () => T): T {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return fn();
    } catch (e) {
      if (!isBusy(e)) throw e;
      const waited = Date.now() - started;
      if (waited >= writeLockTimeoutMs) {
        throw Object.assign(new Error(`database is locked (another connection held the write lock for ${waited} ms)`), {
          code: 'SQLITE_BUSY',
        });
      }
      Atomics.wait(sleeper, 0, 0, BUSY_BACKOFF_MS[Math.min(attempt, BUSY_BACKOFF_MS.length - 1)]);
    }
  }
}

function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const insert = (key: string, created: number, deleted: number, prev: number, value: Buffer | null) =>
  Number(insertRow.run(key, created, deleted, prev, value).lastInsertRowid);

/** Write `i` of the batch, inside its transaction. Checks come first, so a refused write inserts nothing. */
function apply(req: CommitRequest, i: number, buf: Buffer): WireOutcome {
  const op = unpackOp(req, i);
  const row = latest.get(op.key) as LatestRow | undefined;
  const live = row && !row.deleted ? row : undefined;
  if (op.kind === 'create') {
    if (live) return { ok: false, reason: 'exists', actual: live.id };
    const id = insert(op.key, 0, 0, row?.id ?? 0, buf.subarray(op.offset, op.offset + op.length));
    return { ok: true, revision: id, created: id, prevRevision: 0, prevCreated: 0, prevValue: null };
  }
  if (!live) return { ok: false, reason: 'missing', actual: 0 };
  if (op.expected >= 0 && live.id !== op.expected) return { ok: false, reason: 'conflict', actual: live.id };
  const created = live.created || live.id;
  const value = op.kind === 'update' ? buf.subarray(op.offset, op.offset + op.length) : null;
  const id = insert(op.key, created, op.kind === 'delete' ? 1 : 0, live.id, value);
  return { ok: true, revision: id, created, prevRevision: live.id, prevCreated: created, prevValue: live.value };
}

const commitBatch = db.transaction((req: CommitRequest, buf: Buffer) => req.keys.map((_, i) => apply(req, i, buf)));

function commit(req: CommitRequest): { reply: WriterReply; transfer: ArrayBuffer[] } {
  const outcomes = packOutcomes(withWriteLock(() => commitBatch.immediate(req, Buffer.from(req.buf))));
  return { reply: { id: req.id, outcomes }, transfer: [outcomes.buf, outcomes.nums.buffer as ArrayBuffer] };
}

async function handle(req: WriterRequest): Promise<{ reply: WriterReply; transfer?: ArrayBuffer[] }> {
  switch (req.type) {
    case 'commit':
      return commit(req);
    case 'compact':
      // Publish the new compact revision before deleting anything, so no reader sees half-compacted history.
      withWriteLock(() => publishCompactRev.run(req.to));
      await compactRange(db, req.from, req.to, withWriteLock);
      return { reply: { id: req.id, done: true } };
    case 'close':
      db.close();
      return { reply: { id: req.id, done: true } };
  }
}

port.on('message', (req: WriterRequest) => {
  handle(req).then(
    ({ reply, transfer }) => {
      port.postMessage(reply, transfer ?? []);
      if (req.type === 'close') port.close();
    },
    (e: unknown) => {
      const err = e as { message?: unknown; code?: unknown };
      const code = typeof err?.code === 'string' ? err.code : undefined;
      port.postMessage({ id: req.id, error: { message: String(err?.message ?? e), ...(code ? { code } : {}) } } satisfies WriterReply);
    },
  );
});
