import type { Database } from 'better-sqlite3';

/**
 * The log table: one row per revision, in the style of a log-structured key-value store.
 * - `id` is the revision (AUTOINCREMENT: never reused, so the global revision only grows, even after
 *   compaction deletes rows; SQLite's single writer makes commit order equal id order across processes).
 * - The current value of a key is its newest row; a delete appends a tombstone row (`deleted = 1`).
 * - `created` is the createRevision, or 0 for the row that created the key (its own id).
 * - `prev` is the id of the row this one superseded (0 = none); the change feed joins it to report the
 *   previous value, and compaction follows it to find superseded rows.
 */
export function migrate(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS kv (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      created INTEGER NOT NULL,
      deleted INTEGER NOT NULL DEFAULT 0,
      prev INTEGER NOT NULL DEFAULT 0,
      value BLOB
    );
    CREATE UNIQUE INDEX IF NOT EXISTS kv_name_id ON kv (name, id);
    CREATE INDEX IF NOT EXISTS kv_prev ON kv (prev) WHERE prev > 0;
    CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL);
  `);
}

/** A row as the queries return it (`p*` columns come from the LEFT JOIN on the previous row). */
export interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  value: Buffer | null;
}

export interface FeedRow extends Row {
  pid: number | null;
  pcreated: number | null;
  pdeleted: number | null;
  pvalue: Buffer | null;
}

/** The smallest string greater than every string starting with `prefix` (in UTF-8 byte order for ASCII). */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  const last = prefix.codePointAt(prefix.length - 1) as number;
  return prefix.slice(0, -1) + String.fromCodePoint(last + 1);
}
