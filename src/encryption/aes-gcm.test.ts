import assert from 'node:assert/strict';
import { createCipheriv, createSecretKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { gcmOpen, gcmSeal } from './aes-gcm.js';
import { AesCbcProvider, AesGcmProvider, SecretboxProvider } from './providers.js';
import type { EncryptionProvider } from './types.js';

const enc = (s: string) => new TextEncoder().encode(s);
const AAD = enc('/registry/core/secrets/ns/s1');
const NONCE = new Uint8Array(12).fill(3);
const PLAIN = enc('{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}');

/** The layout built the long way, straight from node's cipher: nonce ‖ ciphertext ‖ tag. */
function expectedSeal(key: Uint8Array, nonce: Uint8Array, plain: Uint8Array, aad: Uint8Array): Buffer {
  const c = createCipheriv(`aes-${key.length * 8}-gcm` as 'aes-256-gcm', key, nonce);
  c.setAAD(aad);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

describe('spec 2.12: the shared AES-GCM helper', () => {
  for (const size of [16, 24, 32]) {
    it(`reference behaviour: a ${size}-byte key seals as nonce ‖ ciphertext ‖ tag behind the head, and opens again`, () => {
      const key = new Uint8Array(size).fill(5);
      const head = enc('orch-head:');
      const sealed = gcmSeal(key, NONCE, PLAIN, AAD, head);
      assert.deepEqual(sealed.subarray(0, head.length), Buffer.from(head));
      assert.deepEqual(sealed.subarray(head.length), expectedSeal(key, NONCE, PLAIN, AAD));
      // A KeyObject and raw bytes give the same value.
      assert.deepEqual(gcmSeal(createSecretKey(key), NONCE, PLAIN, AAD), expectedSeal(key, NONCE, PLAIN, AAD));
      assert.deepEqual(gcmOpen(key, sealed.subarray(head.length), AAD), Buffer.from(PLAIN));
    });
  }

  it('reference behaviour: other additional data, a changed byte or a short value is refused with the reason', () => {
    const key = new Uint8Array(32).fill(5);
    const sealed = gcmSeal(key, NONCE, PLAIN, AAD);
    assert.throws(() => gcmOpen(key, sealed, enc('/registry/core/secrets/ns/other')), /^Error: message authentication failed$/);
    const flipped = Buffer.from(sealed);
    flipped[20] = (flipped[20] as number) ^ 1;
    assert.throws(() => gcmOpen(key, flipped, AAD), /message authentication failed/);
    assert.throws(() => gcmOpen(key, sealed.subarray(0, 27), AAD), /shorter than the required size/);
    assert.throws(() => gcmSeal(new Uint8Array(20), NONCE, PLAIN, AAD), /16, 24 or 32 bytes, not 20/);
  });
});

describe('spec 2.12: encryptWithPrefix of the local providers', () => {
  const fixed = (n: number) => new Uint8Array(n).fill(9);
  const cases: [string, EncryptionProvider][] = [
    ['aesgcm 16', new AesGcmProvider('k16', new Uint8Array(16).fill(1), fixed)],
    ['aesgcm 24', new AesGcmProvider('k24', new Uint8Array(24).fill(1), fixed)],
    ['aesgcm 32', new AesGcmProvider('k32', new Uint8Array(32).fill(1), fixed)],
    ['aescbc', new AesCbcProvider('cbc', new Uint8Array(32).fill(1), fixed)],
    ['secretbox', new SecretboxProvider('box', new Uint8Array(32).fill(1), fixed)],
  ];
  for (const [name, p] of cases) {
    it(`spec 2.12: ${name}: the one-buffer value equals prefix ‖ encrypt(), and decrypt opens it`, () => {
      const whole = p.encryptWithPrefix!(PLAIN, AAD);
      const parts = Buffer.concat([p.prefix, p.encrypt(PLAIN, AAD) as Uint8Array]);
      assert.deepEqual(Buffer.from(whole), parts);
      assert.deepEqual(Buffer.from(p.decrypt(whole.subarray(p.prefix.length), AAD) as Uint8Array), Buffer.from(PLAIN));
    });
  }
});
