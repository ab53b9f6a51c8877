import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { Client, LEASE_GVR, LeaderElector, retryOnConflict, timingsFromBlock, validateLeaderElection, type Lease } from '../src/client/index.js';

// Shortened durations: lease 1 s, renew deadline 0.8 s, retry 0.2 s.
const TIMINGS = { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (what: string, f: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(10);
  }
};

interface Candidate {
  elector: LeaderElector;
  abort: AbortController;
  run: Promise<void>;
  events: string[];
}

describe('leader election on Lease objects (spec 2.12 leader election block)', () => {
  let server: RunningServer;
  let client: Client;
  const candidate = (identity: string, name: string, releaseOnCancel = true): Candidate => {
    const events: string[] = [];
    const elector = new LeaderElector({
      client,
      resourceName: name,
      resourceNamespace: 'default',
      identity,
      releaseOnCancel,
      ...TIMINGS,
      callbacks: {
        onStartedLeading: (signal) => {
          events.push('started');
          signal.addEventListener('abort', () => events.push('signal aborted'));
        },
        onStoppedLeading: () => events.push('stopped'),
        onNewLeader: (who) => events.push(`leader ${who}`),
      },
    });
    const abort = new AbortController();
    return { elector, abort, run: elector.run(abort.signal), events };
  };

  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
  });
  after(async () => {
    client.close();
    await server.close();
  });

  it('spec 2.12: with two candidates exactly one leads; stopping it releases the lease and the other takes over within one lease duration', async () => {
    const a = candidate('a', 'handover');
    const b = candidate('b', 'handover');
    await waitFor('a leader', () => a.elector.isLeader() || b.elector.isLeader());
    for (let i = 0; i < 30; i++) {
      assert.equal(Number(a.elector.isLeader()) + Number(b.elector.isLeader()), 1, 'exactly one leads');
      await sleep(50);
    }
    const [leader, other] = a.elector.isLeader() ? [a, b] : [b, a];
    const lease = await client.resource<Lease>(LEASE_GVR, 'default').get('handover');
    assert.equal(lease.spec?.holderIdentity, leader === a ? 'a' : 'b');
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
    assert.match(lease.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime format');
    const stoppedAt = Date.now();
    leader.abort.abort();
    await leader.run;
    await waitFor('hand-over', () => other.elector.isLeader());
    assert.ok(Date.now() - stoppedAt < TIMINGS.leaseDurationMs, `handed over in ${Date.now() - stoppedAt} ms`);
    assert.deepEqual(leader.events.filter((e) => !e.startsWith('leader')), ['started', 'signal aborted', 'stopped']);
    const after = await client.resource<Lease>(LEASE_GVR, 'default').get('handover');
    assert.equal(after.spec?.holderIdentity, other === a ? 'a' : 'b');
    assert.equal(after.spec?.leaseTransitions, 1, 'created with 0 by the first leader; the release keeps the count; the take-over adds one');
    assert.ok(other.events.includes(`leader ${other === a ? 'a' : 'b'}`), 'onNewLeader saw the new holder');
    other.abort.abort();
    await other.run;
  });

  it('spec 2.12: a leader that stops renewing without release is replaced once the lease expires by the follower\'s own clock', async () => {
    const a = candidate('a', 'crash', false);
    await waitFor('a leads', () => a.elector.isLeader());
    const b = candidate('b', 'crash');
    await sleep(300);
    assert.equal(b.elector.isLeader(), false, 'a valid lease is not taken');
    const stoppedAt = Date.now();
    a.abort.abort();
    await a.run;
    await waitFor('b leads', () => b.elector.isLeader());
    const took = Date.now() - stoppedAt;
    // Expiry is counted from b's last observation of a renewal, at most one (jittered) retry period late.
    assert.ok(took >= TIMINGS.leaseDurationMs - 2 * TIMINGS.retryPeriodMs, `not before expiry (${took} ms)`);
    assert.ok(took < TIMINGS.leaseDurationMs + 3 * TIMINGS.retryPeriodMs, `soon after expiry (${took} ms)`);
    b.abort.abort();
    await b.run;
  });

  it('spec 2.12: a leader that cannot renew within renewDeadline stops leading', async () => {
    const a = candidate('a', 'stolen');
    await waitFor('a leads', () => a.elector.isLeader());
    const leases = client.resource<Lease>(LEASE_GVR, 'default');
    await retryOnConflict(async () => {
      const lease = await leases.get('stolen');
      await leases.update({ ...lease, spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 60 } });
    });
    const stolenAt = Date.now();
    await a.run;
    const took = Date.now() - stolenAt;
    assert.equal(a.elector.isLeader(), false);
    assert.ok(a.events.includes('stopped'));
    assert.ok(took <= TIMINGS.retryPeriodMs * 1.2 + TIMINGS.renewDeadlineMs + TIMINGS.retryPeriodMs * 1.5, `gave up after ${took} ms`);
    assert.equal((await leases.get('stolen')).spec?.holderIdentity, 'intruder', 'a lost leader does not release what it no longer holds');
  });

  it('spec 2.12: renewDeadline at most leaseDuration, positive durations, leases lock only (table)', () => {
    const rows: [Parameters<typeof validateLeaderElection>[0], RegExp | undefined][] = [
      [{}, undefined],
      [{ leaseDurationMs: 15000, renewDeadlineMs: 15000, retryPeriodMs: 2000 }, undefined],
      [{ leaseDurationMs: 10000, renewDeadlineMs: 15000 }, /renewDeadline: must be less than or equal to leaseDuration/],
      [{ retryPeriodMs: 0 }, /retryPeriod: must be greater than zero/],
      [{ renewDeadlineMs: 2000, retryPeriodMs: 2000 }, /renewDeadline: must be greater than retryPeriod\*1.2/],
      [{ resourceLock: 'endpoints' }, /resourceLock: Unsupported value: "endpoints"/],
      [{ resourceName: '' }, /resourceName: Required value/],
    ];
    for (const [config, want] of rows) {
      const errs = validateLeaderElection(config).join('; ');
      if (want) assert.match(errs, want, JSON.stringify(config));
      else assert.equal(errs, '', JSON.stringify(config));
    }
    assert.deepEqual(timingsFromBlock({ leaseDuration: '30s', renewDeadline: '20s' }, 'cm.yaml'), { leaseDurationMs: 30000, renewDeadlineMs: 20000, retryPeriodMs: 2000 });
    assert.throws(() => timingsFromBlock({ leaseDuration: '5s' }, 'cm.yaml'), /^Error: cm\.yaml: leaderElection\.renewDeadline: must be less than or equal to leaseDuration$/);
    assert.throws(() => timingsFromBlock({ retryPeriod: 'soon' }, 'cm.yaml', 'generic.leaderElection'), /cm\.yaml: generic\.leaderElection\.retryPeriod: invalid duration "soon"/);
    assert.throws(() => new LeaderElector({ client, resourceName: 'x', resourceNamespace: 'default', identity: 'i', renewDeadlineMs: 20000, callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined } }), /renewDeadline/);
  });
});
