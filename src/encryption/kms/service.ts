/**
 * gRPC clients of a KMS plugin on a Unix socket, and the service definitions a plugin serves (shared with
 * the test plugin so both sides use the same messages). Every call has the provider's timeout as deadline.
 */
import * as grpc from '@grpc/grpc-js';
import * as m from './messages.js';

/** The protocol version string the v1 client sends and expects back. */
export const KMS_V1_API_VERSION = 'v1beta1';
/** Status versions a v2 plugin may report. */
export const KMS_V2_API_VERSIONS: readonly string[] = ['v2', 'v2beta1'];

type Unary<Req, Res> = grpc.MethodDefinition<Req, Res>;

function unary<Req, Res>(path: string, req: m.MessageCodec<Req>, res: m.MessageCodec<Res>): Unary<Req, Res> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (v: Req) => Buffer.from(req.encode(v)),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (v: Res) => Buffer.from(res.encode(v)),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

export const KMS_V1_SERVICE = {
  Version: unary('/v1beta1.KeyManagementService/Version', m.v1VersionRequest, m.v1VersionResponse),
  Decrypt: unary('/v1beta1.KeyManagementService/Decrypt', m.v1DecryptRequest, m.v1DecryptResponse),
  Encrypt: unary('/v1beta1.KeyManagementService/Encrypt', m.v1EncryptRequest, m.v1EncryptResponse),
} satisfies grpc.ServiceDefinition;

export const KMS_V2_SERVICE = {
  Status: unary('/v2.KeyManagementService/Status', m.v2StatusRequest, m.v2StatusResponse),
  Decrypt: unary('/v2.KeyManagementService/Decrypt', m.v2DecryptRequest, m.v2DecryptResponse),
  Encrypt: unary('/v2.KeyManagementService/Encrypt', m.v2EncryptRequest, m.v2EncryptResponse),
} satisfies grpc.ServiceDefinition;

/** The gRPC target of a socket path; a leading `@` names a Linux abstract socket. */
export function socketTarget(socketPath: string): string {
  return socketPath.startsWith('@') ? `unix-abstract:${socketPath.slice(1)}` : `unix:${socketPath}`;
}

/** Where a call went and how long it may take, for the error messages. */
export interface CallContext {
  readonly providerName: string;
  readonly socketPath: string;
  readonly timeoutMs: number;
}

/** A plugin call that failed; `code` is the gRPC status code (DEADLINE_EXCEEDED when it did not answer in time). */
export class KmsCallError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
  ) {
    super(message);
  }
}

// A plugin that restarts should be reached again within a second, not after gRPC's default 2-minute backoff.
const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.default_authority': 'localhost',
};

/** A channel to one plugin with deadline-bounded unary calls. */
class PluginChannel {
  private readonly client: grpc.Client;

  constructor(private readonly ctx: CallContext) {
    this.client = new grpc.Client(socketTarget(ctx.socketPath), grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  }

  call<Req, Res>(def: Unary<Req, Res>, request: Req): Promise<Res> {
    const { providerName, socketPath, timeoutMs } = this.ctx;
    const method = def.path.slice(def.path.lastIndexOf('/') + 1);
    return new Promise((resolve, reject) => {
      // Like the reference, a call waits for the plugin to (re)connect, up to the deadline.
      const options: grpc.CallOptions = { deadline: Date.now() + timeoutMs };
      const metadata = new grpc.Metadata({ waitForReady: true });
      this.client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, metadata, options, (err, res) => {
        if (err || res === undefined) {
          const code = err?.code;
          const why =
            code === grpc.status.DEADLINE_EXCEEDED
              ? `no answer within ${timeoutMs}ms`
              : `${code === undefined ? 'error' : (grpc.status[code] ?? code)}: ${err?.details || err?.message || 'empty response'}`;
          reject(new KmsCallError(`KMS provider "${providerName}": ${method} call to the plugin at ${socketPath} failed (${why})`, code));
          return;
        }
        resolve(res);
      });
    });
  }

  close(): void {
    this.client.close();
  }
}

export interface KmsV1Client {
  version(): Promise<m.V1VersionResponse>;
  encrypt(plain: Uint8Array): Promise<Uint8Array>;
  decrypt(cipher: Uint8Array): Promise<Uint8Array>;
  close(): void;
}

/** The v1beta1 client: checks the plugin's API version once, before its first Encrypt or Decrypt. */
export function kmsV1Client(ctx: CallContext): KmsV1Client {
  const channel = new PluginChannel(ctx);
  let versionChecked: Promise<void> | undefined;
  const version = () => channel.call(KMS_V1_SERVICE.Version, { version: KMS_V1_API_VERSION });
  const checkVersion = (): Promise<void> => {
    versionChecked ??= version().then((res) => {
      if (res.version !== KMS_V1_API_VERSION) {
        throw new Error(`KMS provider "${ctx.providerName}": the plugin speaks API version "${res.version}"; only "${KMS_V1_API_VERSION}" is supported`);
      }
    });
    // A failed check is retried by the next call rather than remembered.
    versionChecked.catch(() => (versionChecked = undefined));
    return versionChecked;
  };
  return {
    version,
    async encrypt(plain) {
      await checkVersion();
      return (await channel.call(KMS_V1_SERVICE.Encrypt, { version: KMS_V1_API_VERSION, plain })).cipher;
    },
    async decrypt(cipher) {
      await checkVersion();
      return (await channel.call(KMS_V1_SERVICE.Decrypt, { version: KMS_V1_API_VERSION, cipher })).plain;
    },
    close: () => channel.close(),
  };
}

export interface KmsV2Client {
  status(): Promise<m.V2StatusResponse>;
  encrypt(uid: string, plaintext: Uint8Array): Promise<m.V2EncryptResponse>;
  decrypt(request: m.V2DecryptRequest): Promise<Uint8Array>;
  close(): void;
}

export function kmsV2Client(ctx: CallContext): KmsV2Client {
  const channel = new PluginChannel(ctx);
  return {
    status: () => channel.call(KMS_V2_SERVICE.Status, {}),
    encrypt: (uid, plaintext) => channel.call(KMS_V2_SERVICE.Encrypt, { plaintext, uid }),
    decrypt: async (request) => (await channel.call(KMS_V2_SERVICE.Decrypt, request)).plaintext,
    close: () => channel.close(),
  };
}
