import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBackend } from '../storage/index.js';
import { Cacher } from './cacher.js';
import type { CacheEvent } from './types.js';

const enc = (s: string) => new TextEncoder().encode(s);
const labelsOf = (v: Uint8Array) => ({ v: new TextDecoder().decode(v) });

describe('watch cache (architecture rules 1-2, spec 4.5)', () => {
  it('loads the current state, then follows the change feed in order', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    await b.create('/r/a', enc('1'));
    const c = new Cacher(b, '/r/', { labelsOf });
    c.start();
    await c.ready;
    assert.equal(c.size, 1);
    const seen: CacheEvent[] = [];
    const off = c.subscribe((e) => seen.push(e), () => undefined);
    const kv = await b.create('/r/b', enc('2'));
    await b.update('/r/a', enc('3'), 1);
    await b.delete('/r/b', kv.modRevision);
    assert.ok(await c.waitFor(await b.currentRevision(), 1000));
    assert.deepEqual(seen.map((e) => `${e.type} ${e.key}@${e.revision}`), ['PUT /r/b@2', 'PUT /r/a@3', 'DELETE /r/b@4']);
    assert.deepEqual([...c.range('/r/')].map((i) => i.labels?.v), ['3']);
    assert.deepEqual(c.eventsSince(2)?.map((e) => e.revision), [3, 4]);
    off();
    c.stop();
    await b.close();
  });

  it('reaches the current revision through progress notifications when writes go elsewhere (consistent read)', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    const c = new Cacher(b, '/r/', { labelsOf });
    c.start();
    await c.ready;
    await b.create('/other/x', enc('x'));
    await b.create('/other/y', enc('y'));
    assert.ok(await c.waitFor(await b.currentRevision(), 1000), 'progress moved the cache revision');
    assert.equal(c.size, 0);
    c.stop();
    await b.close();
  });

  it('waitFor gives up after its timeout for a revision nobody writes', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    const c = new Cacher(b, '/r/', { labelsOf });
    c.start();
    await c.ready;
    assert.equal(await c.waitFor(100, 50), false);
    c.stop();
    await b.close();
  });

  it('ranges are in key order with a start key, per namespace prefix', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    for (const k of ['/r/ns2/b', '/r/ns1/b', '/r/ns1/a', '/r/ns1/c']) await b.create(k, enc(k));
    const c = new Cacher(b, '/r/', { labelsOf });
    c.start();
    await c.ready;
    assert.deepEqual([...c.range('/r/ns1/')].map((i) => i.key), ['/r/ns1/a', '/r/ns1/b', '/r/ns1/c']);
    assert.deepEqual([...c.range('/r/ns1/', '/r/ns1/b')].map((i) => i.key), ['/r/ns1/b', '/r/ns1/c']);
    assert.equal(c.count('/r/'), 4);
    c.stop();
    await b.close();
  });

  it('the event window forgets events past its size; older resumes are refused', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    const c = new Cacher(b, '/r/', { labelsOf, maxEvents: 3 });
    c.start();
    await c.ready;
    for (let i = 0; i < 6; i++) await b.create(`/r/${i}`, enc(String(i)));
    await c.waitFor(6, 1000);
    assert.equal(c.eventsSince(1), undefined);
    assert.deepEqual(c.eventsSince(3)?.map((e) => e.revision), [4, 5, 6]);
    c.stop();
    await b.close();
  });

  it('encodings shared during the fan-out are not kept in the history window (bounded memory, issue 23)', async () => {
    const b = new MemoryBackend({ compactIntervalMs: 0 });
    const c = new Cacher(b, '/r/', { labelsOf });
    c.start();
    await c.ready;
    const sharedAtDispatch: (Buffer | undefined)[] = [];
    const off = c.subscribe((e) => {
      (e.encoded ??= new Map()).set('view', Buffer.from(`line ${e.revision}`));
      sharedAtDispatch.push(e.encoded.get('view'));
    }, () => undefined);
    await b.create('/r/a', enc('1'));
    assert.ok(await c.waitFor(await b.currentRevision(), 1000));
    assert.equal(sharedAtDispatch.length, 1);
    assert.equal(c.eventsSince(0)?.[0]?.encoded, undefined, 'the window keeps the event, not its encodings');
    off();
    c.stop();
    await b.close();
  });
});
