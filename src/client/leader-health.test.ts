import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.js';
import { LeaderElector, type Lease } from './leader-election.js';
import type { ResourceSource } from './informer.js';
import type { ResourceClient } from './resource.js';
import { statusErrorFromStatus } from './status-error.js';

/** An in-memory Lease store; `stall` makes writes wait until their signal aborts (a renewal that hangs). */
function leaseSource() {
  let lease: Lease | undefined;
  let rv = 0;
  const state = { stall: false, writes: 0 };
  const hang = (signal?: AbortSignal) => new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  const client = {
    async get() {
      if (!lease) throw statusErrorFromStatus({ reason: 'NotFound', code: 404, message: 'not found' });
      return structuredClone(lease);
    },
    async create(obj: Lease, o: { signal?: AbortSignal }) {
      if (state.stall) return hang(o.signal);
      state.writes++;
      lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
      return structuredClone(lease);
    },
    async update(obj: Lease, o: { signal?: AbortSignal }) {
      if (state.stall) return hang(o.signal);
      state.writes++;
      lease = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: String(++rv) } };
      return structuredClone(lease);
    },
  };
  const source: ResourceSource = { resource: <T,>() => client as unknown as ResourceClient<T & Lease> } as unknown as ResourceSource;
  return { source, state };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), 'condition not reached');
};

describe('leader election health (reference behaviour)', () => {
  it('reference behaviour: a candidate that does not lead is healthy', () => {
    const { source } = leaseSource();
    const el = new LeaderElector({ client: source, resourceName: 'l', resourceNamespace: 'ns', identity: 'a', clock: new FakeClock(1_000_000), callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined } });
    assert.doesNotThrow(() => el.checkHealth(20_000));
  });

  it('reference behaviour: a leader whose renewal stalls fails past lease duration + tolerance, not before', async () => {
    const { source, state } = leaseSource();
    const clock = new FakeClock(1_000_000);
    const stop = new AbortController();
    const el = new LeaderElector({
      client: source,
      resourceName: 'l',
      resourceNamespace: 'ns',
      identity: 'a',
      clock,
      // Real-time pauses are the retry period; the renew deadline's timeout is long, so the stalled write hangs.
      leaseDurationMs: 60_000,
      renewDeadlineMs: 50_000,
      retryPeriodMs: 10,
      callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
    });
    const running = el.run(stop.signal);
    await until(() => el.isLeader() && state.writes >= 2);
    assert.doesNotThrow(() => el.checkHealth(20_000));
    state.stall = true;
    await new Promise((r) => setTimeout(r, 50));
    clock.step(60_000 + 20_000);
    assert.ok(el.isLeader());
    assert.doesNotThrow(() => el.checkHealth(20_000), 'exactly lease duration + tolerance is still healthy');
    clock.step(1_000);
    assert.throws(() => el.checkHealth(20_000), /last renewed 81 s ago/);
    // Stopping releases the lease: let that write through.
    state.stall = false;
    stop.abort();
    await running;
    assert.equal(el.isLeader(), false);
    assert.doesNotThrow(() => el.checkHealth(20_000));
  });
});
