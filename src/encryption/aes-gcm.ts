/**
 * AES-GCM in the reference's layout, shared by the aesgcm provider and the KMS envelopes:
 * nonce (12) ‖ ciphertext ‖ tag (16), with the storage key as additional authenticated data.
 *
 * Sealing writes into one buffer, optionally behind a `head` (the provider prefix): a write then costs one
 * copy of the ciphertext, not one per join. Node has no cipher object that can be re-keyed with a new nonce,
 * so each call sets up its own; that set-up is most of the cost for values of a few KiB.
 */
import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto';

export const GCM_NONCE_SIZE = 12;
export const GCM_TAG_SIZE = 16;

export type GcmAlgorithm = 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm';
/** Raw key bytes, or a KeyObject (spares copying the key into every cipher). */
export type GcmKey = Uint8Array | KeyObject;

const EMPTY = new Uint8Array(0);
const OPTIONS = { authTagLength: GCM_TAG_SIZE } as const;

/** The cipher for a key of `size` bytes; any size but 16, 24 or 32 is refused. */
export function gcmAlgorithm(size: number): GcmAlgorithm {
  if (size === 16) return 'aes-128-gcm';
  if (size === 24) return 'aes-192-gcm';
  if (size === 32) return 'aes-256-gcm';
  throw new Error(`an AES-GCM key must be 16, 24 or 32 bytes, not ${size}`);
}

function algorithmOf(key: GcmKey): GcmAlgorithm {
  return gcmAlgorithm(key instanceof Uint8Array ? key.length : (key.symmetricKeySize ?? 0));
}

/** `head` ‖ nonce ‖ ciphertext ‖ tag, in one new buffer. */
export function gcmSeal(key: GcmKey, nonce: Uint8Array, plain: Uint8Array, aad: Uint8Array, head: Uint8Array = EMPTY, algorithm = algorithmOf(key)): Buffer {
  if (nonce.length !== GCM_NONCE_SIZE) throw new Error(`an AES-GCM nonce must be ${GCM_NONCE_SIZE} bytes, not ${nonce.length}`);
  const cipher = createCipheriv(algorithm, key, nonce, OPTIONS);
  cipher.setAAD(aad);
  const body = cipher.update(plain);
  cipher.final();
  const at = head.length + GCM_NONCE_SIZE;
  const out = Buffer.allocUnsafe(at + body.length + GCM_TAG_SIZE);
  out.set(head, 0);
  out.set(nonce, head.length);
  out.set(body, at);
  out.set(cipher.getAuthTag(), at + body.length);
  return out;
}

/** The plain bytes of nonce ‖ ciphertext ‖ tag; throws when the value is too short or not authentic. */
export function gcmOpen(key: GcmKey, sealed: Uint8Array, aad: Uint8Array, algorithm = algorithmOf(key)): Buffer {
  if (sealed.length < GCM_NONCE_SIZE + GCM_TAG_SIZE) throw new Error('the stored data was shorter than the required size');
  const decipher = createDecipheriv(algorithm, key, sealed.subarray(0, GCM_NONCE_SIZE), OPTIONS);
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - GCM_TAG_SIZE));
  const body = decipher.update(sealed.subarray(GCM_NONCE_SIZE, sealed.length - GCM_TAG_SIZE));
  try {
    decipher.final();
  } catch {
    // The reference's wording; the cause (wrong key, altered value, value moved to another key) is not knowable.
    throw new Error('message authentication failed');
  }
  return body;
}
