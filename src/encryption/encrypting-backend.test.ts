import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENCRYPTED_VALUE_PREFIX } from '../api/naming.js';
import { isStorageError, MemoryBackend, type Backend, type KeyValue } from '../storage/index.js';
import { backendContract, sameProcessPeer, take } from '../storage/testing/contract.js';
import { ENCRYPTION_CONFIG_VERSION, parseEncryptionConfiguration } from './config.js';
import { EncryptingBackend } from './encrypting-backend.js';
import { AesGcmProvider } from './providers.js';
import { buildTransformers, EncryptionTransformers } from './transformers.js';
import type { EncryptionProvider } from './types.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');

function configText(rules: { resources: string[]; providers: unknown[] }[]): string {
  return JSON.stringify({ apiVersion: ENCRYPTION_CONFIG_VERSION, kind: 'EncryptionConfiguration', resources: rules });
}
const gcm = (...keys: [string, string][]) => ({ aesgcm: { keys: keys.map(([name, secret]) => ({ name, secret })) } });

async function transformersOf(rules: { resources: string[]; providers: unknown[] }[]) {
  return buildTransformers(parseEncryptionConfiguration(configText(rules)));
}

/** Keys as the registry writes them: `/registry/<group or core>/<plural>/...`. */
function resourceOf(key: string): string | undefined {
  const m = /^\/registry\/([^/]+)\/([^/]+)\//.exec(key);
  if (!m) return undefined;
  return m[1] === 'core' ? m[2] : `${m[2]}.${m[1]}`;
}

async function wrapped(rules: { resources: string[]; providers: unknown[] }[], inner: Backend = new MemoryBackend({ compactIntervalMs: 0 })) {
  return { inner, b: new EncryptingBackend(inner, { transformers: await transformersOf(rules), resourceOf }) };
}

// Every key of the contract suite belongs to one resource whose first provider is aesgcm.
backendContract('encrypting wrapper (aesgcm) over memory', {
  open: async () =>
    new EncryptingBackend(new MemoryBackend({ compactIntervalMs: 0 }), {
      transformers: await transformersOf([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }]),
      resourceOf: () => 'secrets',
    }),
  peer: async (b) => sameProcessPeer(b),
});

const SECRET = '/registry/core/secrets/ns/s1';
const PLAINTEXT = '{"kind":"Secret","data":{"password":"aHVudGVyMg=="}}';

describe('spec 2.12: the encrypting wrapper', () => {
  it('spec 2.12: writes of a configured resource are sealed with the first provider; reads give the plain value', async () => {
    const { inner, b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1]), { identity: {} }] }]);
    const created = await b.create(SECRET, enc(PLAINTEXT));
    assert.equal(dec(created.value), PLAINTEXT);
    const raw = (await inner.get(SECRET))!;
    assert.ok(dec(raw.value).startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:k1:`));
    assert.ok(!Buffer.from(raw.value).includes(Buffer.from('aHVudGVyMg==')));
    assert.equal(dec((await b.get(SECRET))!.value), PLAINTEXT);
    assert.equal(dec((await b.list('/registry/core/secrets/')).items[0]!.value), PLAINTEXT);
  });

  it('spec 2.12: resources the file does not name are stored plain', async () => {
    const { inner, b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }]);
    await b.create('/registry/core/configmaps/ns/c', enc('{"kind":"ConfigMap"}'));
    assert.equal(dec((await inner.get('/registry/core/configmaps/ns/c'))!.value), '{"kind":"ConfigMap"}');
  });

  it('spec 2.12: wildcards select the provider: *.<group>, *. and *.*, the exact name first', async () => {
    const { inner, b } = await wrapped([
      { resources: ['deployments.apps'], providers: [{ identity: {} }] },
      { resources: ['*.apps'], providers: [gcm(['apps', K1])] },
      { resources: ['*.'], providers: [gcm(['core', K1])] },
      { resources: ['*.*'], providers: [gcm(['all', K2])] },
    ]);
    const cases: [string, string][] = [
      ['/registry/apps/deployments/ns/d', '{'],
      ['/registry/apps/statefulsets/ns/s', `${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:apps:`],
      ['/registry/core/pods/ns/p', `${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:core:`],
      ['/registry/batch/jobs/ns/j', `${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:all:`],
    ];
    for (const [key, start] of cases) {
      await b.create(key, enc('{}'));
      assert.ok(dec((await inner.get(key))!.value).startsWith(start), key);
      assert.equal(dec((await b.get(key))!.value), '{}');
    }
  });

  it('spec 2.12: every configured key is tried on reads; a value read with an older key is marked stale', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const { b: old } = await wrapped([{ resources: ['secrets'], providers: [gcm(['old', K1])] }], inner);
    await old.create(SECRET, enc(PLAINTEXT));
    const { b: rotated } = await wrapped([{ resources: ['secrets'], providers: [gcm(['new', K2], ['old', K1])] }], inner);
    const kv = (await rotated.get(SECRET))!;
    assert.equal(dec(kv.value), PLAINTEXT);
    assert.equal(kv.stale, true);
    await rotated.update(SECRET, kv.value, kv.modRevision);
    const again = (await rotated.get(SECRET))!;
    assert.equal(again.stale, undefined);
    assert.ok(dec((await inner.get(SECRET))!.value).startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:new:`));
  });

  it('reference behaviour: identity first decrypts old values with the later keys and writes plain (leaving encryption)', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const { b: sealed } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }], inner);
    await sealed.create(SECRET, enc(PLAINTEXT));
    const { b: plain } = await wrapped([{ resources: ['secrets'], providers: [{ identity: {} }, gcm(['k1', K1])] }], inner);
    const kv = (await plain.get(SECRET))!;
    assert.equal(dec(kv.value), PLAINTEXT);
    assert.equal(kv.stale, true);
  });

  it('spec 2.12: a value no provider reads fails that read, naming the key and the reason; others still read', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const { b: old } = await wrapped([{ resources: ['secrets'], providers: [gcm(['old', K1])] }], inner);
    await old.create(SECRET, enc(PLAINTEXT));
    const { b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['new', K2])] }], inner);
    await b.create('/registry/core/secrets/ns/s2', enc('{}'));
    await assert.rejects(b.get(SECRET), (e: unknown) =>
      isStorageError(e, 'Unreadable') && e.message.includes(SECRET) && e.message.includes(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:old:`) && !e.message.includes('aHVudGVyMg'),
    );
    assert.equal(dec((await b.get('/registry/core/secrets/ns/s2'))!.value), '{}');
    await assert.rejects(b.list('/registry/core/secrets/'), (e: unknown) => isStorageError(e, 'Unreadable') && e.message.includes(SECRET));
    const marked = await b.list('/registry/core/secrets/', { markUnreadable: true });
    assert.deepEqual(marked.items.map((kv: KeyValue) => [kv.key, kv.value.length > 0, isStorageError(kv.unreadable, 'Unreadable')]), [
      [SECRET, false, true],
      ['/registry/core/secrets/ns/s2', true, false],
    ]);
  });

  it('spec 2.12: a tampered value fails with the provider that tried and why', async () => {
    const { inner, b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }]);
    const kv = await b.create(SECRET, enc(PLAINTEXT));
    const raw = (await inner.get(SECRET))!.value.slice();
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 1;
    await inner.update(SECRET, raw, kv.modRevision);
    await assert.rejects(b.get(SECRET), (e: unknown) => isStorageError(e, 'Unreadable') && /aesgcm:v1:k1: message authentication failed/.test(e.message));
  });

  it('spec 2.12: plain data is read only where identity is configured; encrypted data never passes as plain', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    await inner.create(SECRET, enc(PLAINTEXT));
    const { b: strict } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }], inner);
    await assert.rejects(strict.get(SECRET), (e: unknown) => isStorageError(e, 'Unreadable') && /stored unencrypted and identity is not a configured provider/.test(e.message));
    const { b: lenient } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1]), { identity: {} }] }], inner);
    assert.equal(dec((await lenient.get(SECRET))!.value), PLAINTEXT);
    // A resource the file does not name, holding an encrypted value: refused, not returned as it is.
    await inner.create('/registry/core/configmaps/ns/c', enc(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:k1:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`));
    await assert.rejects(strict.get('/registry/core/configmaps/ns/c'), (e: unknown) => isStorageError(e, 'Unreadable'));
  });

  it('spec 2.12: watch events and their previous values arrive decrypted; unreadable ones end a plain watch', async () => {
    const { b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }]);
    const from = await b.currentRevision();
    const c = await b.create(SECRET, enc('one'));
    await b.update(SECRET, enc('two'), c.modRevision);
    await b.delete(SECRET);
    const ac = new AbortController();
    const events = await take(b.watch('/registry/core/secrets/', from, ac.signal), 3);
    ac.abort();
    assert.deepEqual(
      events.map((e) => (e.type === 'PUT' ? `PUT ${dec(e.kv.value)} prev=${e.prev ? dec(e.prev.value) : '-'}` : `DELETE prev=${dec(e.prev.value)}`)),
      ['PUT one prev=-', 'PUT two prev=one', 'DELETE prev=two'],
    );
  });

  it('spec 2.12: an unreadable watch event fails a plain watch and comes marked to a watch that asks', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const { b } = await wrapped([{ resources: ['secrets'], providers: [gcm(['k1', K1])] }], inner);
    const from = await b.currentRevision();
    await inner.create(SECRET, enc(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:gone:0000000000000000000000000000`));
    const ac = new AbortController();
    await assert.rejects(take(b.watch('/registry/core/secrets/', from, ac.signal), 1), (e: unknown) => isStorageError(e, 'Unreadable'));
    const marked = b.watch('/registry/core/secrets/', from, ac.signal, { progress: true, markUnreadable: true });
    const it = marked[Symbol.asyncIterator]();
    let first = (await it.next()).value;
    while (first?.type === 'PROGRESS') first = (await it.next()).value;
    ac.abort();
    assert.ok(first && first.type === 'PUT' && isStorageError(first.kv.unreadable, 'Unreadable') && first.kv.value.length === 0);
  });
});

/** A local provider answering through promises, as a KMS provider does (remote calls). */
function asyncProvider(inner: EncryptionProvider): EncryptionProvider {
  return {
    name: inner.name,
    prefix: inner.prefix,
    encrypt: async (plain, aad) => inner.encrypt(plain, aad),
    decrypt: async (sealed, aad) => inner.decrypt(sealed, aad),
  };
}

describe('spec 2.12: the encrypting wrapper with providers that answer asynchronously (KMS)', () => {
  const wrongKey = asyncProvider(new AesGcmProvider('k', Buffer.alloc(32, 9)));
  const rightKey = asyncProvider(new AesGcmProvider('k', Buffer.alloc(32, 1)));
  const over = (inner: Backend, readers: EncryptionProvider[]) =>
    new EncryptingBackend(inner, { transformers: new EncryptionTransformers(new Map([['secrets', { writer: readers[0]!, readers }]]), []), resourceOf });

  it('spec 2.12: writes are sealed and read back; a failing reader falls through to the next one, and the value is marked stale', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    await over(inner, [rightKey]).create(SECRET, enc(PLAINTEXT));
    assert.ok(dec((await inner.get(SECRET))!.value).startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:k:`));
    const rotated = over(inner, [wrongKey, rightKey]);
    const kv = (await rotated.get(SECRET))!;
    assert.equal(dec(kv.value), PLAINTEXT);
    assert.equal(kv.stale, true);
    assert.equal(dec((await rotated.list('/registry/core/secrets/')).items[0]!.value), PLAINTEXT);
  });

  it('spec 2.12: a value no asynchronous reader opens fails that read, naming the key and each reason', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    await over(inner, [rightKey]).create(SECRET, enc(PLAINTEXT));
    await assert.rejects(over(inner, [wrongKey]).get(SECRET), (e: unknown) =>
      isStorageError(e, 'Unreadable') && e.message.includes(SECRET) && /aesgcm:v1:k: message authentication failed/.test(e.message),
    );
  });

  it('spec 2.12: watch events of another handle\'s writes arrive decrypted through an asynchronous reader', async () => {
    const inner = new MemoryBackend({ compactIntervalMs: 0 });
    const reader = over(inner, [rightKey]);
    const ac = new AbortController();
    const events = take(reader.watch('/registry/core/secrets/', await inner.currentRevision(), ac.signal), 1);
    await over(inner, [rightKey]).create(SECRET, enc(PLAINTEXT));
    const [e] = await events;
    ac.abort();
    assert.equal(e!.type, 'PUT');
    assert.equal(dec((e as { kv: KeyValue }).kv.value), PLAINTEXT);
  });
});
