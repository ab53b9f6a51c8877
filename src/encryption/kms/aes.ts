/**
 * The data-encryption side of the KMS envelopes, with the reference's byte layouts:
 *  - AES-GCM (the helper shared with the aesgcm provider, ../aes-gcm.ts): 12-byte nonce, then ciphertext
 *    and 16-byte tag; the storage key is the additional data.
 *  - AES-CBC (KMS v1 values written before writes moved to GCM): 16-byte IV, then PKCS#7-padded ciphertext.
 *  - KMS v2 seed: 32 random "info" bytes, then AES-GCM under HKDF-SHA256-Expand(seed, info), so every write
 *    gets its own key while the plugin encrypts only the seed.
 */
import { createDecipheriv, createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { gcmAlgorithm, gcmOpen, gcmSeal, GCM_NONCE_SIZE } from '../aes-gcm.js';

const CBC_BLOCK = 16;
/** Size of a generated DEK or seed, of the HKDF info, and of a derived key. */
export const KEY_SIZE = 32;

/** Seals and opens values with one data key (or one seed). */
export interface DataTransformer {
  seal(plain: Uint8Array, aad: Uint8Array): Uint8Array;
  open(sealed: Uint8Array, aad: Uint8Array): Uint8Array;
}

/** Opens the reference's AES-CBC layout; CBC carries no additional data. */
export function cbcOpen(key: Uint8Array, sealed: Uint8Array): Uint8Array {
  if (key.length !== 32) throw new Error(`an AES-CBC data key must be 32 bytes, not ${key.length}`);
  if (sealed.length < 2 * CBC_BLOCK) throw new Error('the stored data is shorter than an AES-CBC IV and one block');
  if ((sealed.length - CBC_BLOCK) % CBC_BLOCK !== 0) throw new Error('the stored data is not a whole number of AES blocks');
  const decipher = createDecipheriv('aes-256-cbc', key, sealed.subarray(0, CBC_BLOCK));
  decipher.setAutoPadding(false);
  const padded = Buffer.concat([decipher.update(sealed.subarray(CBC_BLOCK)), decipher.final()]);
  const pad = padded[padded.length - 1] as number;
  if (pad === 0 || pad > CBC_BLOCK || padded.subarray(padded.length - pad).some((b) => b !== pad)) {
    throw new Error('AES-CBC padding is invalid (wrong key, or the value was altered)');
  }
  return padded.subarray(0, padded.length - pad);
}

/** A fresh random nonce per write: the DEK encrypts many values (v1 caches it across reads). */
export function gcmKeyTransformer(key: Uint8Array): DataTransformer {
  const algorithm = gcmAlgorithm(key.length);
  const keyObject = createSecretKey(key);
  return {
    seal: (plain, aad) => gcmSeal(keyObject, randomBytes(GCM_NONCE_SIZE), plain, aad, undefined, algorithm),
    open: (sealed, aad) => gcmOpen(keyObject, sealed, aad, algorithm),
  };
}

/** KMS v1 reads: AES-GCM (what it writes), falling back to AES-CBC for values written by older servers. */
export function gcmOrCbcTransformer(key: Uint8Array): DataTransformer {
  const gcm = gcmKeyTransformer(key);
  return {
    seal: gcm.seal,
    open(sealed, aad) {
      try {
        return gcm.open(sealed, aad);
      } catch (gcmError) {
        try {
          return cbcOpen(key, sealed);
        } catch {
          throw gcmError;
        }
      }
    },
  };
}

/** HKDF-Expand with SHA-256 (no extract step: the seed is already uniformly random), one 32-byte block. */
export function hkdfSha256Expand(seed: Uint8Array, info: Uint8Array): Uint8Array {
  return createHmac('sha256', seed).update(info).update(Uint8Array.of(1)).digest();
}

/** The KMS v2 seed scheme: info ‖ nonce ‖ ciphertext ‖ tag, under a key derived from the seed and info. */
export function seedTransformer(seed: Uint8Array): DataTransformer {
  if (seed.length < KEY_SIZE) throw new Error(`a DEK seed must be at least ${KEY_SIZE} bytes, not ${seed.length}`);
  return {
    seal(plain, aad) {
      const fresh = randomBytes(KEY_SIZE + GCM_NONCE_SIZE);
      const info = fresh.subarray(0, KEY_SIZE);
      // The info goes in front of the nonce, in the same buffer.
      return gcmSeal(hkdfSha256Expand(seed, info), fresh.subarray(KEY_SIZE), plain, aad, info);
    },
    open(sealed, aad) {
      if (sealed.length < KEY_SIZE) throw new Error('the stored data is shorter than the key-derivation info');
      return gcmOpen(hkdfSha256Expand(seed, sealed.subarray(0, KEY_SIZE)), sealed.subarray(KEY_SIZE), aad);
    },
  };
}
