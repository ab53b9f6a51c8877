import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, describe, it } from 'node:test';
import { etcdAvailable, startEtcd, type EtcdProcess } from '../src/storage/etcd/index.js';
import { startApiserver, stopAll, tempDir, until, type Target } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { CM_PATH, newLedger, startWriters, verifyLedger } from './helpers/writers.js';

// Issue 23 "Graceful shutdown": SIGTERM under 64 writers and open watches. As the reference does, the server
// stops accepting connections, answers every request it has read, ends watch streams with a proper end of
// the chunked body (not a reset), and exits 0; nothing acknowledged is lost. The plain drain without load
// is covered in apiserver-process.test.ts.

after(stopAll);

let etcd: EtcdProcess | undefined;
after(async () => etcd?.stop());

const WRITES_BEFORE_TERM = 300;
const WATCHES = 4;

interface WatchEnd {
  /** The chunked body ended properly ('end'), rather than by a reset or an abort. */
  clean: boolean;
  how: string;
  resourceVersions: number[];
}

/** A watch on its own connection that runs until the server ends it; `opened` resolves with the headers. */
function openWatch(t: Target, path: string): { opened: Promise<void>; ended: Promise<WatchEnd> } {
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const ended = new Promise<WatchEnd>((resolve) => {
    const resourceVersions: number[] = [];
    let buf = '';
    let settled = false;
    const done = (clean: boolean, how: string) => {
      if (settled) return;
      settled = true;
      resolve({ clean, how, resourceVersions });
    };
    const req = httpsRequest(new URL(path, t.url), { headers: { authorization: `Bearer ${t.adminToken}` }, ca: t.caCertPem, agent: false }, (res) => {
      assert.equal(res.statusCode, 200);
      opened();
      res.on('data', (c: Buffer) => {
        buf += c.toString('utf8');
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) resourceVersions.push(Number(JSON.parse(line).object.metadata.resourceVersion));
        }
      });
      res.on('end', () => done(buf === '', buf === '' ? 'end' : `end inside an event: ${buf.slice(0, 80)}`));
      res.on('aborted', () => done(false, 'aborted'));
      res.on('error', (e) => done(false, String(e)));
    });
    req.on('error', (e) => done(false, String(e)));
    req.end();
  });
  return { opened: openedP, ended };
}

async function sigtermUnderLoad(args: string[], serving?: RegExp): Promise<void> {
  const dir = tempDir('orch-drain-');
  const s = await startApiserver([`--data-dir=${dir}`, '--shutdown-delay-duration=200ms', ...args], { processGroup: true });
  if (serving) await s.stderrLine(serving, 60_000);
  const rv = (await client(s.target)('GET', CM_PATH)).json.metadata.resourceVersion as string;
  const watches = Array.from({ length: WATCHES }, () => openWatch(s.target, `${CM_PATH}?watch=1&resourceVersion=${rv}`));
  await Promise.all(watches.map((w) => w.opened));

  const ledger = newLedger();
  const pool = startWriters(s.target, ledger, 'drain');
  await until(`${WRITES_BEFORE_TERM} acknowledged writes`, () => pool.ackedCount() >= WRITES_BEFORE_TERM || pool.running() < 64, 60_000);
  assert.equal(pool.running(), 64, `every writer still writing before SIGTERM (${[...ledger.unexpected, ...ledger.stopReasons].join(', ')})`);
  s.child.kill('SIGTERM');
  const code = await s.exited;
  await pool.done;
  const ends = await Promise.all(watches.map((w) => w.ended));

  assert.equal(code, 0, `exit code after SIGTERM; stderr:\n${s.stderr()}`);
  assert.deepEqual(ledger.cutOff, [], 'no answer was cut off after its headers');
  assert.deepEqual(ledger.unexpected, [], 'every answered write succeeded');
  for (const end of ends) {
    assert.equal(end.how, 'end', 'the watch ended with the end of its chunked body');
    assert.ok(end.resourceVersions.length > 0, 'the watch saw events before the end');
    assert.deepEqual(end.resourceVersions, [...end.resourceVersions].sort((a, b) => a - b), 'events in resourceVersion order');
  }

  const again = await startApiserver([`--data-dir=${dir}`, ...args], { processGroup: true });
  // Every acknowledged write is there; a write that got no answer (refused at connect, or on a kept-alive
  // connection the server had closed) was never read, so it must not be there either.
  await verifyLedger(again.target, ledger, { unansweredMayApply: false });
  again.child.kill('SIGTERM');
  assert.equal(await again.exited, 0);
}

describe('SIGTERM under load drains requests and ends watches cleanly (issue 23 graceful shutdown, reference behaviour)', () => {
  it('SQLite, one process: 64 writers and 4 watches; every request answered or refused unread, watches end cleanly, exit 0, nothing acknowledged lost', async () => {
    await sigtermUnderLoad([]);
  });

  it('SQLite, --workers=2: the same through the supervisor and both workers', async () => {
    await sigtermUnderLoad(['--workers=2'], /all 2 workers serving/);
  });

  it('etcd: the same with the store in etcd', { skip: !etcdAvailable() && 'etcd is not installed' }, async () => {
    etcd = await startEtcd();
    await sigtermUnderLoad(['--storage-backend=etcd', `--etcd-servers=${etcd.endpoint}`]);
  });
});
