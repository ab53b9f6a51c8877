import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { describe, it } from 'node:test';
import { cbcOpen, gcmKeyTransformer, gcmOrCbcTransformer, hkdfSha256Expand, seedTransformer } from './aes.js';

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const enc = (s: string) => new TextEncoder().encode(s);
const AD = enc('/registry/secrets/default/s1');
const KEY = new Uint8Array(32).fill(9);

describe('reference behaviour: KMS data encryption layouts', () => {
  it('reference behaviour: HKDF-SHA256 expand-only matches RFC 5869 test case 1 (first 32 bytes of OKM from its PRK)', () => {
    const prk = hex('077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5');
    const info = hex('f0f1f2f3f4f5f6f7f8f9');
    assert.equal(Buffer.from(hkdfSha256Expand(prk, info)).toString('hex'), '3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf');
  });

  it('reference behaviour: the seed layout is 32 info bytes, then nonce, ciphertext and tag under HKDF(seed, info), with the storage key as AAD', () => {
    const seed = new Uint8Array(32).fill(3);
    const sealed = seedTransformer(seed).seal(enc('secret value'), AD);
    const info = sealed.subarray(0, 32);
    const nonce = sealed.subarray(32, 44);
    const d = createDecipheriv('aes-256-gcm', hkdfSha256Expand(seed, info), nonce);
    d.setAAD(AD);
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([d.update(sealed.subarray(44, sealed.length - 16)), d.final()]);
    assert.equal(plain.toString(), 'secret value');
    assert.equal(sealed.length, 32 + 12 + 'secret value'.length + 16);
  });

  it('reference behaviour: each seed write derives a new key (different info) and a read with another storage key fails', () => {
    const t = seedTransformer(new Uint8Array(32).fill(4));
    const a = t.seal(enc('v'), AD);
    const b = t.seal(enc('v'), AD);
    assert.notDeepEqual(a.subarray(0, 32), b.subarray(0, 32));
    assert.equal(Buffer.from(t.open(a, AD)).toString(), 'v');
    assert.throws(() => t.open(a, enc('/registry/secrets/default/other')), /authentication failed/);
  });

  it('reference behaviour: AES-GCM layout is nonce, ciphertext, tag', () => {
    const sealed = gcmKeyTransformer(KEY).seal(enc('abc'), AD);
    const d = createDecipheriv('aes-256-gcm', KEY, sealed.subarray(0, 12));
    d.setAAD(AD);
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    assert.equal(Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]).toString(), 'abc');
  });

  it('reference behaviour: KMS v1 still reads AES-CBC values (IV then PKCS#7-padded ciphertext) written by older servers', () => {
    const iv = new Uint8Array(16).fill(1);
    const c = createCipheriv('aes-256-cbc', KEY, iv);
    const sealed = Buffer.concat([iv, c.update(enc('old value')), c.final()]);
    assert.equal(Buffer.from(gcmOrCbcTransformer(KEY).open(sealed, AD)).toString(), 'old value');
  });

  const BAD_CBC: [string, Uint8Array, RegExp][] = [
    ['too short', new Uint8Array(20), /shorter than an AES-CBC IV/],
    ['not whole blocks', new Uint8Array(40), /whole number of AES blocks/],
  ];
  for (const [name, data, why] of BAD_CBC) {
    it(`reference behaviour: an AES-CBC value that is ${name} is rejected`, () => {
      assert.throws(() => cbcOpen(KEY, data), why);
    });
  }

  it('reference behaviour: a value neither GCM nor CBC can open reports the GCM failure', () => {
    assert.throws(() => gcmOrCbcTransformer(KEY).open(new Uint8Array(48).fill(5), AD), /message authentication failed/);
  });

  it('reference behaviour: seeds shorter than 32 bytes and data keys of odd sizes are refused', () => {
    assert.throws(() => seedTransformer(new Uint8Array(16)), /at least 32 bytes/);
    assert.throws(() => gcmKeyTransformer(new Uint8Array(20)), /16, 24 or 32 bytes/);
  });
});
