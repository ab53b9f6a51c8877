import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CachedItem } from '../cacher/index.js';
import { StorageError } from '../storage/index.js';
import { isUnreadable, itemRef, readable, readableItems, UnreadableLog, type UnreadableItem } from './readable.js';
import type { ResourceType } from './types.js';

const item = (key: string, modRevision = 1): CachedItem => ({ key, value: new Uint8Array([123, 125]), createRevision: 1, modRevision, labels: undefined });
const lost = (key: string, modRevision = 1): UnreadableItem => ({
  ...item(key, modRevision),
  value: new Uint8Array(),
  unreadable: new StorageError('Unreadable', `cannot read the stored value of ${key}`, { key }),
});
const type = (storageKey: string, namespaced: boolean) => ({ storageKey, namespaced }) as ResourceType;

describe('readable: unreadable cached items as explicit outcomes (spec 2.12)', () => {
  it('spec 2.12: readable gives a readable item back and throws a 500 naming an unreadable one', () => {
    const ok = item('/registry/core/secrets/ns/a');
    assert.equal(readable(ok), ok);
    assert.throws(() => readable(lost('/registry/core/secrets/ns/b')), (e: { code?: number; message?: string }) => e.code === 500 && /secrets\/ns\/b/.test(e.message ?? ''));
    assert.equal(isUnreadable(ok), false);
    assert.equal(isUnreadable(lost('/k')), true);
  });

  it('spec 2.12: readableItems keeps the order of the readable items and hands each other one to the callback', () => {
    const skipped: string[] = [];
    const got = [...readableItems([item('/a'), lost('/b'), item('/c'), lost('/d')], (i) => skipped.push(i.key))].map((i) => i.key);
    assert.deepEqual(got, ['/a', '/c']);
    assert.deepEqual(skipped, ['/b', '/d']);
  });

  it('spec 2.12: itemRef reads namespace and name from the key alone', () => {
    const cases: [ResourceType, string, { namespace: string; name: string }][] = [
      [type('core/pods', true), '/registry/core/pods/ns/p', { namespace: 'ns', name: 'p' }],
      [type('core/persistentvolumes', false), '/registry/core/persistentvolumes/pv', { namespace: '', name: 'pv' }],
      [type('g/crds', false), '/registry/g/crds/widgets.example.com', { namespace: '', name: 'widgets.example.com' }],
    ];
    for (const [t, key, want] of cases) assert.deepEqual(itemRef(t, key), want, key);
  });

  it('spec 2.12: UnreadableLog logs an object once per stored version, naming it', () => {
    const lines: string[] = [];
    const log = new UnreadableLog((m) => lines.push(m), 'rbac: an unreadable object grants nothing');
    log.report(lost('/registry/rb/ns/x', 5));
    log.skip(lost('/registry/rb/ns/x', 5));
    log.report(lost('/registry/rb/ns/x', 6));
    assert.deepEqual(lines, [
      'rbac: an unreadable object grants nothing: cannot read the stored value of /registry/rb/ns/x',
      'rbac: an unreadable object grants nothing: cannot read the stored value of /registry/rb/ns/x',
    ]);
  });
});
