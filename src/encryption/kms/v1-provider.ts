/**
 * KMS v1 envelope encryption as the reference does it: every write gets a fresh 32-byte DEK that the plugin
 * encrypts; the value is a 2-byte big-endian length of the encrypted DEK, the encrypted DEK, then the data
 * sealed with AES-GCM under the DEK (AES-CBC is still read). Decrypted DEKs are cached by their encrypted
 * form, so reads of values written with the same DEK reach the plugin once.
 */
import { randomBytes } from 'node:crypto';
import type { EncryptionProvider } from '../types.js';
import { gcmOrCbcTransformer, KEY_SIZE, type DataTransformer } from './aes.js';
import { HealthProbe } from './health-probe.js';
import { LruCache } from './lru.js';
import type { KmsV1Client } from './service.js';

const MAX_ENCRYPTED_DEK = 0xffff;

export interface KmsV1Options {
  readonly name: string;
  readonly prefix: Uint8Array;
  /** DEK cache entries; 0 or less disables the cache. */
  readonly cacheSize: number;
}

export class KmsV1Provider implements EncryptionProvider {
  readonly name: string;
  readonly prefix: Uint8Array;
  private readonly cache: LruCache<DataTransformer> | undefined;
  private readonly probe: HealthProbe;

  constructor(
    private readonly client: KmsV1Client,
    opts: KmsV1Options,
  ) {
    this.name = opts.name;
    this.prefix = opts.prefix;
    this.cache = opts.cacheSize > 0 ? new LruCache(opts.cacheSize) : undefined;
    this.probe = new HealthProbe(() => this.ping());
  }

  async encrypt(plain: Uint8Array, authenticatedData: Uint8Array): Promise<Uint8Array> {
    const dek = randomBytes(KEY_SIZE);
    const encryptedDek = await this.client.encrypt(dek);
    if (encryptedDek.length === 0 || encryptedDek.length > MAX_ENCRYPTED_DEK) {
      throw new Error(`KMS provider "${this.name}": the plugin returned an encrypted DEK of ${encryptedDek.length} bytes (must be 1 to ${MAX_ENCRYPTED_DEK})`);
    }
    const transformer = gcmOrCbcTransformer(dek);
    this.cache?.set(Buffer.from(encryptedDek).toString('latin1'), transformer);
    const sealed = transformer.seal(plain, authenticatedData);
    const out = new Uint8Array(2 + encryptedDek.length + sealed.length);
    out[0] = encryptedDek.length >> 8;
    out[1] = encryptedDek.length & 0xff;
    out.set(encryptedDek, 2);
    out.set(sealed, 2 + encryptedDek.length);
    return out;
  }

  async decrypt(sealed: Uint8Array, authenticatedData: Uint8Array): Promise<Uint8Array> {
    if (sealed.length < 2) throw new Error(`KMS provider "${this.name}": the stored value is too short to hold the encrypted DEK length`);
    const dekLength = ((sealed[0] as number) << 8) | (sealed[1] as number);
    if (dekLength === 0 || sealed.length < 2 + dekLength) {
      throw new Error(`KMS provider "${this.name}": the stored value is shorter than the encrypted DEK length it declares (${dekLength} bytes)`);
    }
    const encryptedDek = sealed.subarray(2, 2 + dekLength);
    const cacheKey = this.cache ? Buffer.from(encryptedDek).toString('latin1') : '';
    let transformer = this.cache?.get(cacheKey);
    if (!transformer) {
      const dek = await this.client.decrypt(Uint8Array.prototype.slice.call(encryptedDek));
      try {
        transformer = gcmOrCbcTransformer(dek);
      } catch (e) {
        throw new Error(`KMS provider "${this.name}": the plugin returned an unusable DEK: ${(e as Error).message}`);
      }
      this.cache?.set(cacheKey, transformer);
    }
    try {
      return transformer.open(sealed.subarray(2 + dekLength), authenticatedData);
    } catch (e) {
      throw new Error(`KMS provider "${this.name}": ${(e as Error).message}`);
    }
  }

  /** The reference's v1 health check: the plugin must encrypt and then decrypt a short value. */
  healthCheck(): Promise<void> {
    return this.probe.check();
  }

  private async ping(): Promise<void> {
    const sample = new TextEncoder().encode('ping');
    const cipher = await this.client.encrypt(sample);
    const back = await this.client.decrypt(cipher);
    if (Buffer.compare(Buffer.from(back), Buffer.from(sample)) !== 0) {
      throw new Error(`KMS provider "${this.name}": the plugin decrypted its own ciphertext to different bytes`);
    }
  }

  close(): void {
    this.client.close();
  }
}
