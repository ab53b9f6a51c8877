import type { ChannelOptions } from '@grpc/grpc-js';
import type { Backend, HistoryOptions, KeyValue, ListOptions, ListResult, WatchEvent } from '../backend.js';
import { compacted, conflict, futureRevision, keyExists, keyNotFound, StorageError } from '../errors.js';
import { HistoryWindow } from '../history-window.js';
import {
  EtcdRpc,
  num,
  prefixEnd,
  type PbEvent,
  type PbKeyValue,
  type PbRequest,
  type RangeResponse,
  type TxnResponse,
  type WatchResponse,
} from './etcd-rpc.js';
import { ResumableWatch } from './etcd-watch.js';

/** The reference's `--etcd-healthcheck-timeout` default. */
const HEALTH_TIMEOUT_MS = 2000;

/** Why a health read failed, in words an operator can act on. */
export function healthFailure(e: unknown, connected: boolean, timeoutMs: number, dialFailure?: string): string {
  const detail = e instanceof Error ? e.message : String(e);
  // Through an egress proxy the channel only sees its loopback connection drop; the proxy's answer is the cause.
  if (!connected && dialFailure !== undefined) return `etcd unreachable through the egress proxy: ${dialFailure} (${detail})`;
  if (!connected) return `etcd unreachable: no member accepts connections (${detail})`;
  if ((e instanceof StorageError && e.code === 'Timeout') || /no leader|leader changed/.test(detail)) {
    return `etcd cannot serve a linearizable read within ${timeoutMs} ms: no leader, the cluster has probably lost quorum (${detail})`;
  }
  return `error getting data from etcd: ${detail}`;
}

export interface EtcdBackendOptions {
  /** Client URLs of the etcd members, e.g. `http://127.0.0.1:2379`. */
  endpoints: string[];
  /** Every key is stored under this prefix (default `/registry`) and returned without it. */
  keyPrefix?: string;
  history?: HistoryOptions;
  /** Deadline of each etcd call (default 10 s). */
  requestTimeoutMs?: number;
  /** How long a watch whose stream broke keeps re-creating it before failing (default 60 s). */
  watchRetryTimeoutMs?: number;
  /** Extra gRPC channel options. */
  channelOptions?: ChannelOptions;
  /** Set when the endpoints are local forwarders to the real members (etcd-egress.ts). */
  connection?: ForwardedConnection;
}

/** The forwarders an egress-proxied backend owns. */
export interface ForwardedConnection {
  /** Why the latest dial through the proxy failed, if it did. */
  lastFailure(): string | undefined;
  close(): Promise<void>;
}

/**
 * The etcd v3 backend. etcd already has the contract's model (one global revision, create/mod revisions,
 * history with compaction, watches from a revision), so this is mostly a mapping: compare-and-swap writes
 * are transactions whose failure branch reads the key to tell NotFound from Conflict.
 */
export class EtcdBackend implements Backend {
  readonly name = 'etcd';
  private readonly rpc: EtcdRpc;
  private readonly prefix: Buffer;
  private readonly window: HistoryWindow;
  private readonly watches = new Set<ResumableWatch>();
  private readonly requestTimeoutMs: number;
  private readonly watchRetryTimeoutMs: number;
  private readonly connection: ForwardedConnection | undefined;
  /** The newest compact revision we know of (from our compactions, watch responses and probes). */
  private compactRev = 0;
  private closed = false;

  constructor(opts: EtcdBackendOptions) {
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.watchRetryTimeoutMs = opts.watchRetryTimeoutMs ?? 60_000;
    this.prefix = Buffer.from(opts.keyPrefix ?? '/registry');
    this.connection = opts.connection;
    this.rpc = new EtcdRpc(opts.endpoints, this.requestTimeoutMs, opts.channelOptions);
    this.window = new HistoryWindow(opts.history);
    this.window.start(async () => void (await this.compact()));
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    const res = await this.rpc.unary('Range', { key: this.etcdKey(''), count_only: true });
    return num(res.header.revision);
  }

  /**
   * Readiness: a linearizable read (it needs a leader with a quorum behind it) answered within `timeoutMs`,
   * as the reference's etcd check does. The error says which of "no member reachable" and "reachable but no
   * quorum" it is, since the fixes differ.
   */
  async healthCheck(timeoutMs = HEALTH_TIMEOUT_MS): Promise<void> {
    this.checkOpen();
    try {
      await this.rpc.unary('Range', { key: this.etcdKey('/health'), count_only: true }, timeoutMs);
    } catch (e) {
      throw new StorageError('Unavailable', healthFailure(e, this.rpc.connected(), timeoutMs, this.connection?.lastFailure()), { cause: e });
    }
  }

  async compactedRevision(): Promise<number> {
    return this.compactRev;
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.checkOpen();
    const res = await this.range({ key: this.etcdKey(key), revision: String(opts.revision ?? 0) }, opts.revision);
    const kv = res.kvs[0];
    return kv ? this.toKv(kv) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const start = opts.startKey && opts.startKey > prefix ? opts.startKey : prefix;
    const res = await this.range(
      {
        key: this.etcdKey(start),
        range_end: this.rangeEnd(prefix),
        limit: String(opts.limit && opts.limit > 0 ? opts.limit : 0),
        revision: String(opts.revision ?? 0),
      },
      opts.revision,
    );
    return {
      items: res.kvs.map((kv) => this.toKv(kv)),
      // The header carries the newest revision, not the one read at.
      revision: opts.revision || num(res.header.revision),
      more: res.more,
    };
  }

  async count(prefix: string): Promise<number> {
    this.checkOpen();
    const req = { key: this.etcdKey(prefix), range_end: this.rangeEnd(prefix), count_only: true };
    const res = await this.range(req, undefined);
    return num(res.count);
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.checkOpen();
    const k = this.etcdKey(key);
    const res = await this.txn({
      compare: [{ key: k, target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
      success: [{ request_put: { key: k, value } }],
      failure: [],
    });
    if (!res.succeeded) throw keyExists(key);
    const rev = num(res.header.revision);
    return { key, value: Uint8Array.from(value), createRevision: rev, modRevision: rev };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.checkOpen();
    const k = this.etcdKey(key);
    const res = await this.txn({
      compare: this.expect(k, expectedModRevision),
      success: [{ request_put: { key: k, value, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw this.writeFailure(key, expectedModRevision, res);
    const rev = num(res.header.revision);
    const prev = res.responses[0]?.response_put?.prev_kv;
    const createRevision = prev ? num(prev.create_revision) : rev;
    return { key, value: Uint8Array.from(value), createRevision, modRevision: rev };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    this.checkOpen();
    const k = this.etcdKey(key);
    const res = await this.txn({
      compare: this.expect(k, expectedModRevision),
      success: [{ request_delete_range: { key: k, prev_kv: true } }],
      failure: [{ request_range: { key: k } }],
    });
    if (!res.succeeded) throw this.writeFailure(key, expectedModRevision, res);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    if (!prev) throw new StorageError('Unavailable', `etcd delete of ${key} returned no previous value`, { key });
    return this.toKv(prev);
  }

  watch(prefix: string, fromRevision: number, signal: AbortSignal): AsyncIterable<WatchEvent> {
    this.checkOpen();
    const ctx = {
      rpc: this.rpc,
      decode: (e: PbEvent) => this.toEvent(e),
      onCompactRevision: (rev: number) => this.noteCompacted(rev),
      retryTimeoutMs: this.watchRetryTimeoutMs,
    };
    const onDone = () => this.watches.delete(w);
    const [key, end] = [this.etcdKey(prefix), this.rangeEnd(prefix)];
    const w: ResumableWatch = new ResumableWatch(ctx, key, end, fromRevision, signal, onDone);
    if (!w.queue.closed) this.watches.add(w);
    return w.queue;
  }

  async compact(revision?: number): Promise<number> {
    this.checkOpen();
    const current = await this.currentRevision();
    const target = Math.min(revision ?? this.window.sample(current), current);
    if (target <= this.compactRev) return this.compactRev;
    try {
      // physical: false returns once etcd has recorded the compaction; reads before it fail from then on.
      await this.rpc.unary('Compact', { revision: String(target), physical: false });
    } catch (e) {
      // Someone (a peer, etcd's own compactor) already compacted at or past the target.
      if (e instanceof StorageError && e.code === 'Compacted') {
        this.noteCompacted(target); // etcd's compact revision is at least the target
        return this.learnCompactRevision();
      }
      throw e;
    }
    this.noteCompacted(target);
    return target;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.window.stop();
    for (const w of [...this.watches]) w.end();
    this.rpc.close();
    await this.connection?.close();
  }

  /** Reads, with Compacted and FutureRevision completed with the revision the caller needs. */
  private async range(req: PbRequest, requested: number | undefined): Promise<RangeResponse> {
    try {
      return await this.rpc.unary('Range', req);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Compacted') {
        this.noteCompacted((requested ?? 0) + 1); // etcd's compact revision is past the requested one
        throw compacted(requested ?? 0, await this.learnCompactRevision());
      }
      if (e instanceof StorageError && e.code === 'FutureRevision') {
        const current = await this.currentRevision().catch(() => (requested ?? 1) - 1);
        throw futureRevision(requested ?? 0, current);
      }
      throw e;
    }
  }

  private txn(req: PbRequest): Promise<TxnResponse> {
    return this.rpc.unary('Txn', req);
  }

  /** Compares for "the key is live" and, when given, "its modRevision is the expected one". */
  private expect(k: Buffer, expectedModRevision: number | undefined): PbRequest[] {
    const live = { key: k, target: 'CREATE', result: 'GREATER', create_revision: '0' };
    if (expectedModRevision === undefined) return [live];
    return [live, { key: k, target: 'MOD', result: 'EQUAL', mod_revision: String(expectedModRevision) }];
  }

  /** Why a compare-and-swap transaction failed, from the key read in its failure branch. */
  private writeFailure(key: string, expected: number | undefined, res: TxnResponse): StorageError {
    const cur = res.responses[0]?.response_range?.kvs[0];
    if (!cur) return keyNotFound(key);
    return conflict(key, expected ?? 0, num(cur.mod_revision));
  }

  /**
   * Learns etcd's compact revision when our own record may be stale (another client compacted): a watch
   * from revision 1 is answered at once with the compact revision when there is one.
   */
  private learnCompactRevision(): Promise<number> {
    return new Promise((resolve) => {
      const call = this.rpc.watchStream();
      let done = false;
      const finish = (rev: number) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        call.cancel();
        this.noteCompacted(rev);
        resolve(this.compactRev);
      };
      const timer = setTimeout(() => finish(0), Math.min(this.requestTimeoutMs, 3000));
      call.on('data', (res: WatchResponse) => {
        const rev = num(res.compact_revision);
        if (rev > 0 || res.canceled) finish(rev);
      });
      call.on('error', () => finish(0));
      call.on('end', () => finish(0));
      call.write({ create_request: { key: this.etcdKey(''), start_revision: '1' } });
    });
  }

  private noteCompacted(revision: number): void {
    if (revision > this.compactRev) this.compactRev = revision;
  }

  private etcdKey(key: string): Buffer {
    const k = Buffer.concat([this.prefix, Buffer.from(key)]);
    return k.length > 0 ? k : Buffer.from([0]); // etcd rejects an empty key; "\0" is the first key there is
  }

  /** The end of the range of keys under `prefix` (to the end of the keyspace for an empty one). */
  private rangeEnd(prefix: string): Buffer {
    return prefixEnd(Buffer.concat([this.prefix, Buffer.from(prefix)]));
  }

  private toKv(kv: PbKeyValue): KeyValue {
    return {
      key: kv.key.subarray(this.prefix.length).toString(),
      // A copy: a view would pin the whole gRPC response (a big list) for as long as one value is cached.
      value: new Uint8Array(kv.value),
      createRevision: num(kv.create_revision),
      modRevision: num(kv.mod_revision),
    };
  }

  private toEvent(e: PbEvent): WatchEvent {
    if (!e.kv) throw new StorageError('Unavailable', 'etcd sent a watch event without a key');
    const revision = num(e.kv.mod_revision);
    const prev = e.prev_kv ? this.toKv(e.prev_kv) : undefined;
    if (e.type === 'PUT') {
      const kv = this.toKv(e.kv);
      return prev ? { type: 'PUT', revision, kv, prev } : { type: 'PUT', revision, kv };
    }
    const key = e.kv.key.subarray(this.prefix.length).toString();
    // etcd omits prev_kv only when the previous version was already compacted away.
    return {
      type: 'DELETE',
      revision,
      key,
      prev: prev ?? { key, value: new Uint8Array(), createRevision: 0, modRevision: 0 },
    };
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'etcd backend is closed');
  }
}
