import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Backend, KeyValue, WatchEvent } from '../backend.js';
import { isStorageError, StorageError } from '../errors.js';
import type { Peer } from './peer.js';

export interface BackendHarness {
  /** A fresh, empty store with a long history window and no automatic compaction. */
  open(): Promise<Backend>;
  /** A second independent handle (another process, another client) on the store of `backend`. */
  peer(backend: Backend): Promise<Peer>;
  cleanup?(): Promise<void>;
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function rejectsWith(p: Promise<unknown>, code: StorageError['code']): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isStorageError(e), `expected StorageError ${code}, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

/**
 * The "peer" of a store with no second process (memory, or a decorator over it): a second view of the
 * same object, writing through it and reading its watch.
 */
export function sameProcessPeer(b: Backend): Peer {
  return {
    create: async (key, value) => (await b.create(key, enc(value))).modRevision,
    collect: async (prefix, from, count) => {
      const ac = new AbortController();
      const events = await take(b.watch(prefix, from, ac.signal), count);
      ac.abort();
      return events.map((e) => ({ type: e.type, key: e.type === 'PUT' ? e.kv.key : e.key, revision: e.revision }));
    },
    close: async () => undefined,
  };
}

/** Takes `n` events from a watch, failing after `timeoutMs`. */
export async function take(iter: AsyncIterable<WatchEvent>, n: number, timeoutMs = 5000): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  if (n === 0) return out;
  const it = iter[Symbol.asyncIterator]();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${out.length}/${n} events`)), timeoutMs);
  });
  try {
    while (out.length < n) {
      const r = await Promise.race([it.next(), timeout]);
      if (r.done) throw new Error(`watch ended after ${out.length}/${n} events`);
      out.push(r.value);
    }
    return out;
  } finally {
    clearTimeout(timer);
  }
}

const summary = (e: WatchEvent) =>
  e.type === 'PUT' ? `PUT ${e.kv.key}@${e.revision}=${dec(e.kv.value)}` : `DELETE ${e.key}@${e.revision}`;

/** The storage contract (src/storage/backend.ts), run unchanged against every backend. */
export function backendContract(name: string, harness: BackendHarness): void {
  describe(`storage contract (spec 2.2, 4.5-4.7, 8): ${name}`, () => {
    let b: Backend;
    let n = 0;
    /** A prefix of its own for every test, so tests never see each other's keys. */
    const fresh = () => `/t${++n}/`;

    before(async () => {
      b = await harness.open();
    });
    after(async () => {
      await b.close();
      await harness.cleanup?.();
    });

    it('adds exactly 1 to the global revision per successful write, 0 per failed one', async () => {
      const p = fresh();
      const r0 = await b.currentRevision();
      const c = await b.create(`${p}a`, enc('1'));
      assert.equal(c.modRevision, r0 + 1);
      assert.equal(c.createRevision, r0 + 1);
      await rejectsWith(b.create(`${p}a`, enc('2')), 'KeyExists');
      await rejectsWith(b.update(`${p}a`, enc('2'), c.modRevision + 100), 'Conflict');
      await rejectsWith(b.delete(`${p}missing`), 'NotFound');
      assert.equal(await b.currentRevision(), r0 + 1);
      const u = await b.update(`${p}a`, enc('2'), c.modRevision);
      assert.equal(u.modRevision, r0 + 2);
      assert.equal(u.createRevision, r0 + 1);
      const d = await b.delete(`${p}a`, u.modRevision);
      assert.equal(dec(d.value), '2');
      assert.equal(await b.currentRevision(), r0 + 3);
    });

    it('create fails with KeyExists only while the key is live; a re-created key gets a new createRevision', async () => {
      const p = fresh();
      const first = await b.create(`${p}k`, enc('v1'));
      const e = await rejectsWith(b.create(`${p}k`, enc('v2')), 'KeyExists');
      assert.equal(e.details.key, `${p}k`);
      assert.equal(dec((await b.get(`${p}k`))!.value), 'v1', 'a failed create must not change the value');
      await b.delete(`${p}k`);
      assert.equal(await b.get(`${p}k`), undefined);
      const second = await b.create(`${p}k`, enc('v3'));
      assert.ok(second.createRevision > first.createRevision);
    });

    it('update and delete compare the expected modRevision (compare-and-swap)', async () => {
      const p = fresh();
      const c = await b.create(`${p}k`, enc('a'));
      const e = await rejectsWith(b.update(`${p}k`, enc('b'), c.modRevision - 1), 'Conflict');
      assert.equal(e.details.actualRevision, c.modRevision);
      await rejectsWith(b.update(`${p}nope`, enc('b'), 1), 'NotFound');
      const u = await b.update(`${p}k`, enc('b'), c.modRevision);
      await rejectsWith(b.delete(`${p}k`, c.modRevision), 'Conflict');
      assert.equal(dec((await b.get(`${p}k`))!.value), 'b');
      const d = await b.delete(`${p}k`, u.modRevision);
      assert.equal(d.modRevision, u.modRevision);
      assert.equal(dec(d.value), 'b');
      await rejectsWith(b.update(`${p}k`, enc('c'), u.modRevision), 'NotFound');
    });

    it('stores values as opaque bytes', async () => {
      const p = fresh();
      const bytes = new Uint8Array([0, 255, 1, 254, 0, 10, 13]);
      await b.create(`${p}bin`, bytes);
      assert.deepEqual([...(await b.get(`${p}bin`))!.value], [...bytes]);
      await b.create(`${p}empty`, new Uint8Array());
      assert.equal((await b.get(`${p}empty`))!.value.length, 0);
    });

    it('reads the latest state or any past revision inside the window', async () => {
      const p = fresh();
      const c = await b.create(`${p}k`, enc('one'));
      const u = await b.update(`${p}k`, enc('two'), c.modRevision);
      await b.create(`${p}other`, enc('x'));
      const d = await b.delete(`${p}k`);
      assert.equal(await b.get(`${p}k`), undefined);
      assert.equal(dec((await b.get(`${p}k`, { revision: c.modRevision }))!.value), 'one');
      assert.equal(dec((await b.get(`${p}k`, { revision: u.modRevision }))!.value), 'two');
      assert.equal(await b.get(`${p}k`, { revision: c.modRevision - 1 }), undefined);
      assert.equal(d.modRevision, u.modRevision);
      const atU = await b.list(p, { revision: u.modRevision });
      assert.equal(atU.revision, u.modRevision);
      assert.deepEqual(atU.items.map((kv) => `${kv.key}=${dec(kv.value)}`), [`${p}k=two`]);
      const now = await b.list(p);
      assert.deepEqual(now.items.map((kv) => kv.key), [`${p}other`]);
      assert.equal(now.revision, await b.currentRevision());
    });

    it('fails with FutureRevision for a read after the newest revision', async () => {
      const cur = await b.currentRevision();
      await rejectsWith(b.get('/x', { revision: cur + 10 }), 'FutureRevision');
      await rejectsWith(b.list('/x', { revision: cur + 10 }), 'FutureRevision');
    });

    it('lists a prefix in key order with startKey, limit and "more", and counts', async () => {
      const p = fresh();
      const names = ['b', 'a', 'd', 'c', 'e'];
      for (const k of names) await b.create(`${p}${k}`, enc(k));
      await b.create(`${p.slice(0, -1)}x/zzz`, enc('outside the prefix'));
      const all = await b.list(p);
      assert.deepEqual(all.items.map((kv) => kv.key), ['a', 'b', 'c', 'd', 'e'].map((k) => p + k));
      assert.equal(all.more, false);
      const page1 = await b.list(p, { limit: 2 });
      assert.deepEqual(page1.items.map((kv) => dec(kv.value)), ['a', 'b']);
      assert.equal(page1.more, true);
      const page2 = await b.list(p, { limit: 2, startKey: `${p}c`, revision: page1.revision });
      assert.deepEqual(page2.items.map((kv) => dec(kv.value)), ['c', 'd']);
      assert.equal(page2.more, true);
      assert.equal(page2.revision, page1.revision);
      const page3 = await b.list(p, { limit: 2, startKey: `${p}e`, revision: page1.revision });
      assert.deepEqual(page3.items.map((kv) => dec(kv.value)), ['e']);
      assert.equal(page3.more, false);
      const exact = await b.list(p, { limit: 5 });
      assert.equal(exact.more, false, 'exactly limit items left means no more');
      assert.equal(await b.count(p), 5);
      await b.delete(`${p}c`);
      assert.equal(await b.count(p), 4);
    });

    it('a paginated list at a fixed revision shows the snapshot even when keys change in between', async () => {
      const p = fresh();
      for (const k of ['a', 'b', 'c', 'd']) await b.create(`${p}${k}`, enc(k));
      const first = await b.list(p, { limit: 2 });
      await b.delete(`${p}c`);
      await b.create(`${p}bb`, enc('new'));
      const rest = await b.list(p, { startKey: `${p}c`, revision: first.revision });
      assert.deepEqual(rest.items.map((kv) => dec(kv.value)), ['c', 'd']);
    });

    it('100 concurrent compare-and-swap updates on one key: exactly one winner per round', async () => {
      const p = fresh();
      let cur = await b.create(`${p}cas`, enc('0'));
      for (let round = 1; round <= 3; round++) {
        const results = await Promise.allSettled(
          Array.from({ length: 100 }, (_, i) => b.update(`${p}cas`, enc(`${round}:${i}`), cur.modRevision)),
        );
        const won = results.filter((r): r is PromiseFulfilledResult<KeyValue> => r.status === 'fulfilled');
        assert.equal(won.length, 1, `round ${round}: ${won.length} winners`);
        for (const r of results) {
          if (r.status === 'rejected') assert.ok(isStorageError(r.reason, 'Conflict'), String(r.reason));
        }
        cur = won[0]!.value;
        assert.equal(dec((await b.get(`${p}cas`))!.value), dec(cur.value));
      }
    });

    it('no lost update: concurrent read-modify-write loops that retry on Conflict', async () => {
      const p = fresh();
      await b.create(`${p}counter`, enc('0'));
      const worker = async () => {
        for (let i = 0; i < 10; i++) {
          for (;;) {
            const kv = (await b.get(`${p}counter`))!;
            try {
              await b.update(`${p}counter`, enc(String(Number(dec(kv.value)) + 1)), kv.modRevision);
              break;
            } catch (e) {
              if (!isStorageError(e, 'Conflict')) throw e;
            }
          }
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      assert.equal(dec((await b.get(`${p}counter`))!.value), '200');
    });

    it('watch yields every change across keys in revision order, with previous values', async () => {
      const p = fresh();
      const ac = new AbortController();
      const start = await b.currentRevision();
      const w = b.watch(p, start, ac.signal);
      const a = await b.create(`${p}a`, enc('a1'));
      const bb = await b.create(`${p}b`, enc('b1'));
      await b.update(`${p}a`, enc('a2'), a.modRevision);
      await b.create(`${p.slice(0, -1)}-other/x`, enc('not watched'));
      await b.delete(`${p}b`, bb.modRevision);
      const events = await take(w, 4);
      ac.abort();
      assert.deepEqual(events.map(summary), [
        `PUT ${p}a@${start + 1}=a1`,
        `PUT ${p}b@${start + 2}=b1`,
        `PUT ${p}a@${start + 3}=a2`,
        `DELETE ${p}b@${start + 5}`,
      ]);
      const upd = events[2]!;
      assert.ok(upd.type === 'PUT' && upd.prev && dec(upd.prev.value) === 'a1');
      assert.ok(upd.type === 'PUT' && upd.kv.createRevision === start + 1);
      const del = events[3]!;
      assert.ok(del.type === 'DELETE' && dec(del.prev.value) === 'b1');
      assert.equal(events[0]!.type === 'PUT' && events[0]!.prev, undefined);
    });

    it('a watch from a past revision replays exactly the missed events, then continues live', async () => {
      const p = fresh();
      const c = await b.create(`${p}k`, enc('1'));
      const u1 = await b.update(`${p}k`, enc('2'), c.modRevision);
      const u2 = await b.update(`${p}k`, enc('3'), u1.modRevision);
      const ac = new AbortController();
      const w = b.watch(p, c.modRevision, ac.signal);
      await b.update(`${p}k`, enc('4'), u2.modRevision);
      const events = await take(w, 3);
      ac.abort();
      assert.deepEqual(events.map((e) => e.type === 'PUT' && dec(e.kv.value)), ['2', '3', '4']);
      assert.deepEqual(events.map((e) => e.revision), [u1.modRevision, u2.modRevision, u2.modRevision + 1]);
    });

    it('a watch from a future revision waits for it', async () => {
      const p = fresh();
      const cur = await b.currentRevision();
      const ac = new AbortController();
      const w = b.watch(p, cur + 2, ac.signal);
      await b.create(`${p}1`, enc('1'));
      await b.create(`${p}2`, enc('2'));
      await b.create(`${p}3`, enc('3'));
      const [e] = await take(w, 1);
      ac.abort();
      assert.equal(e!.revision, cur + 3);
    });

    it('aborting the signal ends the watch', async () => {
      const p = fresh();
      const ac = new AbortController();
      const w = b.watch(p, await b.currentRevision(), ac.signal);
      const it2 = w[Symbol.asyncIterator]();
      const next = it2.next();
      ac.abort();
      assert.equal((await next).done, true);
    });

    it('another handle on the same store sees our writes in its watch, and we see its writes', async () => {
      const p = fresh();
      const peer = await harness.peer(b);
      try {
        const from = await b.currentRevision();
        const seen = peer.collect(p, from, 2);
        const ac = new AbortController();
        const w = b.watch(p, from, ac.signal);
        await new Promise((r) => setTimeout(r, 100)); // let the peer's watch start
        const ours = await b.create(`${p}ours`, enc('1'));
        const theirs = await peer.create(`${p}theirs`, '2');
        const local = await take(w, 2);
        ac.abort();
        assert.deepEqual(local.map(summary), [`PUT ${p}ours@${ours.modRevision}=1`, `PUT ${p}theirs@${theirs}=2`]);
        const remote = await seen;
        assert.deepEqual(remote.map((e) => `${e.type} ${e.key}@${e.revision}`), [
          `PUT ${p}ours@${ours.modRevision}`,
          `PUT ${p}theirs@${theirs}`,
        ]);
        assert.equal(dec((await b.get(`${p}theirs`))!.value), '2');
      } finally {
        await peer.close();
      }
    });

    // Compaction changes what every later test may read, so it runs last.
    it('compaction drops history: old reads and watches fail with Compacted carrying the compact revision', async () => {
      const p = fresh();
      const c = await b.create(`${p}k`, enc('1'));
      const u = await b.update(`${p}k`, enc('2'), c.modRevision);
      const keep = await b.create(`${p}keep`, enc('kept'));
      const gone = await b.create(`${p}gone`, enc('x'));
      await b.delete(`${p}gone`, gone.modRevision);
      const at = await b.compact(keep.modRevision);
      assert.equal(at, keep.modRevision);
      assert.ok((await b.compactedRevision()) >= keep.modRevision);
      const e = await rejectsWith(b.get(`${p}k`, { revision: c.modRevision }), 'Compacted');
      assert.ok((e.details.revision ?? 0) >= keep.modRevision);
      await rejectsWith(b.list(p, { revision: c.modRevision }), 'Compacted');
      const old = new AbortController();
      await rejectsWith((async () => void (await take(b.watch(p, c.modRevision, old.signal), 1)))(), 'Compacted');
      old.abort();
      // State at and after the compact revision is intact.
      assert.equal(dec((await b.get(`${p}k`, { revision: keep.modRevision }))!.value), '2');
      assert.equal((await b.get(`${p}k`))!.modRevision, u.modRevision);
      assert.deepEqual((await b.list(p)).items.map((kv) => dec(kv.value)), ['2', 'kept']);
      const ac = new AbortController();
      const w = b.watch(p, keep.modRevision, ac.signal);
      const events = await take(w, 2);
      ac.abort();
      assert.deepEqual(events.map((e) => `${e.type}@${e.revision}`), [
        `PUT@${gone.modRevision}`,
        `DELETE@${gone.modRevision + 1}`,
      ]);
    });
  });
}
