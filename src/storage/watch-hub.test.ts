import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgressNotify, WatchEvent } from './backend.js';
import { WatchHub } from './watch-hub.js';

const put = (key: string, revision: number): WatchEvent => ({
  type: 'PUT',
  revision,
  kv: { key, value: new Uint8Array(), createRevision: revision, modRevision: revision, version: 1 } as never,
});

/** Everything queued so far, without waiting (the hub pushes synchronously). */
async function drain(q: AsyncIterable<WatchEvent | ProgressNotify>, n: number): Promise<string[]> {
  const out: string[] = [];
  const it = q[Symbol.asyncIterator]();
  for (let i = 0; i < n; i++) {
    const r = await it.next();
    if (r.done) break;
    const e = r.value;
    out.push(e.type === 'PROGRESS' ? `progress@${e.revision}` : `${e.type} ${e.type === 'PUT' ? e.kv.key : e.key}@${e.revision}`);
  }
  return out;
}

describe('watch hub: fan-out of the change feed (architecture rule 1)', () => {
  it('an event reaches exactly the watchers whose prefix it starts with, slash-ended or not', async () => {
    const hub = new WatchHub();
    const ac = new AbortController();
    const deployments = hub.open('/registry/apps/deployments/', 0, [], ac.signal);
    const apps = hub.open('/registry/apps/', 0, [], ac.signal);
    const oneKey = hub.open('/registry/apps/deployments/ns/web', 0, [], ac.signal);
    const partial = hub.open('/registry/apps/dep', 0, [], ac.signal);
    const other = hub.open('/registry/core/configmaps/', 0, [], ac.signal);
    hub.publish([put('/registry/apps/deployments/ns/web', 1), put('/registry/core/configmaps/ns/a', 2), put('/registry/apps/deployments/ns/web2', 3)]);
    assert.deepEqual(await drain(deployments, 2), ['PUT /registry/apps/deployments/ns/web@1', 'PUT /registry/apps/deployments/ns/web2@3']);
    assert.deepEqual(await drain(apps, 2), ['PUT /registry/apps/deployments/ns/web@1', 'PUT /registry/apps/deployments/ns/web2@3']);
    assert.deepEqual(await drain(oneKey, 2), ['PUT /registry/apps/deployments/ns/web@1', 'PUT /registry/apps/deployments/ns/web2@3']);
    assert.deepEqual(await drain(partial, 2), ['PUT /registry/apps/deployments/ns/web@1', 'PUT /registry/apps/deployments/ns/web2@3']);
    assert.deepEqual(await drain(other, 1), ['PUT /registry/core/configmaps/ns/a@2']);
    ac.abort();
    assert.equal(hub.size, 0, 'closed watches leave the indexes');
  });

  it('events at or before a watch start are not delivered twice', async () => {
    const hub = new WatchHub();
    const ac = new AbortController();
    hub.lastRevision = 5;
    const w = hub.open('/r/', 5, [], ac.signal);
    hub.publish([put('/r/a', 5), put('/r/b', 6)]);
    assert.deepEqual(await drain(w, 1), ['PUT /r/b@6']);
    ac.abort();
  });

  it('progress: sent at the start of a watch, then only while a reader waits for a revision the feed has not passed', async () => {
    const hub = new WatchHub();
    const ac = new AbortController();
    const quiet = hub.open('/quiet/', 0, [], ac.signal, true);
    const seen: string[] = [];
    const it = quiet[Symbol.asyncIterator]();
    const next = async () => {
      const r = await it.next();
      const e = r.value as ProgressNotify;
      seen.push(`${e.type}@${e.revision}`);
    };
    await next();
    assert.deepEqual(seen, ['PROGRESS@0'], 'the start tells where the feed is');
    // Writes elsewhere do not wake a quiet watch by themselves ...
    hub.publish([put('/busy/a', 1)]);
    hub.publish([put('/busy/b', 2)]);
    // ... until a reader asks to reach revision 3: the current position at once, then each publish up to 3.
    hub.requestProgress(3);
    await next();
    hub.publish([put('/busy/c', 3)]);
    await next();
    hub.publish([put('/busy/d', 4)]);
    hub.requestProgress(4);
    await next();
    assert.deepEqual(seen, ['PROGRESS@0', 'PROGRESS@2', 'PROGRESS@3', 'PROGRESS@4']);
    // Nothing else was queued: publishing d did not send progress once the wanted revision was passed.
    const more = await Promise.race([it.next().then(() => 'event'), new Promise((r) => setTimeout(() => r('nothing'), 20))]);
    assert.equal(more, 'nothing');
    ac.abort();
  });
});
