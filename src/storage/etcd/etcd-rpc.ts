import { isIPv4, isIPv6 } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { StorageError } from '../errors.js';

/** Decoded etcd messages, as proto-loader yields them (keepCase, int64 as decimal strings, bytes as Buffer). */
export interface PbHeader {
  revision: string;
}
export interface PbKeyValue {
  key: Buffer;
  create_revision: string;
  mod_revision: string;
  version: string;
  value: Buffer;
  lease: string;
}
export interface PbEvent {
  type: 'PUT' | 'DELETE';
  kv: PbKeyValue | null;
  prev_kv: PbKeyValue | null;
}
export interface RangeResponse {
  header: PbHeader;
  kvs: PbKeyValue[];
  more: boolean;
  count: string;
}
export interface TxnResponse {
  header: PbHeader;
  succeeded: boolean;
  responses: {
    response_range: RangeResponse | null;
    response_put: { prev_kv: PbKeyValue | null } | null;
    response_delete_range: { prev_kvs: PbKeyValue[] } | null;
  }[];
}
export interface WatchResponse {
  header: PbHeader;
  watch_id: string;
  created: boolean;
  canceled: boolean;
  compact_revision: string;
  cancel_reason: string;
  events: PbEvent[];
}
/** Requests are plain objects checked by protobufjs on encode; int64 fields take decimal strings. */
export type PbRequest = Record<string, unknown>;
export type WatchCall = grpc.ClientDuplexStream<PbRequest, WatchResponse>;

interface UnaryMethods {
  Range: RangeResponse;
  Put: { header: PbHeader };
  DeleteRange: { header: PbHeader };
  Txn: TxnResponse;
  Compact: { header: PbHeader };
}

let services: protoLoader.PackageDefinition | undefined;
function loadServices(): protoLoader.PackageDefinition {
  services ??= protoLoader.loadSync(fileURLToPath(new URL('./etcd.proto', import.meta.url)), {
    keepCase: true,
    longs: String, // lease IDs use all 64 bits; revisions are converted with num()
    enums: String,
    bytes: Buffer,
    defaults: true,
    oneofs: true,
  });
  return services;
}

function method(service: string, name: string): protoLoader.MethodDefinition<PbRequest, unknown> {
  const svc = loadServices()[`etcdserverpb.${service}`] as protoLoader.ServiceDefinition | undefined;
  const m = svc?.[name];
  if (!m) throw new StorageError('Unavailable', `etcd.proto has no ${service}.${name}`);
  return m as protoLoader.MethodDefinition<PbRequest, unknown>;
}

/** An int64 from etcd as a JS number; revisions are far below 2^53, anything else is a corrupt answer. */
export function num(v: string | number | null | undefined): number {
  const n = Number(v ?? 0);
  if (!Number.isSafeInteger(n)) throw new StorageError('Unavailable', `etcd returned an out-of-range number ${v}`);
  return n;
}

/** Maps whatever a gRPC call failed with onto a StorageError; Compacted/FutureRevision details are filled in later. */
export function toStorageError(e: unknown, what: string): StorageError {
  if (e instanceof StorageError) return e;
  const err = e as Partial<grpc.ServiceError>;
  const msg = err.details || err.message || String(e);
  if (msg.includes('required revision has been compacted')) {
    return new StorageError('Compacted', `${what}: ${msg}`, { cause: e });
  }
  if (msg.includes('required revision is a future revision')) {
    return new StorageError('FutureRevision', `${what}: ${msg}`, { cause: e });
  }
  // etcd reports its own request deadline as "context deadline exceeded" under another status code.
  if (err.code === grpc.status.DEADLINE_EXCEEDED || msg.includes('request timed out') || msg.includes('deadline exceeded')) {
    return new StorageError('Timeout', `${what}: etcd did not answer in time (${msg})`, { cause: e });
  }
  return new StorageError('Unavailable', `${what}: ${msg}`, { cause: e });
}

const MAX_READ_ATTEMPTS = 5;
const READ_RETRY_DELAY_MS = 50;

/** A read failed because its connection went away (the member stopped), not because etcd refused it. */
export function retryableRead(e: unknown): boolean {
  return (e as Partial<grpc.ServiceError> | undefined)?.code === grpc.status.UNAVAILABLE;
}

/** Turns `http://host:port` endpoints into one gRPC target; several endpoints must be IP literals. */
function target(endpoints: string[]): { target: string; tls: boolean } {
  const urls = endpoints.map((e) => {
    try {
      return new URL(e.includes('://') ? e : `http://${e}`);
    } catch {
      throw new StorageError('Unavailable', `invalid etcd endpoint ${JSON.stringify(e)}`);
    }
  });
  if (urls.length === 0) throw new StorageError('Unavailable', 'no etcd endpoints configured');
  const tls = urls.some((u) => u.protocol === 'https:');
  const hostPort = (u: URL) => `${u.hostname}:${u.port || '2379'}`; // URL keeps IPv6 brackets in hostname
  if (urls.length === 1) return { target: hostPort(urls[0] as URL), tls };
  const hosts = urls.map((u) => u.hostname.replace(/^\[|\]$/g, ''));
  // pick_first over a static address list gives failover between members.
  if (hosts.every((h) => isIPv4(h))) return { target: `ipv4:${urls.map(hostPort).join(',')}`, tls };
  if (hosts.every((h) => isIPv6(h))) return { target: `ipv6:${urls.map(hostPort).join(',')}`, tls };
  throw new StorageError('Unavailable', 'several etcd endpoints must all be IPv4 or all IPv6 addresses');
}

/** One gRPC channel to etcd with typed unary calls (bounded by a deadline) and raw watch streams. */
export class EtcdRpc {
  private readonly client: grpc.Client;

  constructor(
    endpoints: string[],
    private readonly requestTimeoutMs: number,
    channelOptions: grpc.ChannelOptions = {},
  ) {
    const t = target(endpoints);
    const creds = t.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
    this.client = new grpc.Client(t.target, creds, {
      // Our own connection: closing this backend must really close it, and peers must not share it.
      'grpc.use_local_subchannel_pool': 1,
      // Reconnect quickly after an etcd restart instead of grpc's default backoff of up to two minutes.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2000,
      // Notice a silently dead connection under an open watch stream.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.max_receive_message_length': -1, // large lists
      ...channelOptions,
    });
  }

  /**
   * A unary KV call. waitForReady lets a call made just after a reconnect wait for the channel instead of
   * failing at once; the deadline bounds that wait, so an etcd that stays down yields Timeout. A read that
   * lost its member (UNAVAILABLE) is sent again, on whichever member the channel reaches next, within the
   * same deadline; a write is not, because it may have been applied before the connection broke.
   */
  async unary<M extends keyof UnaryMethods>(name: M, req: PbRequest, timeoutMs = this.requestTimeoutMs): Promise<UnaryMethods[M]> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.unaryOnce(name, req, deadline);
      } catch (e) {
        const retry = name === 'Range' && retryableRead(e) && attempt < MAX_READ_ATTEMPTS && Date.now() + READ_RETRY_DELAY_MS < deadline;
        if (!retry) throw toStorageError(e, `etcd ${name}`);
        await new Promise((r) => setTimeout(r, READ_RETRY_DELAY_MS));
      }
    }
  }

  private unaryOnce<M extends keyof UnaryMethods>(name: M, req: PbRequest, deadline: number): Promise<UnaryMethods[M]> {
    const m = method('KV', name);
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        req,
        new grpc.Metadata({ waitForReady: true }),
        { deadline },
        (err, res) => {
          if (err || res === undefined) reject(err ?? new Error('empty response'));
          else resolve(res as UnaryMethods[M]);
        },
      );
    });
  }

  /** A new Watch stream. No deadline (it lives as long as the watch) and no waitForReady: callers retry. */
  watchStream(): WatchCall {
    const m = method('Watch', 'Watch');
    return this.client.makeBidiStreamRequest(m.path, m.requestSerialize, m.responseDeserialize) as WatchCall;
  }

  /** Whether the channel holds a live connection to some member right now. */
  connected(): boolean {
    return this.client.getChannel().getConnectivityState(false) === grpc.connectivityState.READY;
  }

  close(): void {
    this.client.close();
  }
}

/** The end of the key range holding every key that starts with `prefix` (etcd's "prefix + 1"). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // all 0xff (or empty): the range runs to the end of the keyspace
}
