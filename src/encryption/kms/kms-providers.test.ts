/**
 * The KMS providers against a real plugin (test/helpers/kms-plugin.ts) over gRPC on a Unix socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENCRYPTED_VALUE_PREFIX } from '../../api/naming.js';
import { startKmsPlugin, type KmsPlugin } from '../../../test/helpers/kms-plugin.js';
import type { EncryptionProvider } from '../types.js';
import { createKmsProvider } from './index.js';
import { kmsV1Client } from './service.js';

const TIMEOUT_MS = 400;
const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => Buffer.from(b).toString();
const AD = enc('/registry/secrets/default/s1');

let plugin: KmsPlugin;
before(async () => {
  plugin = await startKmsPlugin();
});
after(async () => {
  await plugin.close();
});

const v1 = (cachesize = 1000, name = 'kms-v1') => createKmsProvider({ apiVersion: 'v1', name, endpoint: plugin.socketPath, timeoutMs: TIMEOUT_MS, cachesize });
const v2 = (name = 'kms-v2') => createKmsProvider({ apiVersion: 'v2', name, endpoint: plugin.socketPath, timeoutMs: TIMEOUT_MS });

// The contract every provider keeps, run for both KMS versions.
for (const [version, make] of [
  ['v1', () => v1()],
  ['v2', () => v2()],
] as const) {
  describe(`spec 2.12: provider contract: kms ${version}`, () => {
    let p: EncryptionProvider;
    before(async () => {
      p = await make();
    });
    after(() => p.close?.());

    it(`spec 2.12: the prefix is ${ENCRYPTED_VALUE_PREFIX}kms:${version}:<name>:`, () => {
      assert.equal(text(p.prefix), `${ENCRYPTED_VALUE_PREFIX}kms:${version}:kms-${version}:`);
    });

    it('spec 2.12: round trip of values of every size', async () => {
      for (const n of [0, 1, 16, 1000, 70_000]) {
        const plain = new Uint8Array(n).map((_, i) => (i * 31) & 0xff);
        assert.deepEqual(new Uint8Array(await p.decrypt(await p.encrypt(plain, AD), AD)), plain, `size ${n}`);
      }
    });

    it('spec 2.12: the same value seals differently each time and never shows the plaintext', async () => {
      const a = await p.encrypt(enc('password=hunter2-hunter2'), AD);
      const b = await p.encrypt(enc('password=hunter2-hunter2'), AD);
      assert.notDeepEqual(a, b);
      assert.ok(!Buffer.from(a).includes(Buffer.from('hunter2')));
    });

    it('spec 2.12: a value moved to another storage key, or with a flipped bit in its data, is refused', async () => {
      const sealed = new Uint8Array(await p.encrypt(enc('{"kind":"Secret"}'), AD));
      await assert.rejects(async () => p.decrypt(sealed, enc('/registry/secrets/default/s2')), /authentication failed/);
      const flipped = sealed.slice();
      flipped[flipped.length - 5] = (flipped[flipped.length - 5] as number) ^ 1;
      await assert.rejects(async () => p.decrypt(flipped, AD), new RegExp(`KMS provider "kms-${version}"`));
    });
  });
}

describe('spec 2.12: kms v1 provider', () => {
  it('spec 2.12: each write gets a fresh DEK: 2-byte big-endian length, the plugin-encrypted DEK, then AES-GCM data', async () => {
    const p = await v1();
    plugin.resetCalls();
    const a = new Uint8Array(await p.encrypt(enc('one'), AD));
    const b = new Uint8Array(await p.encrypt(enc('two'), AD));
    assert.equal(plugin.calls.encrypt, 2);
    const dekLength = (a[0] as number) * 256 + (a[1] as number);
    const encryptedDek = a.subarray(2, 2 + dekLength);
    assert.notDeepEqual(encryptedDek, b.subarray(2, 2 + dekLength));
    const client = kmsV1Client({ providerName: 't', socketPath: plugin.socketPath, timeoutMs: TIMEOUT_MS });
    const dek = await client.decrypt(encryptedDek);
    client.close();
    assert.equal(dek.length, 32);
    // nonce (12) + ciphertext (3) + tag (16)
    assert.equal(a.length, 2 + dekLength + 12 + 3 + 16);
    p.close?.();
  });

  it('spec 2.12: decrypted DEKs are cached by their encrypted form: a second read never reaches the plugin', async () => {
    const writer = await v1();
    const values = await Promise.all(['a', 'b', 'c'].map((s) => writer.encrypt(enc(s), AD)));
    plugin.resetCalls();
    for (const v of values) await writer.decrypt(v, AD);
    assert.equal(plugin.calls.decrypt, 0, 'the writer cached the DEKs it generated');
    const reader = await v1();
    for (const v of values) await reader.decrypt(v, AD);
    for (const v of values) await reader.decrypt(v, AD);
    assert.equal(plugin.calls.decrypt, 3, 'a cold cache asks once per DEK');
    writer.close?.();
    reader.close?.();
  });

  it('spec 2.12: a negative cachesize disables the cache; cachesize 1 keeps only the latest DEK', async () => {
    const writer = await v1();
    const [a, b] = await Promise.all([writer.encrypt(enc('a'), AD), writer.encrypt(enc('b'), AD)]);
    const uncached = await v1(-1);
    plugin.resetCalls();
    await uncached.decrypt(a as Uint8Array, AD);
    await uncached.decrypt(a as Uint8Array, AD);
    assert.equal(plugin.calls.decrypt, 2);
    const tiny = await v1(1);
    plugin.resetCalls();
    await tiny.decrypt(a as Uint8Array, AD);
    await tiny.decrypt(a as Uint8Array, AD);
    await tiny.decrypt(b as Uint8Array, AD);
    await tiny.decrypt(a as Uint8Array, AD);
    assert.equal(plugin.calls.decrypt, 3);
    for (const p of [writer, uncached, tiny]) p.close?.();
  });

  it('reference behaviour: a plugin speaking another v1 API version is refused with the version it reported', async () => {
    plugin.behaviour.v1Version = 'v9';
    const p = await v1(1000, 'odd');
    await assert.rejects(async () => p.encrypt(enc('x'), AD), /KMS provider "odd": the plugin speaks API version "v9"; only "v1beta1" is supported/);
    plugin.behaviour.v1Version = 'v1beta1';
    assert.equal(text(await p.decrypt(await p.encrypt(enc('x'), AD), AD)), 'x', 'the version is checked again after a failure');
    p.close?.();
  });

  const MALFORMED_V1: [string, Uint8Array][] = [
    ['empty', new Uint8Array(0)],
    ['only one length byte', Uint8Array.of(0)],
    ['a zero DEK length', Uint8Array.of(0, 0, 1, 2, 3)],
    ['a DEK length past the end', Uint8Array.of(0, 200, 1, 2, 3)],
  ];
  for (const [name, bytes] of MALFORMED_V1) {
    it(`reference behaviour: a v1 value with ${name} is refused without calling the plugin`, async () => {
      const p = await v1();
      plugin.resetCalls();
      await assert.rejects(async () => p.decrypt(bytes, AD), /KMS provider "kms-v1": the stored value is (too short|shorter)/);
      assert.equal(plugin.calls.decrypt + plugin.calls.version, 0);
      p.close?.();
    });
  }

  it('spec 2.12: health check: healthy while the plugin encrypts and decrypts, a clear reason while it is down, healthy again when it returns', async () => {
    const p = await v1();
    await p.healthCheck?.();
    await plugin.stop();
    try {
      // a fresh provider, so no cached result hides the outage; its first call checks the API version
      const q = await v1();
      const started = Date.now();
      await assert.rejects(async () => q.healthCheck?.(), new RegExp(`KMS provider "kms-v1": Version call to the plugin at ${plugin.socketPath} failed \\(no answer within ${TIMEOUT_MS}ms\\)`));
      assert.ok(Date.now() - started < TIMEOUT_MS + 1000, 'fails within the timeout');
      await assert.rejects(async () => q.encrypt(enc('x'), AD), /failed \(no answer within/);
      q.close?.();
    } finally {
      await plugin.start();
    }
    const r = await v1();
    await r.healthCheck?.();
    assert.equal(text(await r.decrypt(await r.encrypt(enc('back'), AD), AD)), 'back');
    p.close?.();
    r.close?.();
  });
});
