import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { backendContract, take } from '../testing/contract.js';
import { startProcessPeer } from '../testing/process-peer.js';
import { SqliteBackend } from './sqlite-backend.js';

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
