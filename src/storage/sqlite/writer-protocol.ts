/**
 * Messages between `SqliteBackend` (main thread) and its writer thread (`sqlite-writer.ts`).
 *
 * A batch travels packed: keys as one array of strings, numbers in one Float64Array, values in one buffer,
 * the buffers transferred. Structured cloning costs about a microsecond per object property (a batch of 30
 * writes as objects cost ~60 µs each way), and cloning a small pooled Buffer would copy its whole 8 KiB
 * slab. `pack*` / `unpack*` are the only code that knows the layout.
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

/**
 * The outcome of one write:
 * - written: `revision` is the new row; `created` its createRevision; for an update or delete, `prev*`
 *   describe the row it superseded (the watch event's previous value).
 * - refused: the key exists (create), is missing, or has another modRevision (`actual`); nothing was written.
 */
export type WireOutcome =
  | { ok: true; revision: number; created: number; prevRevision: number; prevCreated: number; prevValue: Uint8Array | null }
  | { ok: false; reason: 'exists' | 'missing' | 'conflict'; actual: number };

export interface OpenRequest {
  type: 'open';
  path: string;
  /** How long a commit retries while another connection holds the write lock (ms). */
  writeLockTimeoutMs: number;
}

/** A batch of writes: per op, `nums` holds kind, expected, offset, length. */
export interface PackedOps {
  keys: string[];
  nums: Float64Array;
  buf: ArrayBuffer;
}

/** A batch's outcomes: per op, `nums` holds OUTCOME_FIELDS numbers; previous values are slices of `buf`. */
export interface PackedOutcomes {
  nums: Float64Array;
  buf: ArrayBuffer;
}

export interface CommitRequest extends PackedOps {
  type: 'commit';
  id: number;
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

export interface WriterReply {
  id: number;
  /** Commit: one outcome per op, in order. */
  outcomes?: PackedOutcomes;
  /** Compact, close: done. */
  done?: true;
  /** The whole request failed (nothing of it was written), with the driver's message and code. */
  error?: { message: string; code?: string };
}

const KINDS = ['create', 'update', 'delete'] as const;
const OP_FIELDS = 4;
const REASONS = ['exists', 'missing', 'conflict'] as const;
/** status (0 written, 1 + reason index refused), revision or actual, created, prevRevision, prevCreated, prevOffset, prevLength (-1: none). */
const OUTCOME_FIELDS = 7;

export function packOps(ops: readonly { kind: WireOp['kind']; key: string; value?: Uint8Array | undefined; expected?: number | undefined }[]): PackedOps {
  let size = 0;
  for (const op of ops) size += op.value?.byteLength ?? 0;
  const bytes = new Uint8Array(size);
  const nums = new Float64Array(ops.length * OP_FIELDS);
  const keys: string[] = new Array<string>(ops.length);
  let offset = 0;
  ops.forEach((op, i) => {
    const length = op.value?.byteLength ?? 0;
    if (op.value) bytes.set(op.value, offset);
    keys[i] = op.key;
    nums.set([KINDS.indexOf(op.kind), op.expected ?? -1, offset, length], i * OP_FIELDS);
    offset += length;
  });
  return { keys, nums, buf: bytes.buffer };
}

export function unpackOp(p: PackedOps, i: number): WireOp {
  const n = p.nums;
  const at = i * OP_FIELDS;
  return { kind: KINDS[n[at] as number] as WireOp['kind'], key: p.keys[i] as string, expected: n[at + 1] as number, offset: n[at + 2] as number, length: n[at + 3] as number };
}

export function packOutcomes(outcomes: readonly WireOutcome[]): PackedOutcomes {
  let size = 0;
  for (const o of outcomes) if (o.ok && o.prevValue) size += o.prevValue.byteLength;
  const bytes = new Uint8Array(size);
  const nums = new Float64Array(outcomes.length * OUTCOME_FIELDS);
  let offset = 0;
  outcomes.forEach((o, i) => {
    const at = i * OUTCOME_FIELDS;
    if (!o.ok) {
      nums.set([1 + REASONS.indexOf(o.reason), o.actual, 0, 0, 0, -1, 0], at);
      return;
    }
    const prevLength = o.prevValue?.byteLength ?? 0;
    if (o.prevValue) bytes.set(o.prevValue, offset);
    nums.set([0, o.revision, o.created, o.prevRevision, o.prevCreated, o.prevValue ? offset : -1, prevLength], at);
    offset += prevLength;
  });
  return { nums, buf: bytes.buffer };
}

export function unpackOutcomes(p: PackedOutcomes): WireOutcome[] {
  const n = p.nums;
  const out: WireOutcome[] = [];
  for (let at = 0; at < n.length; at += OUTCOME_FIELDS) {
    const status = n[at] as number;
    if (status !== 0) {
      out.push({ ok: false, reason: REASONS[status - 1] as (typeof REASONS)[number], actual: n[at + 1] as number });
      continue;
    }
    const prevOffset = n[at + 5] as number;
    out.push({
      ok: true,
      revision: n[at + 1] as number,
      created: n[at + 2] as number,
      prevRevision: n[at + 3] as number,
      prevCreated: n[at + 4] as number,
      prevValue: prevOffset < 0 ? null : new Uint8Array(p.buf, prevOffset, n[at + 6] as number),
    });
  }
  return out;
}
