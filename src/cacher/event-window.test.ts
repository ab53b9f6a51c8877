import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { EventWindow } from './event-window.js';
import type { CacheEvent } from './types.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const event = (revision: number): CacheEvent => ({
  revision,
  type: 'PUT',
  key: `/r/${revision}`,
  item: { key: `/r/${revision}`, value: new Uint8Array(1024), modRevision: revision } as unknown as CacheEvent['item'],
  prev: undefined,
});

describe('EventWindow (spec 8: history window; issue 23: bounded memory)', () => {
  it('events leave by age and by count; resumes from before the window are refused', () => {
    const w = new EventWindow(1000, 3);
    for (let r = 1; r <= 5; r++) w.push(event(r), 0);
    assert.equal(w.size, 3);
    assert.equal(w.since(1), undefined);
    assert.deepEqual(w.since(2)?.map((e) => e.revision), [3, 4, 5]);
    w.push(event(6), 1500);
    assert.deepEqual(w.since(5)?.map((e) => e.revision), [6], 'events older than the window are gone');
    assert.equal(w.since(4), undefined);
  });

  it('an event that left the window is no longer reachable from it, before the array is compacted', async () => {
    const w = new EventWindow(1000, 1000);
    let first: CacheEvent | undefined = event(1);
    const gone = new WeakRef(first);
    w.push(first, 0);
    first = undefined;
    for (let r = 2; r <= 10; r++) w.push(event(r), 2000); // event 1 is out by age; far fewer than 4096 dead
    await new Promise((r) => setImmediate(r));
    gc();
    assert.equal(gone.deref(), undefined);
    assert.equal(w.size, 9);
  });
});
