/**
 * KMS v2 envelope encryption with the reference's DEK-seed scheme. The plugin encrypts one random seed;
 * every write derives its own AES-GCM key from that seed (see aes.ts). The seed is replaced when the key id
 * the plugin reports in Status changes, and may be used for writes only while Status keeps confirming it
 * (3 minutes after the last confirmation), so an unreachable plugin stops writes but never reads of values
 * whose seed is cached. Stored value (after the prefix): the protobuf `EncryptedObject`.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EncryptionProvider } from '../types.js';
import { gcmKeyTransformer, KEY_SIZE, seedTransformer, type DataTransformer } from './aes.js';
import { dekCacheKey, encryptedObjectProblem, keyIdProblem } from './envelope-rules.js';
import { HealthProbe } from './health-probe.js';
import { DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED, encryptedObject, type EncryptedObject } from './messages.js';
import { KMS_V2_API_VERSIONS, type KmsV2Client } from './service.js';
import { WireWriter } from './wire.js';

/** The reference's intervals: how long a confirmed seed may encrypt, and how often Status is polled. */
export const WRITE_SEED_TTL_MS = 3 * 60_000;
export const STATUS_POLL_HEALTHY_MS = 60_000;
export const STATUS_POLL_UNHEALTHY_MS = 10_000;
/** A decrypted seed or DEK is forgotten after this long without use. */
export const DEK_CACHE_TTL_MS = 60 * 60_000;

/** What writes use: the seed's transformer and the envelope fields every value written with it shares. */
interface WriteState {
  readonly transformer: DataTransformer;
  readonly keyID: string;
  /** Fields 2 to 5 of the envelope, encoded once; each write puts its encrypted data (field 1) before them. */
  readonly envelopeTail: Uint8Array;
  readonly cacheKey: string;
  expiresAt: number;
}

export interface KmsV2Options {
  readonly name: string;
  readonly prefix: Uint8Array;
  readonly log: (msg: string) => void;
  readonly now?: () => number;
}

/** How key ids appear in messages and logs: hashed, as the reference does, since plugins may put anything there. */
export function keyIdHash(keyID: string): string {
  return keyID ? `sha256:${createHash('sha256').update(keyID).digest('hex')}` : '';
}

export class KmsV2Provider implements EncryptionProvider {
  readonly name: string;
  readonly prefix: Uint8Array;
  private readonly log: (msg: string) => void;
  private readonly now: () => number;
  private readonly probe: HealthProbe;
  private state: WriteState | undefined;
  private lastStatusError: string | undefined;
  private readonly cache = new Map<string, { transformer: DataTransformer; usedAt: number }>();
  private readonly pendingDecrypts = new Map<string, Promise<DataTransformer>>();
  private lastSweep = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly client: KmsV2Client,
    opts: KmsV2Options,
  ) {
    this.name = opts.name;
    this.prefix = opts.prefix;
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.probe = new HealthProbe(() => this.statusAndRotate(), this.now);
  }

  /** The key id new values are written with, once Status has succeeded. */
  get currentKeyId(): string | undefined {
    return this.state?.keyID;
  }

  /** Runs the first Status (and seed generation), then keeps polling in the background. */
  async start(): Promise<void> {
    await this.poll();
  }

  private async poll(): Promise<void> {
    let healthy = true;
    try {
      await this.probe.check();
    } catch (e) {
      healthy = false;
      this.log(`${(e as Error).message}`);
    }
    if (this.closed) return;
    this.timer = setTimeout(() => void this.poll(), healthy ? STATUS_POLL_HEALTHY_MS : STATUS_POLL_UNHEALTHY_MS);
    this.timer.unref();
  }

  healthCheck(): Promise<void> {
    return this.probe.check();
  }

  private async statusAndRotate(): Promise<void> {
    try {
      const status = await this.client.status();
      const problems: string[] = [];
      if (status.healthz !== 'ok') problems.push(`the plugin reports healthz "${status.healthz}" instead of "ok"`);
      if (!KMS_V2_API_VERSIONS.includes(status.version)) problems.push(`the plugin speaks API version "${status.version}", expected "v2"`);
      const keyProblem = keyIdProblem(status.keyId);
      if (keyProblem) problems.push(`Status returned an unusable key ID: ${keyProblem}`);
      else {
        // Like the reference, a valid key id is acted on even when the plugin reports itself unhealthy.
        const rotationProblem = await this.rotateIfKeyChanged(status.keyId).then(
          () => undefined,
          (e: Error) => e.message,
        );
        if (rotationProblem) problems.push(rotationProblem);
      }
      if (problems.length > 0) throw new Error(problems.join('; '));
      this.lastStatusError = undefined;
    } catch (e) {
      const message = (e as Error).message;
      this.lastStatusError = message;
      throw new Error(message.startsWith('KMS provider') ? message : `KMS provider "${this.name}": ${message}`);
    }
  }

  /** Extends the current seed when Status confirms its key id, otherwise asks the plugin to encrypt a new one. */
  private async rotateIfKeyChanged(statusKeyId: string): Promise<void> {
    const expiresAt = this.now() + WRITE_SEED_TTL_MS;
    if (this.state && this.state.keyID === statusKeyId) {
      this.state.expiresAt = expiresAt;
      return;
    }
    const seed = randomBytes(KEY_SIZE);
    const res = await this.client.encrypt(randomUUID(), seed);
    const template: EncryptedObject = {
      encryptedData: new Uint8Array(0),
      keyID: res.keyId,
      encryptedDEKSource: res.ciphertext,
      annotations: res.annotations,
      encryptedDEKSourceType: DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED,
    };
    const problem = encryptedObjectProblem(template, false);
    if (problem) throw new Error(`the plugin's Encrypt answer for a new DEK seed is unusable: ${problem}`);
    if (res.keyId !== statusKeyId) {
      throw new Error(`the plugin encrypted the new DEK seed with key ID ${keyIdHash(res.keyId)} while Status reports ${keyIdHash(statusKeyId)}; the current seed stays in use`);
    }
    const transformer = seedTransformer(seed);
    const cacheKey = dekCacheKey(template);
    const previous = this.state?.keyID;
    this.state = { transformer, keyID: res.keyId, envelopeTail: encryptedObject.encode(template), cacheKey, expiresAt };
    this.cacheSet(cacheKey, transformer);
    this.log(`KMS provider "${this.name}": new DEK seed for key ID ${keyIdHash(res.keyId)}${previous === undefined ? '' : ` (was ${keyIdHash(previous)})`}`);
  }

  encrypt(plain: Uint8Array, authenticatedData: Uint8Array): Uint8Array {
    const s = this.writeState();
    // Keeps the current seed in the read cache, so values just written never cost a Decrypt call.
    this.cacheSet(s.cacheKey, s.transformer);
    const data = s.transformer.seal(plain, authenticatedData);
    const head = new WireWriter().bytes(1, data).finish();
    const out = new Uint8Array(head.length + s.envelopeTail.length);
    out.set(head);
    out.set(s.envelopeTail, head.length);
    return out;
  }

  private writeState(): WriteState {
    const s = this.state;
    const why = this.lastStatusError ? ` (last Status problem: ${this.lastStatusError})` : '';
    if (!s) throw new Error(`KMS provider "${this.name}" cannot encrypt: no DEK seed yet, the plugin's Status has not succeeded${why}`);
    if (this.now() > s.expiresAt) {
      throw new Error(
        `KMS provider "${this.name}" cannot encrypt: the DEK seed for key ID ${keyIdHash(s.keyID)} expired at ${new Date(s.expiresAt).toISOString()} because the plugin has not confirmed its key since${why}`,
      );
    }
    return s;
  }

  async decrypt(sealed: Uint8Array, authenticatedData: Uint8Array): Promise<Uint8Array> {
    let o: EncryptedObject;
    try {
      o = encryptedObject.decode(sealed);
    } catch (e) {
      throw new Error(`KMS provider "${this.name}": the stored value is not a KMS v2 envelope: ${(e as Error).message}`);
    }
    const problem = encryptedObjectProblem(o);
    if (problem) throw new Error(`KMS provider "${this.name}": the stored KMS v2 envelope is invalid: ${problem}`);
    // As in the reference, nothing is read before the plugin has answered Status once.
    if (!this.state) {
      const why = this.lastStatusError ? `: ${this.lastStatusError}` : '';
      throw new Error(`KMS provider "${this.name}" cannot decrypt yet: the plugin's Status has not succeeded${why}`);
    }
    const key = dekCacheKey(o);
    const transformer = this.cacheGet(key) ?? (await this.decryptDek(key, o));
    try {
      return transformer.open(o.encryptedData, authenticatedData);
    } catch (e) {
      throw new Error(`KMS provider "${this.name}": ${(e as Error).message}`);
    }
  }

  /** One Decrypt call per DEK at a time, however many reads of values sealed with it arrive together. */
  private decryptDek(key: string, o: EncryptedObject): Promise<DataTransformer> {
    let pending = this.pendingDecrypts.get(key);
    if (!pending) {
      const request = { ciphertext: Uint8Array.prototype.slice.call(o.encryptedDEKSource), uid: randomUUID(), keyId: o.keyID, annotations: copyAnnotations(o.annotations) };
      const seeded = o.encryptedDEKSourceType === DEK_SOURCE_HKDF_SHA256_XNONCE_AES_GCM_SEED;
      pending = this.client
        .decrypt(request)
        .then((plain) => {
          let transformer: DataTransformer;
          try {
            transformer = seeded ? seedTransformer(plain) : gcmKeyTransformer(plain);
          } catch (e) {
            throw new Error(`KMS provider "${this.name}": the plugin returned an unusable ${seeded ? 'seed' : 'DEK'}: ${(e as Error).message}`);
          }
          this.cacheSet(key, transformer);
          return transformer;
        })
        .finally(() => this.pendingDecrypts.delete(key));
      this.pendingDecrypts.set(key, pending);
    }
    return pending;
  }

  private cacheGet(key: string): DataTransformer | undefined {
    const entry = this.cache.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (now - entry.usedAt > DEK_CACHE_TTL_MS) {
      this.cache.delete(key);
      return undefined;
    }
    entry.usedAt = now;
    return entry.transformer;
  }

  private cacheSet(key: string, transformer: DataTransformer): void {
    const now = this.now();
    const entry = this.cache.get(key);
    if (entry) entry.usedAt = now;
    else this.cache.set(key, { transformer, usedAt: now });
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now;
      for (const [k, e] of this.cache) if (now - e.usedAt > DEK_CACHE_TTL_MS) this.cache.delete(k);
    }
  }

  /** Decrypted seeds and DEKs held (for tests and diagnostics). */
  get cachedKeys(): number {
    return this.cache.size;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.client.close();
  }
}

function copyAnnotations(a: Record<string, Uint8Array>): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(a)) out[k] = Uint8Array.prototype.slice.call(v);
  return out;
}
