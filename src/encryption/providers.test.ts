import assert from 'node:assert/strict';
import { createDecipheriv } from 'node:crypto';
import { describe, it } from 'node:test';
import nacl from 'tweetnacl';
import { ENCRYPTED_VALUE_PREFIX } from '../api/naming.js';
import { AesCbcProvider, AesGcmProvider, IdentityProvider, isEncrypted, SecretboxProvider, secureRandom } from './providers.js';
import type { EncryptionProvider } from './types.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const key = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const zeros = (n: number) => new Uint8Array(n);
const AD = enc('/registry/core/secrets/default/s1');

interface Case {
  name: string;
  make(k: Uint8Array): EncryptionProvider;
  keySize: number;
  /** Tampering and wrong keys are detected (an authenticating cipher). */
  authenticated: boolean;
  /** The storage key is bound as additional authenticated data. */
  bindsAD: boolean;
}

const CASES: Case[] = [
  { name: 'aesgcm 16-byte key', make: (k) => new AesGcmProvider('k1', k), keySize: 16, authenticated: true, bindsAD: true },
  { name: 'aesgcm 24-byte key', make: (k) => new AesGcmProvider('k1', k), keySize: 24, authenticated: true, bindsAD: true },
  { name: 'aesgcm 32-byte key', make: (k) => new AesGcmProvider('k1', k), keySize: 32, authenticated: true, bindsAD: true },
  { name: 'aescbc', make: (k) => new AesCbcProvider('k1', k), keySize: 32, authenticated: false, bindsAD: false },
  { name: 'secretbox', make: (k) => new SecretboxProvider('k1', k), keySize: 32, authenticated: true, bindsAD: false },
];

const SIZES = [0, 1, 15, 16, 17, 1000, 70_000];

// The contract every keyed provider keeps.
for (const c of CASES) {
  describe(`spec 2.12: provider contract: ${c.name}`, () => {
    const p = c.make(key(c.keySize, 7));
    const other = c.make(key(c.keySize, 8));

    it('spec 2.12: round trip of values of every size', async () => {
      for (const n of SIZES) {
        const plain = new Uint8Array(n).map((_, i) => (i * 31) & 0xff);
        const sealed = await p.encrypt(plain, AD);
        assert.deepEqual(new Uint8Array(await p.decrypt(sealed, AD)), plain, `size ${n}`);
      }
    });

    it('spec 2.12: a fresh nonce each time: the same value seals differently and never in plain', async () => {
      const plain = enc('password=hunter2-hunter2');
      const a = await p.encrypt(plain, AD);
      const b = await p.encrypt(plain, AD);
      assert.notDeepEqual(a, b);
      assert.ok(!Buffer.from(a).includes(Buffer.from('hunter2')));
    });

    it('spec 2.12: a flipped bit anywhere in the sealed value never yields the plaintext', async () => {
      const plain = enc('{"kind":"Secret","data":{"k":"dmFsdWU="}}');
      const sealed = new Uint8Array(await p.encrypt(plain, AD));
      for (let i = 0; i < sealed.length; i++) {
        const bad = sealed.slice();
        bad[i] = (bad[i] as number) ^ 0x01;
        let opened: Uint8Array | undefined;
        try {
          opened = await p.decrypt(bad, AD);
        } catch {
          opened = undefined;
        }
        // Authenticated ciphers must refuse; CBC (no integrity in the reference either) must not give the original.
        if (c.authenticated) assert.equal(opened, undefined, `byte ${i} accepted`);
        else assert.notDeepEqual(opened && new Uint8Array(opened), plain, `byte ${i}`);
      }
    });

    it('spec 2.12: a different key cannot open the value', async () => {
      const plain = enc('top secret value');
      const sealed = await p.encrypt(plain, AD);
      let opened: Uint8Array | undefined;
      try {
        opened = await other.decrypt(sealed, AD);
      } catch {
        opened = undefined;
      }
      if (c.authenticated) assert.equal(opened, undefined);
      else assert.notDeepEqual(opened && new Uint8Array(opened), plain);
    });

    it(`reference behaviour: the storage key ${c.bindsAD ? 'is' : 'is not'} bound as authenticated data`, async () => {
      const sealed = await p.encrypt(enc('v'), AD);
      const elsewhere = enc('/registry/core/secrets/default/s2');
      if (c.bindsAD) await assert.rejects(async () => p.decrypt(sealed, elsewhere));
      else assert.equal(dec(await p.decrypt(sealed, elsewhere)), 'v');
    });

    it('spec 2.12: truncated values are refused with a reason', async () => {
      const sealed = await p.encrypt(enc('value'), AD);
      for (const n of [0, 5, sealed.length - 1]) await assert.rejects(async () => p.decrypt(sealed.slice(0, n), AD), Error);
    });

    it('spec 2.12: the prefix is <maker>:enc:<provider>:v1:<key name>:', () => {
      const type = c.name.split(' ')[0];
      assert.equal(dec(p.prefix), `${ENCRYPTED_VALUE_PREFIX}${type}:v1:k1:`);
    });
  });
}

describe('spec 2.12: identity provider', () => {
  const p: EncryptionProvider = new IdentityProvider();
  it('spec 2.12: stores plain bytes with no prefix', async () => {
    assert.equal(p.prefix.length, 0);
    assert.equal(dec(await p.encrypt(enc('x'), AD)), 'x');
    assert.equal(dec(await p.decrypt(enc('x'), AD)), 'x');
  });
  it('reference behaviour: identity refuses to pass an encrypted value through', () => {
    assert.throws(() => p.decrypt(enc(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:k:xxxx`), AD), /identity transformer tried to read encrypted data/);
    assert.ok(isEncrypted(enc(`${ENCRYPTED_VALUE_PREFIX}x`)));
    assert.ok(!isEncrypted(enc('{"kind":"Secret"}')));
  });
});

describe('spec 2.12: known answers (NIST vectors in the reference layout)', () => {
  it('spec 2.12: aesgcm 128: nonce || ciphertext || tag (GCM spec test case 2)', async () => {
    const p = new AesGcmProvider('k', zeros(16), zeros);
    const out = await p.encrypt(zeros(16), new Uint8Array(0));
    assert.equal(Buffer.from(out).toString('hex'), '000000000000000000000000' + '0388dace60b6a392f328c2b971b2fe78' + 'ab6e47d42cec13bdf53a67b21257bddf');
    assert.deepEqual(new Uint8Array(await p.decrypt(out, new Uint8Array(0))), zeros(16));
  });

  it('spec 2.12: aesgcm 256: nonce || ciphertext || tag (GCM spec test case 14)', async () => {
    const p = new AesGcmProvider('k', zeros(32), zeros);
    const out = await p.encrypt(zeros(16), new Uint8Array(0));
    assert.equal(Buffer.from(out).toString('hex'), '000000000000000000000000' + 'cea7403d4d606b6e074ec5d3baf39d18' + 'd0d1c8a799996bf0265b98b5d48ab919');
  });

  it('spec 2.12: aescbc 256: iv || CBC blocks, PKCS#7 adds a full block (SP 800-38A F.2.5)', async () => {
    const iv = hex('000102030405060708090a0b0c0d0e0f');
    const p: EncryptionProvider = new AesCbcProvider('k', hex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4'), () => iv);
    const out = await p.encrypt(hex('6bc1bee22e409f96e93d7e117393172a'), AD);
    assert.equal(out.length, 16 + 32);
    assert.equal(Buffer.from(out.subarray(0, 32)).toString('hex'), '000102030405060708090a0b0c0d0e0f' + 'f58c4c04d6e5f1ba779eabfb5f7bfbd6');
    // The second block is the padding block 0x10 x 16, CBC-chained: decrypting it alone gives that padding.
    const d = createDecipheriv('aes-256-cbc', hex('603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4'), out.subarray(16, 32));
    d.setAutoPadding(false);
    assert.equal(Buffer.concat([d.update(out.subarray(32)), d.final()]).toString('hex'), '10'.repeat(16));
  });

  it('spec 2.12: secretbox: nonce (24) || NaCl box, openable by NaCl itself', async () => {
    const k = key(32, 3);
    const nonce = key(24, 9);
    const p: EncryptionProvider = new SecretboxProvider('k', k, () => nonce);
    const out = await p.encrypt(enc('hello'), AD);
    assert.deepEqual(new Uint8Array(out.subarray(0, 24)), nonce);
    assert.deepEqual(new Uint8Array(out.subarray(24)), nacl.secretbox(enc('hello'), nonce, k));
    assert.equal(dec(nacl.secretbox.open(out.subarray(24), nonce, k)!), 'hello');
  });
});

describe('reference behaviour: nonces from the pooled random source', () => {
  it('reference behaviour: every nonce is fresh, and one handed out keeps its bytes when the pool is replaced', () => {
    const first = secureRandom(12);
    const kept = Uint8Array.from(first);
    const seen = new Set<string>([Buffer.from(first).toString('hex')]);
    // 2,000 nonces of 12 bytes span several 4 KiB pools.
    for (let i = 0; i < 2000; i++) {
      const n = secureRandom(12);
      assert.equal(n.length, 12);
      seen.add(Buffer.from(n).toString('hex'));
    }
    assert.equal(seen.size, 2001);
    assert.deepEqual(first, kept);
  });

  it('reference behaviour: a request larger than the pool is served whole', () => {
    assert.equal(secureRandom(10_000).length, 10_000);
  });
});
