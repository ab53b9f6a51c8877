/**
 * KMS v2 against a real plugin (test/helpers/kms-plugin.ts): seed reuse, key rotation, outages, health
 * reasons, malformed envelopes. A fake clock drives the reference's TTLs; gRPC calls are real.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startKmsPlugin, type KmsPlugin } from '../../../test/helpers/kms-plugin.js';
import { gcmKeyTransformer } from './aes.js';
import { HEALTHY_RESULT_TTL_MS, UNHEALTHY_RESULT_TTL_MS } from './health-probe.js';
import { createKmsProvider, kmsPrefix } from './index.js';
import { encryptedObject } from './messages.js';
import { kmsV2Client } from './service.js';
import { KmsV2Provider, WRITE_SEED_TTL_MS } from './v2-provider.js';

const TIMEOUT_MS = 400;
const enc = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => Buffer.from(b).toString();
const AD = enc('/registry/secrets/default/s1');

let plugin: KmsPlugin;
let clock = Date.now();
const opened: KmsV2Provider[] = [];
const logs: string[] = [];

/** A provider on the fake clock, after its first Status. */
async function provider(name = 'p'): Promise<KmsV2Provider> {
  const client = kmsV2Client({ providerName: name, socketPath: plugin.socketPath, timeoutMs: TIMEOUT_MS });
  const p = new KmsV2Provider(client, { name, prefix: kmsPrefix('v2', name), log: (m) => logs.push(m), now: () => clock });
  opened.push(p);
  await p.start();
  return p;
}
/**
 * After a plugin restart the client reconnects with a backoff of up to a second, so a check made at once may
 * still time out (the background poll retries every 10s); retry for a few seconds like the poll would. A
 * provider on the real clock keeps its failed result for 3s, hence the 8s bound.
 */
async function untilHealthy(p: { healthCheck?(): Promise<void> }): Promise<void> {
  const deadline = Date.now() + 8000;
  for (;;) {
    clock += UNHEALTHY_RESULT_TTL_MS + 1;
    try {
      return await p.healthCheck?.();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
/** Lets the health result expire so that the next check asks the plugin's Status again. */
const pastHealthTtl = () => (clock += HEALTHY_RESULT_TTL_MS + 1);

before(async () => {
  plugin = await startKmsPlugin();
});
afterEach(async () => {
  for (const p of opened.splice(0)) p.close();
  Object.assign(plugin.behaviour, { healthz: 'ok', statusVersion: 'v2', statusKeyId: undefined, encryptKeyId: undefined, annotations: {}, delayMs: 0 });
  await plugin.start();
});
after(async () => {
  await plugin.close();
});

describe('spec 2.12: kms v2 provider', () => {
  it('spec 2.12: the stored envelope is an EncryptedObject with the key id, the plugin-encrypted seed and the HKDF seed type', async () => {
    plugin.behaviour.annotations = { 'version.kms.example.io': enc('1') };
    const p = await provider();
    const o = encryptedObject.decode(p.encrypt(enc('hello'), AD));
    assert.equal(o.keyID, plugin.keyId);
    assert.equal(o.encryptedDEKSourceType, 1);
    assert.deepEqual(Object.keys(o.annotations), ['version.kms.example.io']);
    const client = kmsV2Client({ providerName: 't', socketPath: plugin.socketPath, timeoutMs: TIMEOUT_MS });
    const seed = await client.decrypt({ ciphertext: o.encryptedDEKSource, uid: 'u', keyId: o.keyID, annotations: {} });
    client.close();
    assert.equal(seed.length, 32);
    assert.equal(o.encryptedData.length, 32 + 12 + 5 + 16);
  });

  it('spec 2.12: one seed serves every write; a cold reader asks the plugin once for a whole batch of values', async () => {
    plugin.resetCalls();
    const writer = await provider();
    const values = Array.from({ length: 50 }, (_, i) => writer.encrypt(enc(`v${i}`), AD));
    assert.equal(plugin.calls.encrypt, 1, 'only the seed was sent to the plugin');
    for (const v of values) await writer.decrypt(v, AD);
    assert.equal(plugin.calls.decrypt, 0, 'the writer reads with the seed it holds');
    const reader = await provider();
    const read = await Promise.all(values.map((v) => reader.decrypt(v, AD)));
    assert.deepEqual(read.map(text), values.map((_, i) => `v${i}`));
    assert.equal(plugin.calls.decrypt, 1);
    assert.equal(reader.cachedKeys, 2, 'its own seed and the writer seed');
  });

  it('spec 2.12: a key id change seen in Status rotates the seed; values of the old key stay readable, new values carry the new key id', async () => {
    const p = await provider();
    const oldKey = plugin.keyId;
    const before = p.encrypt(enc('old'), AD);
    const newKey = plugin.rotateKey();
    assert.equal(encryptedObject.decode(p.encrypt(enc('still old'), AD)).keyID, oldKey, 'no rotation before Status says so');
    pastHealthTtl();
    await p.healthCheck();
    assert.equal(p.currentKeyId, newKey);
    const afterRotation = p.encrypt(enc('new'), AD);
    assert.equal(encryptedObject.decode(afterRotation).keyID, newKey);
    assert.equal(text(await p.decrypt(before, AD)), 'old');
    const cold = await provider();
    assert.equal(text(await cold.decrypt(before, AD)), 'old', 'the plugin decrypts the old seed by its key id');
    assert.equal(text(await cold.decrypt(afterRotation, AD)), 'new');
    assert.ok(logs.some((l) => l.includes('new DEK seed') && l.includes('(was sha256:')));
  });

  it('reference behaviour: while Encrypt answers with another key id than Status, the current seed stays in use and the health check says why', async () => {
    const p = await provider();
    const keyBefore = p.currentKeyId;
    plugin.rotateKey();
    plugin.behaviour.encryptKeyId = 'somewhere-else';
    pastHealthTtl();
    await assert.rejects(p.healthCheck(), /KMS provider "p": the plugin encrypted the new DEK seed with key ID sha256:[0-9a-f]{64} while Status reports sha256:[0-9a-f]{64}; the current seed stays in use/);
    assert.equal(p.currentKeyId, keyBefore);
    assert.equal(encryptedObject.decode(p.encrypt(enc('x'), AD)).keyID, keyBefore);
  });

  const UNHEALTHY: [string, Partial<KmsPlugin['behaviour']>, RegExp][] = [
    ['healthz other than ok', { healthz: 'degraded' }, /the plugin reports healthz "degraded" instead of "ok"/],
    ['another API version', { statusVersion: 'v3' }, /the plugin speaks API version "v3", expected "v2"/],
    ['an empty key id', { statusKeyId: '' }, /Status returned an unusable key ID: the key ID is empty/],
    ['a key id over 1 kB', { statusKeyId: 'k'.repeat(1025) }, /the key ID is 1025 bytes, more than the limit of 1024/],
    ['annotations that are not domain names', { annotations: { bad: enc('x') } }, /Encrypt answer for a new DEK seed is unusable: annotation key "bad"/],
  ];
  for (const [name, behaviour, why] of UNHEALTHY) {
    it(`reference behaviour: health check reason for a plugin with ${name}`, async () => {
      Object.assign(plugin.behaviour, behaviour);
      const p = await provider();
      await assert.rejects(p.healthCheck(), why);
    });
  }

  it('spec 2.12: plugin outage: reads of cached seeds and writes go on, reads needing the plugin fail within the timeout, writes stop once the seed expires, all recover when it returns', async () => {
    const other = await provider('p');
    const foreign = other.encrypt(enc('needs the plugin'), AD);
    const p = await provider('p');
    const mine = p.encrypt(enc('cached'), AD);
    await plugin.stop();
    pastHealthTtl();
    await assert.rejects(p.healthCheck(), new RegExp(`KMS provider "p": Status call to the plugin at ${plugin.socketPath} failed \\(no answer within ${TIMEOUT_MS}ms\\)`));
    assert.equal(text(await p.decrypt(mine, AD)), 'cached');
    assert.equal(text(await p.decrypt(p.encrypt(enc('during'), AD), AD)), 'during', 'the confirmed seed still encrypts');
    const started = Date.now();
    await assert.rejects(p.decrypt(foreign, AD), /KMS provider "p": Decrypt call to the plugin at .* failed \(no answer within 400ms\)/);
    assert.ok(Date.now() - started < TIMEOUT_MS + 1000, 'fails within the timeout');
    clock += WRITE_SEED_TTL_MS;
    assert.throws(() => p.encrypt(enc('x'), AD), /KMS provider "p" cannot encrypt: the DEK seed for key ID sha256:[0-9a-f]+ expired at .* \(last Status problem: .*Status call .* failed/);
    await plugin.start();
    await untilHealthy(p);
    assert.equal(text(await p.decrypt(p.encrypt(enc('after'), AD), AD)), 'after');
    assert.equal(text(await p.decrypt(foreign, AD)), 'needs the plugin');
  });

  it('reference behaviour: a provider started while the plugin is down starts anyway, refuses reads and writes with the reason, and works once Status succeeds', async () => {
    await plugin.stop();
    const started = Date.now();
    const p = await createKmsProvider({ apiVersion: 'v2', name: 'late', endpoint: plugin.socketPath, timeoutMs: TIMEOUT_MS });
    try {
      assert.ok(Date.now() - started < TIMEOUT_MS + 1000);
      assert.throws(() => p.encrypt(enc('x'), AD), /KMS provider "late" cannot encrypt: no DEK seed yet, the plugin's Status has not succeeded \(last Status problem: .*Status call/);
      await plugin.start();
      await untilHealthy(p);
      assert.equal(text(await p.decrypt(await p.encrypt(enc('now'), AD), AD)), 'now');
    } finally {
      p.close?.();
    }
  });

  it('reference behaviour: values sealed directly with a plugin-encrypted AES-GCM DEK (the pre-seed layout) are read', async () => {
    const p = await provider();
    const dek = new Uint8Array(32).fill(6);
    const client = kmsV2Client({ providerName: 't', socketPath: plugin.socketPath, timeoutMs: TIMEOUT_MS });
    const res = await client.encrypt('u', dek);
    client.close();
    const stored = encryptedObject.encode({ encryptedData: gcmKeyTransformer(dek).seal(enc('legacy'), AD), keyID: res.keyId, encryptedDEKSource: res.ciphertext, annotations: {}, encryptedDEKSourceType: 0 });
    assert.equal(text(await p.decrypt(stored, AD)), 'legacy');
  });

  const MALFORMED: [string, () => Uint8Array, RegExp][] = [
    ['bytes that are not protobuf', () => Uint8Array.of(0xff, 0xff, 0xff), /is not a KMS v2 envelope: malformed EncryptedObject/],
    ['an empty value', () => new Uint8Array(0), /envelope is invalid: the encrypted data is empty/],
    ['no key id', () => encryptedObject.encode({ encryptedData: enc('d'), keyID: '', encryptedDEKSource: enc('s'), annotations: {}, encryptedDEKSourceType: 1 }), /envelope is invalid: the key ID is empty/],
    ['no encrypted DEK source', () => encryptedObject.encode({ encryptedData: enc('d'), keyID: 'k', encryptedDEKSource: new Uint8Array(0), annotations: {}, encryptedDEKSourceType: 1 }), /the encrypted DEK source is empty/],
    ['an unknown DEK source type', () => encryptedObject.encode({ encryptedData: enc('d'), keyID: 'k', encryptedDEKSource: enc('s'), annotations: {}, encryptedDEKSourceType: 7 }), /unknown encryptedDEKSourceType 7/],
  ];
  for (const [name, make, why] of MALFORMED) {
    it(`reference behaviour: a stored v2 value with ${name} is refused without calling the plugin`, async () => {
      const p = await provider();
      plugin.resetCalls();
      await assert.rejects(p.decrypt(make(), AD), why);
      assert.equal(plugin.calls.decrypt, 0);
    });
  }

  it('reference behaviour: an envelope whose seed the plugin cannot decrypt fails with the plugin reason', async () => {
    const p = await provider();
    const o = encryptedObject.decode(p.encrypt(enc('x'), AD));
    const forged = encryptedObject.encode({ ...o, encryptedDEKSource: enc('not from this plugin') });
    await assert.rejects(p.decrypt(forged, AD), /KMS provider "p": Decrypt call to the plugin at .* failed \(INVALID_ARGUMENT: ciphertext was not produced by this plugin\)/);
  });
});
