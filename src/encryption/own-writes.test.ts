/**
 * The wrapper hands its own writes' plain values to the watch event of the same revision instead of
 * decrypting them again. These tests hold that shortcut to the answer of the slow path: a second wrapper
 * over the same store, which has written nothing and so must decrypt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBackend, type KeyValue, type WatchEvent } from '../storage/index.js';
import { ENCRYPTION_CONFIG_VERSION, parseEncryptionConfiguration } from './config.js';
import { EncryptingBackend } from './encrypting-backend.js';
import { buildTransformers } from './transformers.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const SECRET = '/registry/core/secrets/ns/s1';
const PREFIX = '/registry/core/secrets/';

async function transformers(providers: unknown[]) {
  const text = JSON.stringify({ apiVersion: ENCRYPTION_CONFIG_VERSION, kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers }] });
  return buildTransformers(parseEncryptionConfiguration(text));
}

async function wrapper(inner: MemoryBackend, providers: unknown[]) {
  const b = new EncryptingBackend(inner, { transformers: await transformers(providers), resourceOf: () => 'secrets' });
  // Count the decrypts of this wrapper's providers.
  let decrypts = 0;
  for (const p of b.current.forResource('secrets').readers) {
    const decrypt = p.decrypt.bind(p);
    p.decrypt = (sealed, aad) => (decrypts++, decrypt(sealed, aad));
  }
  return { b, decrypts: () => decrypts };
}

/** The first PUT event of `b` from `from` on, as value text, stale flag and unreadable flag. */
async function firstPut(b: EncryptingBackend, from: number) {
  const ac = new AbortController();
  for await (const e of b.watch(PREFIX, from, ac.signal, { progress: true, markUnreadable: true })) {
    if (e.type !== 'PUT') continue;
    ac.abort();
    const kv: KeyValue = (e as WatchEvent & { type: 'PUT' }).kv;
    return { value: dec(kv.value), stale: kv.stale === true, unreadable: kv.unreadable !== undefined };
  }
  throw new Error('the watch ended without a PUT');
}

const gcm = (name: string, secret: string) => ({ aesgcm: { keys: [{ name, secret }] } });

describe('spec 2.12: own writes reach the watch without a second decrypt, exactly as a decrypt would give them', () => {
  const table: [string, unknown[]][] = [
    ['aesgcm', [gcm('k1', K1)]],
    ['aesgcm then identity', [gcm('k1', K1), { identity: {} }]],
    ['identity then aesgcm (writes plain)', [{ identity: {} }, gcm('k1', K1)]],
    ['aescbc', [{ aescbc: { keys: [{ name: 'c', secret: K1 }] } }]],
    ['secretbox', [{ secretbox: { keys: [{ name: 'b', secret: K1 }] } }]],
  ];
  for (const [name, providers] of table) {
    it(`spec 2.12: ${name}: the event of an own create equals what another wrapper decrypts`, async () => {
      const inner = new MemoryBackend({ compactIntervalMs: 0 });
      const own = await wrapper(inner, providers);
      const other = await wrapper(inner, providers);
      const from = await inner.currentRevision();
      await own.b.create(SECRET, enc('{"data":"one"}'));
      const fast = await firstPut(own.b, from);
      const slow = await firstPut(other.b, from);
      assert.deepEqual(fast, slow);
      assert.deepEqual(fast, { value: '{"data":"one"}', stale: false, unreadable: false });
      assert.equal(own.decrypts(), 0);
    });
  }

  it('spec 2.12: after a reload that drops the writing key, the own write is unreadable, as a decrypt finds', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const own = await wrapper(inner, [gcm('k1', K1)]);
    const from = await inner.currentRevision();
    await own.b.create(SECRET, enc('{"data":"one"}'));
    own.b.setTransformers(await transformers([gcm('k2', K2)]));
    const other = await wrapper(inner, [gcm('k2', K2)]);
    const fast = await firstPut(own.b, from);
    assert.deepEqual(fast, await firstPut(other.b, from));
    assert.deepEqual(fast, { value: '', stale: false, unreadable: true });
  });

  it('spec 2.12: after a reload that keeps the writing key second, the own write reads as stale, as a decrypt finds', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const own = await wrapper(inner, [gcm('k1', K1)]);
    const from = await inner.currentRevision();
    await own.b.create(SECRET, enc('{"data":"one"}'));
    own.b.setTransformers(await transformers([gcm('k2', K2), gcm('k1', K1)]));
    const other = await wrapper(inner, [gcm('k2', K2), gcm('k1', K1)]);
    const fast = await firstPut(own.b, from);
    assert.deepEqual(fast, await firstPut(other.b, from));
    assert.deepEqual(fast, { value: '{"data":"one"}', stale: true, unreadable: false });
  });
});
