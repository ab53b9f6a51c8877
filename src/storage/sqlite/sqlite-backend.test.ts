import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import DatabaseCtor from 'better-sqlite3';
import { isStorageError } from '../errors.js';
import { backendContract, take } from '../testing/contract.js';
import { startProcessPeer } from '../testing/process-peer.js';
import { SqliteBackend, type CommitPeers } from './sqlite-backend.js';

const dirs: string[] = [];
const tempPath = () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-sqlite-'));
  dirs.push(dir);
  return join(dir, 'state.db');
};
const paths = new WeakMap<SqliteBackend, string>();

backendContract('sqlite', {
  open: async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    paths.set(b, path);
    return b;
  },
  // A child process with its own connection to the same file.
  peer: async (b) => startProcessPeer({ type: 'sqlite', path: paths.get(b as SqliteBackend)! }),
  cleanup: async () => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  },
});

describe('sqlite backend specifics', () => {
  it('keeps every write and the revision across close and reopen (spec 2.2)', async () => {
    const path = tempPath();
    const a = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    const kv = await a.create('/k', new TextEncoder().encode('v'));
    await a.update('/k', new TextEncoder().encode('w'), kv.modRevision);
    await a.close();
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    assert.equal(await b.currentRevision(), 2);
    assert.equal(new TextDecoder().decode((await b.get('/k'))!.value), 'w');
    assert.equal((await b.get('/k'))!.createRevision, 1);
    await b.close();
  });

  it('spec 4.5 consistent reads: one revision query serves the reads that asked before it ran, never a later one', async () => {
    const path = tempPath();
    const a = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    const other = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    try {
      const r1 = await a.currentRevision();
      // Reads that ask in one turn share one query, which runs after them.
      const first = a.currentRevision();
      assert.equal(a.currentRevision(), first);
      const [x, y] = await Promise.all([first, a.currentRevision()]);
      assert.equal(x, y);
      const later = a.currentRevision();
      assert.notEqual(later, first, 'a read asking after the query ran gets a new one');
      assert.equal(await later, x);
      // A commit by another connection, acknowledged in a later turn, is seen by the next read at once.
      const kv = await other.create('/memo/k', new TextEncoder().encode('v'));
      assert.equal(await a.currentRevision(), kv.modRevision);
      assert.ok(kv.modRevision > r1);
      // And so is a local commit.
      const kv2 = await a.create('/memo/k2', new TextEncoder().encode('v'));
      assert.equal(await a.currentRevision(), kv2.modRevision);
    } finally {
      await other.close();
      await a.close();
    }
  });

  it('commits concurrent writes of one tick as one group, each with its own outcome', async () => {
    const b = new SqliteBackend({ path: tempPath(), history: { compactIntervalMs: 0 } });
    const enc = new TextEncoder();
    await b.create('/dup', enc.encode('x'));
    const results = await Promise.allSettled([
      b.create('/g/1', enc.encode('1')),
      b.create('/dup', enc.encode('again')),
      b.create('/g/2', enc.encode('2')),
    ]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.equal(await b.currentRevision(), 3);
    await b.close();
  });

  it('compaction removes superseded rows but keeps the state at the compact revision (spec 8)', async () => {
    const b = new SqliteBackend({ path: tempPath(), history: { compactIntervalMs: 0 } });
    const enc = new TextEncoder();
    let kv = await b.create('/c/k', enc.encode('0'));
    for (let i = 1; i <= 2500; i++) kv = await b.update('/c/k', enc.encode(String(i)), kv.modRevision);
    const dead = await b.create('/c/dead', enc.encode('x'));
    await b.delete('/c/dead', dead.modRevision);
    const rev = await b.currentRevision();
    await b.compact(rev);
    const rows = (b as unknown as { db: { prepare(s: string): { pluck(): { get(): number } } } }).db
      .prepare('SELECT COUNT(*) FROM kv')
      .pluck()
      .get();
    assert.equal(rows, 1, 'only the live row of /c/k remains');
    assert.equal(new TextDecoder().decode((await b.get('/c/k'))!.value), '2500');
    await b.close();
  });

  it('compacts automatically once history leaves the window', async () => {
    const b = new SqliteBackend({ path: tempPath(), history: { windowMs: 50, compactIntervalMs: 20 } });
    const enc = new TextEncoder();
    const kv = await b.create('/w/k', enc.encode('1'));
    await b.update('/w/k', enc.encode('2'), kv.modRevision);
    const deadline = Date.now() + 3000;
    while ((await b.compactedRevision()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await b.compactedRevision()) >= 2);
    await b.close();
  });

  it('a watch sees writes that another process makes on the same file', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    const peer = await startProcessPeer({ type: 'sqlite', path });
    const ac = new AbortController();
    const w = b.watch('/x/', await b.currentRevision(), ac.signal);
    const rev = await peer.create('/x/remote', 'v');
    const [e] = await take(w, 1);
    ac.abort();
    assert.equal(e!.revision, rev);
    assert.equal(e!.type === 'PUT' && e!.kv.key, '/x/remote');
    await peer.close();
    await b.close();
  });
});

/** Runs `fn` while a 1 ms ticker measures the longest the event loop went without turning. */
async function longestStall<T>(fn: () => Promise<T>): Promise<{ result: T; maxGapMs: number }> {
  let last = performance.now();
  let maxGapMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 1);
  try {
    return { result: await fn(), maxGapMs };
  } finally {
    clearInterval(ticker);
  }
}

/** Holds the write lock of `path` from a raw connection for `ms`, as another process's commit would. */
function holdWriteLock(path: string, ms: number): Promise<void> {
  const raw = new DatabaseCtor(path);
  raw.exec('BEGIN IMMEDIATE');
  return new Promise((resolve) =>
    setTimeout(() => {
      raw.exec('COMMIT');
      raw.close();
      resolve();
    }, ms),
  );
}

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('sqlite backend: several connections on one file (--workers)', () => {
  it('writes that find the write lock held wait off the event loop and all succeed once it is released', async () => {
    const path = tempPath();
    const a = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    await a.create('/warm/a', enc.encode('x'));
    await b.create('/warm/b', enc.encode('x'));
    const { result, maxGapMs } = await longestStall(async () => {
      // Long enough that a writer stuck in SQLite's busy handler would stall the loop for most of it, while
      // ordinary noise on a busy test machine (GC, scheduling: tens of ms) stays far below the bound.
      const lock = holdWriteLock(path, 400);
      const started = performance.now();
      const writes: Promise<{ modRevision: number }>[] = [];
      // Two bursts on each backend: one while the lock is held, one queued during the retries.
      for (let i = 0; i < 10; i++) writes.push(a.create(`/l/a${i}`, enc.encode('v')), b.create(`/l/b${i}`, enc.encode('v')));
      await sleep(10);
      for (let i = 10; i < 20; i++) writes.push(a.create(`/l/a${i}`, enc.encode('v')), b.create(`/l/b${i}`, enc.encode('v')));
      const kvs = await Promise.all(writes);
      await lock;
      return { kvs, elapsed: performance.now() - started };
    });
    assert.ok(maxGapMs < 200, `the event loop stalled for ${maxGapMs.toFixed(1)} ms while the lock was held`);
    assert.ok(result.elapsed >= 395, `the writes waited for the lock (${result.elapsed.toFixed(1)} ms)`);
    const revs = result.kvs.map((kv) => kv.modRevision);
    assert.equal(new Set(revs).size, 40, 'every write has its own revision');
    assert.equal(await a.currentRevision(), 42);
    assert.equal((await b.list('/l/')).items.length, 40);
    await a.close();
    await b.close();
  });

  it('a write still locked out after writeLockTimeoutMs fails with Unavailable "database is locked"', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 }, writeLockTimeoutMs: 250 });
    await b.create('/warm', enc.encode('v')); // the writer thread is up before the clock starts
    const lock = holdWriteLock(path, 600);
    const { result: err, maxGapMs } = await longestStall(() => b.create('/k', enc.encode('v')).then(() => undefined, (e: unknown) => e));
    assert.ok(isStorageError(err, 'Unavailable'), String(err));
    assert.match((err as Error).message, /database is locked/);
    // A writer waiting inside SQLite would stall the loop until the lock went (600 ms); noise is tens of ms.
    assert.ok(maxGapMs < 150, `the event loop stalled for ${maxGapMs.toFixed(1)} ms`);
    await lock;
    assert.equal((await b.create('/k', enc.encode('v'))).modRevision, 2, 'nothing of the failed write was stored');
    await b.close();
  });

  it('close() commits writes that are waiting for the lock, then closes', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    const lock = holdWriteLock(path, 40);
    const write = b.create('/closing', enc.encode('v'));
    await sleep(5);
    await b.close();
    assert.equal((await write).modRevision, 1);
    await lock;
    await assert.rejects(b.create('/after', enc.encode('v')), /closed/);
    const again = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });
    assert.ok(await again.get('/closing'));
    await again.close();
  });

  it('announces each group commit once to its peers, and publishes a peer\'s writes as soon as it is told of them', async () => {
    const path = tempPath();
    const announced: number[] = [];
    let onPeerCommit: ((revision: number) => void) | undefined;
    const peers: CommitPeers = {
      announce: (revision) => announced.push(revision),
      subscribe(fn) {
        onPeerCommit = fn;
        return () => (onPeerCommit = undefined);
      },
    };
    // Only the peer signal can deliver the other connection's writes: the poll is a minute away.
    const b = new SqliteBackend({ path, history: { compactIntervalMs: 0 }, pollIntervalMs: 60_000, peers });
    const other = new SqliteBackend({ path, history: { compactIntervalMs: 0 } });

    await Promise.all([b.create('/p/1', enc.encode('1')), b.create('/p/2', enc.encode('2')), b.create('/p/3', enc.encode('3'))]);
    assert.deepEqual(announced, [3], 'one announcement for the group commit of three writes, with its newest revision');
    await assert.rejects(b.create('/p/1', enc.encode('again')));
    assert.deepEqual(announced, [3], 'a commit that wrote nothing is not announced');

    const ac = new AbortController();
    const events: number[] = [];
    const w = b.watch('/p/', 3, ac.signal);
    const reading = (async () => {
      for await (const e of w) events.push(e.revision);
    })();
    const kv4 = await other.create('/p/4', enc.encode('4'));
    const kv5 = await other.create('/p/5', enc.encode('5'));
    await sleep(50);
    assert.deepEqual(events, [], 'without the peer signal the writes wait for the poll');
    onPeerCommit!(kv5.modRevision);
    await sleep(0);
    assert.deepEqual(events, [kv4.modRevision, kv5.modRevision]);
    onPeerCommit!(kv5.modRevision); // a late or repeated announcement publishes nothing twice
    await sleep(0);
    assert.equal(events.length, 2);
    ac.abort();
    await reading;
    await other.close();
    await b.close();
    assert.equal(onPeerCommit, undefined, 'close unsubscribes from the peers');
  });
});

describe('sqlite backend: the writer thread', () => {
  it('a write whose writer thread dies fails with Unavailable; the next write starts a new thread and nothing half-written is stored', async () => {
    const b = new SqliteBackend({ path: tempPath(), history: { compactIntervalMs: 0 } });
    await b.create('/t/before', enc.encode('v'));
    const thread = (b as unknown as { writer: { worker: { terminate(): Promise<number> } } }).writer.worker;
    const lost = b.create('/t/lost', enc.encode('v'));
    await thread.terminate();
    const err = await lost.then(() => undefined, (e: unknown) => e);
    // Either the commit landed before the thread went (then it is stored and acknowledged) or it failed whole.
    if (err) {
      assert.ok(isStorageError(err, 'Unavailable'), String(err));
      assert.match((err as Error).message, /writer thread/);
      assert.equal(await b.get('/t/lost'), undefined);
    }
    const after = await b.create('/t/after', enc.encode('v'));
    assert.equal(after.modRevision, await b.currentRevision());
    assert.ok(await b.get('/t/before'));
    await b.close();
  });

  it('close() ends the writer thread every time, also when the thread exits before its last reply is read', async () => {
    for (let i = 0; i < 8; i++) {
      const b = new SqliteBackend({ path: tempPath(), history: { compactIntervalMs: 0 } });
      await b.create('/c/k', enc.encode('v'));
      const closing = b.close();
      // Hold the main thread while the thread answers and exits, so its exit comes before the reply is read.
      setImmediate(() => {
        const until = performance.now() + 50 + i * 10;
        while (performance.now() < until);
      });
      const closed = await Promise.race([closing.then(() => true), sleep(3000).then(() => false)]);
      assert.ok(closed, `close ${i} did not finish`);
    }
  });
});
