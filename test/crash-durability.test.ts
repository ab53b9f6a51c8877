import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { etcdAvailable, startEtcd, type EtcdProcess } from '../src/storage/etcd/index.js';
import { startApiserver, stopAll, tempDir, until } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { CM_PATH, maxAckedRv, newLedger, startWriters, verifyLedger, type Ledger } from './helpers/writers.js';

// Issue 23 "kill -9 and restart lose nothing acknowledged": 64 writers, SIGKILL to the whole process group
// mid-load, restart on the same data dir, three rounds. A SIGKILL leaves the OS page cache intact, so this
// proves "acknowledged only after commit", not the fsync itself (that needs a power cut).

after(stopAll);

const ROUNDS = 3;
/** Acknowledged writes per round before the kill. */
const WRITES_BEFORE_KILL = 600;

let etcd: EtcdProcess | undefined;
after(async () => etcd?.stop());

async function killRounds(args: string[], serving?: RegExp): Promise<void> {
  const ledger: Ledger = newLedger();
  for (let round = 1; round <= ROUNDS + 1; round++) {
    const s = await startApiserver(args, { processGroup: true });
    if (serving) await s.stderrLine(serving, 60_000);
    if (round > 1) {
      // Everything acknowledged before the earlier kills is there, and new writes get larger resourceVersions.
      await verifyLedger(s.target, ledger);
      const before = maxAckedRv(ledger);
      const fresh = await client(s.target)('POST', CM_PATH, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-restart-${round}` }, data: { round: String(round) } },
      });
      assert.equal(fresh.status, 201, fresh.text);
      assert.ok(Number(fresh.json.metadata.resourceVersion) > before, `rv ${fresh.json.metadata.resourceVersion} after restart is above every acknowledged rv (${before})`);
      ledger.acked.set(fresh.json.metadata.name, { rv: Number(fresh.json.metadata.resourceVersion), data: { round: String(round) } });
    }
    if (round > ROUNDS) {
      process.kill(-s.child.pid!, 'SIGKILL');
      await s.exited;
      break;
    }
    const start = ledger.acked.size;
    const pool = startWriters(s.target, ledger, `r${round}`);
    await until(`${WRITES_BEFORE_KILL} acknowledged writes in round ${round}`, () => pool.ackedCount() >= WRITES_BEFORE_KILL || pool.running() < 64, 60_000);
    assert.deepEqual(ledger.unexpected, [], 'no write was refused before the kill');
    assert.equal(pool.running(), 64, `every writer still writing before the kill (${ledger.stopReasons.join(', ')})`);
    process.kill(-s.child.pid!, 'SIGKILL');
    await s.exited;
    await pool.done;
    assert.ok(ledger.acked.size > start, `round ${round} acknowledged new names`);
  }
}

describe('kill -9 under 64 writers loses no acknowledged write (issue 23, spec 1.2 persistence)', () => {
  it('SQLite, one process: three SIGKILL rounds on one data dir keep every acknowledged write with its resourceVersion', async () => {
    await killRounds([`--data-dir=${tempDir('orch-crash-')}`]);
  });

  it('SQLite, --workers=2: SIGKILL to the supervisor and both workers, three rounds, nothing acknowledged is lost', async () => {
    await killRounds([`--data-dir=${tempDir('orch-crash-')}`, '--workers=2'], /all 2 workers serving/);
  });

  it('etcd: three SIGKILL rounds of the API server keep every acknowledged write in etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, async () => {
    etcd = await startEtcd();
    await killRounds([`--data-dir=${tempDir('orch-crash-')}`, '--storage-backend=etcd', `--etcd-servers=${etcd.endpoint}`]);
  });
});
