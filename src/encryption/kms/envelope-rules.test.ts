import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { annotationKeyProblem, annotationsProblem, dekCacheKey, encryptedObjectProblem, keyIdProblem } from './envelope-rules.js';
import { HEALTHY_RESULT_TTL_MS, HealthProbe, UNHEALTHY_RESULT_TTL_MS } from './health-probe.js';
import { LruCache } from './lru.js';
import type { EncryptedObject } from './messages.js';

const b = (s: string) => new Uint8Array(Buffer.from(s));
const valid = (): EncryptedObject => ({ encryptedData: b('d'), keyID: 'k1', encryptedDEKSource: b('s'), annotations: {}, encryptedDEKSourceType: 1 });

describe('reference behaviour: KMS v2 envelope validation', () => {
  const KEY_IDS: [string, string, RegExp | undefined][] = [
    ['a short key id', 'key-1', undefined],
    ['a key id of exactly 1 kB', 'x'.repeat(1024), undefined],
    ['an empty key id', '', /empty/],
    ['a key id over 1 kB', 'x'.repeat(1025), /1025 bytes, more than the limit of 1024/],
  ];
  for (const [name, id, problem] of KEY_IDS) {
    it(`reference behaviour: ${name} is ${problem ? 'rejected' : 'accepted'}`, () => {
      const got = keyIdProblem(id);
      if (problem) assert.match(got ?? '', problem);
      else assert.equal(got, undefined);
    });
  }

  const ANNOTATION_KEYS: [string, boolean][] = [
    ['version.encryption.remote.io', true],
    ['a.b', true],
    ['trailing.dot.', true],
    ['single', false],
    ['Upper.Case', false],
    ['under_score.io', false],
    ['-dash.io', false],
    ['', false],
    [`${'a'.repeat(64)}.io`, false],
  ];
  for (const [key, ok] of ANNOTATION_KEYS) {
    it(`reference behaviour: annotation key ${JSON.stringify(key.length > 20 ? `${key.slice(0, 20)}...` : key)} is ${ok ? 'a' : 'not a'} fully qualified domain name`, () => {
      assert.equal(annotationKeyProblem(key) === undefined, ok);
    });
  }

  it('reference behaviour: annotations may total 32 kB (keys plus values) and no more', () => {
    const key = 'a.example.io';
    assert.equal(annotationsProblem({ [key]: new Uint8Array(32 * 1024 - key.length) }), undefined);
    assert.match(annotationsProblem({ [key]: new Uint8Array(32 * 1024 - key.length + 1) }) ?? '', /32769 bytes in total/);
  });

  const OBJECTS: [string, Partial<EncryptedObject>, RegExp][] = [
    ['an unknown DEK source type', { encryptedDEKSourceType: 2 }, /unknown encryptedDEKSourceType 2/],
    ['empty encrypted data', { encryptedData: new Uint8Array(0) }, /encrypted data is empty/],
    ['an empty encrypted DEK source', { encryptedDEKSource: new Uint8Array(0) }, /DEK source is empty/],
    ['an encrypted DEK source over 1 kB', { encryptedDEKSource: new Uint8Array(1025) }, /1025 bytes, more than the limit of 1024/],
    ['an empty key id', { keyID: '' }, /key ID is empty/],
    ['a bad annotation key', { annotations: { bad: b('x') } }, /at least two dot-separated segments/],
  ];
  for (const [name, change, why] of OBJECTS) {
    it(`reference behaviour: an envelope with ${name} is rejected`, () => {
      assert.match(encryptedObjectProblem({ ...valid(), ...change }) ?? '', why);
    });
  }

  it('reference behaviour: a well-formed envelope passes, and a template may lack data', () => {
    assert.equal(encryptedObjectProblem(valid()), undefined);
    assert.equal(encryptedObjectProblem({ ...valid(), encryptedData: new Uint8Array(0) }, false), undefined);
  });

  it('reference behaviour: the DEK cache key tells apart every field the plugin needs, and ignores annotation order', () => {
    const base = valid();
    const keys = new Set([
      dekCacheKey(base),
      dekCacheKey({ ...base, encryptedDEKSourceType: 0 }),
      dekCacheKey({ ...base, keyID: 'k2' }),
      dekCacheKey({ ...base, encryptedDEKSource: b('t') }),
      dekCacheKey({ ...base, annotations: { 'a.b': b('1') } }),
      // the same bytes split differently between source and key id
      dekCacheKey({ ...base, encryptedDEKSource: b('sk'), keyID: '1' }),
    ]);
    assert.equal(keys.size, 6);
    assert.equal(dekCacheKey({ ...base, annotations: { 'a.b': b('1'), 'c.d': b('2') } }), dekCacheKey({ ...base, annotations: { 'c.d': b('2'), 'a.b': b('1') } }));
  });
});

describe('reference behaviour: KMS helpers', () => {
  it('reference behaviour: the v1 DEK cache evicts the least recently used entry', () => {
    const lru = new LruCache<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    assert.equal(lru.get('a'), 1);
    lru.set('c', 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    assert.equal(lru.size, 2);
  });

  it('reference behaviour: a health result is reused for 20s when healthy and 3s when not, and concurrent checks share one run', async () => {
    let clock = 0;
    let runs = 0;
    let fail = false;
    const probe = new HealthProbe(async () => {
      runs++;
      if (fail) throw new Error('plugin down');
    }, () => clock);
    await Promise.all([probe.check(), probe.check()]);
    assert.equal(runs, 1);
    clock += HEALTHY_RESULT_TTL_MS - 1;
    await probe.check();
    assert.equal(runs, 1);
    clock += 2;
    fail = true;
    await assert.rejects(probe.check(), /plugin down/);
    assert.equal(runs, 2);
    fail = false;
    clock += UNHEALTHY_RESULT_TTL_MS - 1;
    await assert.rejects(probe.check(), /plugin down/);
    clock += 2;
    await probe.check();
    assert.equal(runs, 3);
  });
});
