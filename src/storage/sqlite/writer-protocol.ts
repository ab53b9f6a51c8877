/**
 * Messages between `SqliteBackend` (main thread) and its writer thread (`sqlite-writer.ts`). Values travel
 * packed into one transferred buffer per batch: structured-cloning a small Buffer would copy the whole 8 KiB
 * pool slab under it.
 */

/** One write of a batch; its value (create, update) is `buf[offset, offset + length)`. */
export interface WireOp {
  kind: 'create' | 'update' | 'delete';
  key: string;
  /** Update, delete: the modRevision the key must have (-1: any, for an unconditional delete). */
  expected: number;
  offset: number;
  length: number;
}

export interface OpenRequest {
  type: 'open';
  path: string;
  /** How long a commit retries while another connection holds the write lock (ms). */
  writeLockTimeoutMs: number;
}

export interface CommitRequest {
  type: 'commit';
  id: number;
  ops: WireOp[];
  buf: ArrayBuffer;
}

export interface CompactRequest {
  type: 'compact';
  id: number;
  from: number;
  to: number;
}

export interface CloseRequest {
  type: 'close';
  id: number;
}

export type WriterRequest = CommitRequest | CompactRequest | CloseRequest;

/**
 * The outcome of one write:
 * - written: `revision` is the new row; `created` its createRevision; for an update or delete, `prev*`
 *   describe the row it superseded (the watch event's previous value).
 * - refused: the key exists (create), is missing, or has another modRevision (`actual`); nothing was written.
 */
export type WireOutcome =
  | { ok: true; revision: number; created: number; prevRevision: number; prevCreated: number; prevValue: Uint8Array | null }
  | { ok: false; reason: 'exists' | 'missing' | 'conflict'; actual: number };

export interface WriterReply {
  id: number;
  /** Commit: one outcome per op, in order. */
  outcomes?: WireOutcome[];
  /** Compact: done. */
  done?: true;
  /** The whole request failed (nothing of it was written), with the driver's message and code. */
  error?: { message: string; code?: string };
}
