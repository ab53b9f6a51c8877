/**
 * The provider seam of encryption at rest. A provider turns a stored object's bytes into sealed bytes and
 * back; the storage wrapper adds and strips `prefix`, so providers never see it.
 */
import type { KmsProviderConfig } from '../config/encryption.js';

export interface EncryptionProvider {
  /** The provider entry's name as configured (the key name for aesgcm, aescbc and secretbox; the plugin name for kms). */
  readonly name: string;
  /** What every value this provider writes starts with, e.g. `orch:enc:aesgcm:v1:key1:`. */
  readonly prefix: Uint8Array;
  /** Seals `plain`; `authenticatedData` (the storage key) binds the value to where it is stored. */
  encrypt(plain: Uint8Array, authenticatedData: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /** Opens `sealed` (the stored value without the prefix); throws when it is not authentic. */
  decrypt(sealed: Uint8Array, authenticatedData: Uint8Array): Uint8Array | Promise<Uint8Array>;
  /**
   * Local providers: the whole stored value, `prefix` ‖ `encrypt(plain, authenticatedData)`, built in one
   * buffer (the wrapper would otherwise copy the sealed bytes once more to put the prefix in front).
   */
  encryptWithPrefix?(plain: Uint8Array, authenticatedData: Uint8Array): Uint8Array;
  /** For providers with a remote part (KMS): rejects with the reason when it is not usable. */
  healthCheck?(): Promise<void>;
  /** Releases connections and timers. */
  close?(): void;
}

/** A `kms` provider entry after validation (the configuration loader fills defaults). */
export type { KmsProviderConfig };

/**
 * Builds the provider for one kms entry (another module owns the gRPC client). Throws an Error for
 * start-up failures; the configuration loader prefixes it with the file and field path.
 */
export type KmsProviderFactory = (config: KmsProviderConfig) => EncryptionProvider | Promise<EncryptionProvider>;
