/**
 * The local providers of encryption at rest, writing values in the reference's layouts (after the prefix):
 * - aesgcm:    nonce (12) || ciphertext || tag (16), the storage key as additional authenticated data
 * - aescbc:    iv (16) || ciphertext with PKCS#7 padding (unauthenticated, as in the reference)
 * - secretbox: nonce (24) || XSalsa20-Poly1305 box (tag first, as NaCl writes it)
 * - identity:  the plain bytes, no prefix
 * Node's crypto has no XSalsa20, hence tweetnacl for secretbox.
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomFillSync, type KeyObject } from 'node:crypto';
import nacl from 'tweetnacl';
import { ENCRYPTED_VALUE_PREFIX } from '../api/naming.js';
import { gcmAlgorithm, gcmOpen, gcmSeal, GCM_NONCE_SIZE, type GcmAlgorithm } from './aes-gcm.js';
import type { EncryptionProvider } from './types.js';

/** Where nonces and IVs come from; tests pass a fixed source for known-answer checks. */
export type RandomSource = (size: number) => Uint8Array;

/**
 * Nonces come from a pool filled from the CSPRNG 4 KiB at a time: each call into OpenSSL's generator costs
 * far more than the few bytes a write needs (it was the largest single cost of an aesgcm write). Every byte
 * is handed out once, and an exhausted pool is replaced rather than refilled, so a nonce already handed out
 * never changes under its holder.
 */
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let poolAt = 0;
export const secureRandom: RandomSource = (n) => {
  if (n > POOL_SIZE) return randomFillSync(new Uint8Array(n));
  if (poolAt + n > pool.length) {
    pool = randomFillSync(new Uint8Array(POOL_SIZE));
    poolAt = 0;
  }
  poolAt += n;
  return pool.subarray(poolAt - n, poolAt);
};

const CBC_IV = 16;
const BOX_NONCE = nacl.secretbox.nonceLength;

const encoder = new TextEncoder();

/** `<maker>:enc:<provider>:v1:<key name>:` */
export function providerPrefix(provider: string, keyName: string): Uint8Array {
  return encoder.encode(`${ENCRYPTED_VALUE_PREFIX}${provider}:v1:${keyName}:`);
}

const EMPTY = new Uint8Array(0);

/** `parts` joined in one new buffer. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

export class AesGcmProvider implements EncryptionProvider {
  readonly prefix: Uint8Array;
  private readonly algorithm: GcmAlgorithm;
  /** A KeyObject spares copying the key into every cipher (one per write). */
  private readonly key: KeyObject;

  constructor(readonly name: string, key: Uint8Array, private readonly random: RandomSource = secureRandom) {
    this.prefix = providerPrefix('aesgcm', name);
    if (![16, 24, 32].includes(key.length)) throw new Error(`aesgcm key ${name}: ${key.length} bytes, expected 16, 24 or 32`);
    this.algorithm = gcmAlgorithm(key.length);
    this.key = createSecretKey(key);
  }

  encrypt(plain: Uint8Array, authenticatedData: Uint8Array): Uint8Array {
    return gcmSeal(this.key, this.random(GCM_NONCE_SIZE), plain, authenticatedData, EMPTY, this.algorithm);
  }

  encryptWithPrefix(plain: Uint8Array, authenticatedData: Uint8Array): Uint8Array {
    return gcmSeal(this.key, this.random(GCM_NONCE_SIZE), plain, authenticatedData, this.prefix, this.algorithm);
  }

  decrypt(sealed: Uint8Array, authenticatedData: Uint8Array): Uint8Array {
    return gcmOpen(this.key, sealed, authenticatedData, this.algorithm);
  }
}

export class AesCbcProvider implements EncryptionProvider {
  readonly prefix: Uint8Array;

  constructor(readonly name: string, private readonly key: Uint8Array, private readonly random: RandomSource = secureRandom) {
    this.prefix = providerPrefix('aescbc', name);
    if (key.length !== 32) throw new Error(`aescbc key ${name}: ${key.length} bytes, expected 32`);
  }

  encrypt(plain: Uint8Array): Uint8Array {
    return this.encryptAfter(EMPTY, plain);
  }

  encryptWithPrefix(plain: Uint8Array): Uint8Array {
    return this.encryptAfter(this.prefix, plain);
  }

  /** `head` ‖ iv ‖ ciphertext. */
  private encryptAfter(head: Uint8Array, plain: Uint8Array): Uint8Array {
    const iv = this.random(CBC_IV);
    const cipher = createCipheriv('aes-256-cbc', this.key, iv);
    return concat([head, iv, cipher.update(plain), cipher.final()]);
  }

  decrypt(sealed: Uint8Array): Uint8Array {
    if (sealed.length < CBC_IV * 2) throw new Error('the stored data was shorter than the required size');
    if (sealed.length % CBC_IV !== 0) throw new Error('the stored data is not a multiple of the block size');
    const decipher = createDecipheriv('aes-256-cbc', this.key, sealed.subarray(0, CBC_IV));
    try {
      return concat([decipher.update(sealed.subarray(CBC_IV)), decipher.final()]);
    } catch {
      throw new Error('invalid PKCS7 padding');
    }
  }
}

export class SecretboxProvider implements EncryptionProvider {
  readonly prefix: Uint8Array;

  constructor(readonly name: string, private readonly key: Uint8Array, private readonly random: RandomSource = secureRandom) {
    this.prefix = providerPrefix('secretbox', name);
    if (key.length !== nacl.secretbox.keyLength) throw new Error(`secretbox key ${name}: ${key.length} bytes, expected 32`);
  }

  encrypt(plain: Uint8Array): Uint8Array {
    return this.encryptAfter(EMPTY, plain);
  }

  encryptWithPrefix(plain: Uint8Array): Uint8Array {
    return this.encryptAfter(this.prefix, plain);
  }

  /** `head` ‖ nonce ‖ box. */
  private encryptAfter(head: Uint8Array, plain: Uint8Array): Uint8Array {
    const nonce = this.random(BOX_NONCE);
    return concat([head, nonce, nacl.secretbox(plain, nonce, this.key)]);
  }

  decrypt(sealed: Uint8Array): Uint8Array {
    if (sealed.length < BOX_NONCE + nacl.secretbox.overheadLength) throw new Error('the stored data was shorter than the required size');
    const opened = nacl.secretbox.open(sealed.subarray(BOX_NONCE), sealed.subarray(0, BOX_NONCE), this.key);
    if (!opened) throw new Error('output array was not large enough for encryption or the box could not be opened');
    return opened;
  }
}

/** Stores plain bytes. Reads refuse values that carry the encrypted prefix: those need a key, not a pass. */
export class IdentityProvider implements EncryptionProvider {
  readonly name = 'identity';
  readonly prefix = new Uint8Array(0);

  encrypt(plain: Uint8Array): Uint8Array {
    return plain;
  }

  decrypt(sealed: Uint8Array): Uint8Array {
    if (isEncrypted(sealed)) throw new Error('identity transformer tried to read encrypted data');
    return sealed;
  }
}

const ENCRYPTED_MARK = encoder.encode(ENCRYPTED_VALUE_PREFIX);

/** Whether `value` starts with the encrypted-value prefix (`<maker>:enc:`). */
export function isEncrypted(value: Uint8Array): boolean {
  return startsWith(value, ENCRYPTED_MARK);
}

export function startsWith(value: Uint8Array, prefix: Uint8Array): boolean {
  if (value.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (value[i] !== prefix[i]) return false;
  return true;
}
