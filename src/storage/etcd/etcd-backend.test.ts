import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { Backend, KeyValue } from '../backend.js';
import { isStorageError, StorageError } from '../errors.js';
import { backendContract, take } from '../testing/contract.js';
import type { Peer } from '../testing/peer.js';
import { EtcdBackend, type EtcdBackendOptions } from './etcd-backend.js';
import { etcdAvailable, startEtcd, type EtcdProcess } from './etcd-process.js';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

function backend(endpoint: string, extra: Partial<EtcdBackendOptions> = {}): EtcdBackend {
  return new EtcdBackend({
    endpoints: [endpoint],
    keyPrefix: `/orch-test-${randomUUID()}`,
    history: { compactIntervalMs: 0 },
    requestTimeoutMs: 5000,
    ...extra,
  });
}

function asPeer(b: EtcdBackend): Peer {
  return {
    create: async (key, value) => (await b.create(key, enc(value))).modRevision,
    collect: async (prefix, from, count) => {
      const ac = new AbortController();
      try {
        const events = await take(b.watch(prefix, from, ac.signal), count);
        return events.map((e) => ({ type: e.type, key: e.type === 'PUT' ? e.kv.key : e.key, revision: e.revision }));
      } finally {
        ac.abort();
      }
    },
    close: () => b.close(),
  };
}

const missing = 'etcd is not on PATH: install the Debian package etcd-server (apt-get install etcd-server)';

if (!etcdAvailable()) {
  if (process.env.CI === 'true') {
    it('etcd is available (required in CI)', () => assert.fail(missing));
  } else {
    process.stderr.write(`\n*** SKIPPING the etcd backend tests: ${missing} ***\n\n`);
    it.skip(`etcd backend tests (skipped: ${missing})`, () => undefined);
  }
} else {
  // One etcd for the whole file; tests keep apart by key prefix.
  let shared: Promise<EtcdProcess> | undefined;
  const etcd = () => (shared ??= startEtcd());
  after(async () => {
    if (shared) await (await shared).stop();
  });

  /** Which etcd and key prefix each contract backend uses, so its peer opens the same store. */
  const stores = new WeakMap<Backend, { endpoint: string; keyPrefix: string }>();

  backendContract('etcd', {
    open: async () => {
      const { endpoint } = await etcd();
      const keyPrefix = `/orch-contract-${randomUUID()}`;
      const b = backend(endpoint, { keyPrefix });
      stores.set(b, { endpoint, keyPrefix });
      return b;
    },
    peer: async (b) => {
      const store = stores.get(b);
      assert.ok(store, 'peer() of a backend this harness did not open');
      // A second client with its own gRPC connection, like another apiserver process.
      const channelOptions = { 'grpc.use_local_subchannel_pool': 1 };
      return asPeer(backend(store.endpoint, { keyPrefix: store.keyPrefix, channelOptions }));
    },
  });

  describe('etcd backend: restarts, outages, foreign compaction', () => {
    it('a watch open across an etcd restart delivers every write exactly once, in order', async () => {
      const proc = await etcd();
      const b = backend(proc.endpoint);
      const ac = new AbortController();
      try {
        const from = await b.currentRevision();
        const w = b.watch('/r/', from, ac.signal);
        const written: KeyValue[] = [];
        let kv = await b.create('/r/a', enc('0'));
        written.push(kv);
        for (let i = 1; i < 5; i++) written.push((kv = await b.update('/r/a', enc(String(i)), kv.modRevision)));
        // Consume only some: the rest are delivered (or still in flight) when etcd dies.
        const seen = await take(w, 3);
        await proc.restart();
        for (let i = 5; i < 10; i++) written.push((kv = await b.update('/r/a', enc(String(i)), kv.modRevision)));
        written.push(await b.create('/r/b', enc('b')));
        seen.push(...(await take(w, written.length - seen.length, 20_000)));
        assert.deepEqual(
          seen.map((e) => `${e.revision}=${e.type === 'PUT' ? dec(e.kv.value) : ''}`),
          written.map((k) => `${k.modRevision}=${dec(k.value)}`),
        );
        // No duplicate is queued behind them: the next event is the next write.
        const marker = await b.create('/r/marker', enc('m'));
        const [next] = await take(w, 1);
        assert.equal(next?.revision, marker.modRevision);
      } finally {
        ac.abort();
        await b.close();
      }
    });

    it('calls while etcd is down fail with StorageError Unavailable or Timeout, never a raw gRPC error', async () => {
      const proc = await startEtcd(); // its own etcd: this one stays down
      const b = backend(proc.endpoint, { requestTimeoutMs: 1000, watchRetryTimeoutMs: 1500 });
      const ac = new AbortController();
      try {
        const kv = await b.create('/k', enc('v'));
        const w = b.watch('/', kv.modRevision, ac.signal);
        await proc.stop();
        const results = await Promise.allSettled([
          b.currentRevision(),
          b.get('/k'),
          b.list('/'),
          b.count('/'),
          b.create('/k2', enc('v')),
          b.update('/k', enc('v2'), kv.modRevision),
          b.delete('/k'),
          b.compact(kv.modRevision),
        ]);
        for (const r of results) {
          assert.equal(r.status, 'rejected');
          const e: unknown = r.reason;
          assert.ok(e instanceof StorageError, `not a StorageError: ${String(e)}`);
          assert.ok(e.code === 'Unavailable' || e.code === 'Timeout', `${e.code}: ${e.message}`);
        }
        // The watch retries until its deadline, then ends with Unavailable.
        await assert.rejects(take(w, 1, 10_000), (e) => isStorageError(e, 'Unavailable'));
      } finally {
        ac.abort();
        await b.close();
        await proc.stop();
      }
    });

    // Compacts the shared etcd, so it runs last.
    it('Compacted carries the compact revision even when another client compacted', async () => {
      const proc = await etcd();
      const keyPrefix = `/orch-compact-${randomUUID()}`;
      const b = backend(proc.endpoint, { keyPrefix });
      const other = backend(proc.endpoint, { keyPrefix });
      try {
        const c = await b.create('/k', enc('1'));
        const u = await b.update('/k', enc('2'), c.modRevision);
        assert.equal(await other.compact(u.modRevision), u.modRevision);
        const e = await b.get('/k', { revision: c.modRevision }).then(
          () => assert.fail('expected Compacted'),
          (err: unknown) => err,
        );
        assert.ok(isStorageError(e, 'Compacted'), String(e));
        assert.equal(e.details.revision, u.modRevision);
        assert.equal(await b.compactedRevision(), u.modRevision);
        // Compacting at or below the compact revision is not an error.
        assert.equal(await b.compact(c.modRevision), u.modRevision);
        assert.equal(await other.compact(u.modRevision), u.modRevision);
        const ac = new AbortController();
        const w = b.watch('/', c.modRevision - 1, ac.signal);
        const carries = (err: unknown) => isStorageError(err, 'Compacted') && err.details.revision === u.modRevision;
        await assert.rejects(take(w, 1), carries);
        ac.abort();
      } finally {
        await b.close();
        await other.close();
      }
    });
  });
}
