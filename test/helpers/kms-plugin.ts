/**
 * A small KMS plugin for tests and for trying KMS locally: it serves both the v2 and the v1beta1 plugin
 * APIs over gRPC on a Unix socket and encrypts DEKs with AES-256-GCM under local keys. Tests can rotate
 * the key, stop and start it (an outage), make it misbehave, and count its calls.
 *
 * Ciphertext it hands out: 1-byte key id length, key id, 12-byte nonce, AES-GCM ciphertext and tag (the
 * key id is the additional data), so it can decrypt values of every key it ever had.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { KMS_V1_API_VERSION, KMS_V1_SERVICE, KMS_V2_SERVICE, socketTarget } from '../../src/encryption/kms/index.js';

export interface KmsPluginCalls {
  status: number;
  version: number;
  encrypt: number;
  decrypt: number;
}

/** Ways to make the plugin misbehave; all default to a well-behaved plugin. */
export interface KmsPluginBehaviour {
  /** Status `healthz` (v2). */
  healthz: string;
  /** Status `version` (v2). */
  statusVersion: string;
  /** Version answer (v1). */
  v1Version: string;
  /** When set, Status reports this key id instead of the current one. */
  statusKeyId: string | undefined;
  /** When set, Encrypt answers with this key id instead of the current one. */
  encryptKeyId: string | undefined;
  /** Annotations every v2 Encrypt answer carries. */
  annotations: Record<string, Uint8Array>;
  /** Every call waits this long before answering (to outlast a client's timeout). */
  delayMs: number;
}

export interface KmsPlugin {
  readonly socketPath: string;
  /** The `endpoint` an EncryptionConfiguration names: `unix://<socket path>`. */
  readonly endpoint: string;
  readonly calls: KmsPluginCalls;
  readonly behaviour: KmsPluginBehaviour;
  /** The key id new DEKs are encrypted with. */
  readonly keyId: string;
  /** Switches to a new local key (old keys keep decrypting) and returns its id. */
  rotateKey(): string;
  resetCalls(): void;
  /** Stops serving and removes the socket, as a crashed plugin would. */
  stop(): Promise<void>;
  /** Serves again on the same socket with the same keys. */
  start(): Promise<void>;
  /** Stops it and removes its temporary directory. */
  close(): Promise<void>;
}

export interface KmsPluginOptions {
  /** Socket path; a fresh temporary directory holds `kms.sock` when unset. */
  socketPath?: string;
  /** The first key (32 bytes); random when unset. Its id is derived from its hash, so a saved key keeps its id. */
  key?: Uint8Array;
}

function grpcError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

export async function startKmsPlugin(opts: KmsPluginOptions = {}): Promise<KmsPlugin> {
  const dir = opts.socketPath ? undefined : await mkdtemp(join(tmpdir(), 'orch-kms-'));
  const socketPath = opts.socketPath ?? join(dir as string, 'kms.sock');
  const keys = new Map<string, Buffer>();
  const firstKey = Buffer.from(opts.key ?? randomBytes(32));
  let keyId = `key-${createHash('sha256').update(firstKey).digest('hex').slice(0, 12)}`;
  keys.set(keyId, firstKey);
  const calls: KmsPluginCalls = { status: 0, version: 0, encrypt: 0, decrypt: 0 };
  const behaviour: KmsPluginBehaviour = { healthz: 'ok', statusVersion: 'v2', v1Version: KMS_V1_API_VERSION, statusKeyId: undefined, encryptKeyId: undefined, annotations: {}, delayMs: 0 };

  const seal = (plain: Uint8Array): Uint8Array => {
    const id = Buffer.from(keyId);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keys.get(keyId) as Buffer, nonce);
    cipher.setAAD(id);
    return Buffer.concat([Uint8Array.of(id.length), id, nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  };
  const open = (sealed: Uint8Array, expectedKeyId?: string): Uint8Array => {
    const b = Buffer.from(sealed);
    const idLength = b[0] ?? 0;
    const id = b.subarray(1, 1 + idLength).toString();
    const key = keys.get(id);
    if (!key || b.length < 1 + idLength + 28) throw grpcError(grpc.status.INVALID_ARGUMENT, 'ciphertext was not produced by this plugin');
    if (expectedKeyId !== undefined && expectedKeyId !== id) throw grpcError(grpc.status.INVALID_ARGUMENT, `ciphertext belongs to key ${id}, not ${expectedKeyId}`);
    const nonce = b.subarray(1 + idLength, 13 + idLength);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(b.subarray(b.length - 16));
    try {
      return Buffer.concat([decipher.update(b.subarray(13 + idLength, b.length - 16)), decipher.final()]);
    } catch {
      throw grpcError(grpc.status.INVALID_ARGUMENT, 'ciphertext failed authentication');
    }
  };

  /** Wraps a handler: counts the call, waits the configured delay, turns throws into gRPC errors. */
  function handler<Req, Res>(count: keyof KmsPluginCalls, answer: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      calls[count]++;
      const reply = () => {
        try {
          callback(null, answer(call.request));
        } catch (e) {
          callback(e as grpc.ServiceError);
        }
      };
      if (behaviour.delayMs > 0) setTimeout(reply, behaviour.delayMs);
      else reply();
    };
  }

  let server: grpc.Server | undefined;
  const start = async (): Promise<void> => {
    if (server) return;
    await rm(socketPath, { force: true });
    const s = new grpc.Server();
    s.addService(KMS_V2_SERVICE, {
      Status: handler('status', () => ({ version: behaviour.statusVersion, healthz: behaviour.healthz, keyId: behaviour.statusKeyId ?? keyId })),
      Encrypt: handler('encrypt', (req: { plaintext: Uint8Array }) => ({ ciphertext: seal(req.plaintext), keyId: behaviour.encryptKeyId ?? keyId, annotations: behaviour.annotations })),
      Decrypt: handler('decrypt', (req: { ciphertext: Uint8Array; keyId: string }) => ({ plaintext: open(req.ciphertext, req.keyId) })),
    });
    s.addService(KMS_V1_SERVICE, {
      Version: handler('version', () => ({ version: behaviour.v1Version, runtimeName: 'orch-test-kms', runtimeVersion: '0.1.0' })),
      Encrypt: handler('encrypt', (req: { plain: Uint8Array }) => ({ cipher: seal(req.plain) })),
      Decrypt: handler('decrypt', (req: { cipher: Uint8Array }) => ({ plain: open(req.cipher) })),
    });
    await new Promise<void>((resolve, reject) => s.bindAsync(socketTarget(socketPath), grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (!s) return;
    s.forceShutdown();
    await rm(socketPath, { force: true });
  };

  await start();
  return {
    socketPath,
    endpoint: `unix://${socketPath}`,
    calls,
    behaviour,
    get keyId() {
      return keyId;
    },
    rotateKey() {
      const key = randomBytes(32);
      keyId = `key-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
      keys.set(keyId, key);
      return keyId;
    },
    resetCalls() {
      calls.status = calls.version = calls.encrypt = calls.decrypt = 0;
    },
    stop,
    start,
    async close() {
      await stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
