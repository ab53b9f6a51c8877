import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Database } from 'better-sqlite3';

const BATCH_IDS = 1000;

/**
 * Deletes the history that compaction at `to` makes unreadable: rows superseded by a row at or before `to`,
 * and tombstones at or before `to`. Works through (from, to] in small id ranges, one short transaction each,
 * yielding between batches so commits wait at most one batch (a few milliseconds). `withWriteLock` runs one
 * write transaction, waiting for the write lock if another connection holds it.
 */
export async function compactRange(
  db: Database,
  from: number,
  to: number,
  withWriteLock: <T>(fn: () => T) => T,
): Promise<void> {
  const superseded = db.prepare(
    `DELETE FROM kv WHERE id IN (SELECT prev FROM kv WHERE id > ? AND id <= ? AND prev > 0)`,
  );
  const tombstones = db.prepare(`DELETE FROM kv WHERE deleted = 1 AND id > ? AND id <= ?`);
  const batch = db.transaction((lo: number, hi: number) => {
    superseded.run(lo, hi);
    tombstones.run(lo, hi);
  });
  for (let lo = from; lo < to; lo += BATCH_IDS) {
    withWriteLock(() => batch.immediate(lo, Math.min(lo + BATCH_IDS, to)));
    await yieldToLoop();
  }
}
