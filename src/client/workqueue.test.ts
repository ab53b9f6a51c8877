import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.js';
import { ItemExponentialRateLimiter, TokenBucketRateLimiter, defaultControllerRateLimiter } from './rate-limiter.js';
import { WorkQueue } from './workqueue.js';

describe('work queue (reference behaviour)', () => {
  it('reference behaviour: a key waiting is queued once however often it is added', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    for (const k of ['a', 'b', 'a', 'a', 'c', 'b']) q.add(k);
    assert.equal(q.len(), 3);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['a', 'b', 'c']);
  });

  it('reference behaviour: a key being processed is not handed out again until done, then comes back once', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('a');
    const first = await q.get();
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'not queued while processing');
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    assert.equal(second, undefined, 'a second worker waits');
    q.done(first as string);
    await Promise.resolve();
    assert.equal(second, 'a');
    q.done('a');
    assert.equal(q.len(), 0);
  });

  it('reference behaviour: addAfter keeps the earliest time per key (table)', () => {
    const table: { adds: [string, number][]; steps: number[]; expect: string[][] }[] = [
      { adds: [['a', 100]], steps: [99, 1], expect: [[], ['a']] },
      { adds: [['a', 100], ['a', 50]], steps: [50], expect: [['a']] },
      { adds: [['a', 50], ['a', 100]], steps: [50, 50], expect: [['a'], ['a']] },
      { adds: [['a', 0], ['b', 10]], steps: [0, 10], expect: [['a'], ['a', 'b']] },
    ];
    for (const row of table) {
      const clock = new FakeClock();
      const q = new WorkQueue<string>({ clock });
      for (const [k, d] of row.adds) q.addAfter(k, d);
      row.steps.forEach((s, i) => {
        clock.step(s);
        assert.equal(q.len(), row.expect[i]?.length, JSON.stringify(row));
      });
      assert.equal(clock.pending, 0);
    }
  });

  it('reference behaviour: per-item exponential backoff from 5 ms to 1000 s, forget resets', () => {
    const l = new ItemExponentialRateLimiter<string>();
    const delays = Array.from({ length: 5 }, () => l.when('k'));
    assert.deepEqual(delays, [5, 10, 20, 40, 80]);
    assert.equal(l.numRequeues('k'), 5);
    assert.equal(l.when('other'), 5, 'per item');
    for (let i = 0; i < 40; i++) l.when('k');
    assert.equal(l.when('k'), 1000_000);
    l.forget('k');
    assert.equal(l.when('k'), 5);
  });

  it('reference behaviour: the overall token bucket allows a burst of 100, then 10 per second', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) assert.equal(bucket.when(), 0);
    assert.equal(bucket.when(), 100);
    assert.equal(bucket.when(), 200);
    clock.step(1000);
    // Ten tokens came back, two of them already spent by the reservations above.
    for (let i = 0; i < 8; i++) assert.equal(bucket.when(), 0);
    assert.equal(bucket.when(), 100);
  });

  it('reference behaviour: addRateLimited waits the larger of item backoff and bucket; done, forget', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock, rateLimiter: defaultControllerRateLimiter(clock) });
    q.addRateLimited('x');
    assert.equal(q.len(), 0);
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    const k = (await q.get()) as string;
    q.addRateLimited(k);
    q.done(k);
    clock.step(9);
    assert.equal(q.len(), 0, 'second failure waits 10 ms');
    clock.step(1);
    assert.equal(q.len(), 1);
    assert.equal(q.numRequeues('x'), 2);
    q.forget('x');
    assert.equal(q.numRequeues('x'), 0);
  });

  it('reference behaviour: shutDown wakes waiting workers; with drain it waits for keys in progress', async () => {
    const q = new WorkQueue<string>({ clock: new FakeClock() });
    q.add('busy');
    const busy = (await q.get()) as string;
    q.add('queued');
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.add('ignored');
    assert.equal(await q.get(), 'queued', 'keys queued before shutdown are still handed out');
    assert.equal(await q.get(), undefined);
    q.done('queued');
    await Promise.resolve();
    assert.equal(drained, false);
    q.done(busy);
    await drain;
    assert.equal(drained, true);
    assert.equal(q.isShuttingDown(), true);
  });
});
