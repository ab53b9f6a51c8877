import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStatusError } from '../errors/index.js';
import { Dispatcher, type Clock, type Level } from './dispatcher.js';
import { divideConcurrency, type LevelSpec } from './levels.js';
import { dealHand, flowHash } from './shuffle-shard.js';

/** Timers that fire only when the test advances time. */
class FakeClock implements Clock {
  now = 0;
  private timers: { at: number; f: () => void; live: boolean }[] = [];
  setTimeout(f: () => void, ms: number): unknown {
    const t = { at: this.now + ms, f, live: true };
    this.timers.push(t);
    return t;
  }
  clearTimeout(h: unknown): void {
    (h as { live: boolean }).live = false;
  }
  advance(ms: number): void {
    this.now += ms;
    for (const t of this.timers) if (t.live && t.at <= this.now) (t.live = false), t.f();
  }
}

const spec = (name: string, over: Partial<LevelSpec> = {}): LevelSpec => ({
  name,
  uid: `uid-${name}`,
  exempt: false,
  nominalConcurrencyShares: 10,
  lendablePercent: 0,
  borrowingLimitPercent: undefined,
  reject: false,
  queues: 8,
  handSize: 2,
  queueLengthLimit: 3,
  ...over,
});

function setup(serverLimit: number, specs: LevelSpec[], queueWaitMs = 1000) {
  const clock = new FakeClock();
  const d = new Dispatcher({ serverLimit, queueWaitMs, clock });
  d.configure(specs, divideConcurrency(serverLimit, specs));
  const level = (n: string) => d.level(n) as Level;
  return { d, clock, level };
}

const flush = () => new Promise((r) => setImmediate(r));
const tick = async (p: Promise<Level>) => {
  let state: 'waiting' | 'admitted' | 'rejected' = 'waiting';
  p.then(() => (state = 'admitted'), (e: unknown) => {
    assert.ok(isStatusError(e) && e.code === 429, String(e));
    state = 'rejected';
  });
  return () => flush().then(() => state);
};

describe('API priority and fairness: concurrency shares (reference behaviour)', () => {
  it('reference behaviour: nominal = ceil(limit * shares / all shares), lendable and borrowing limits by percent', () => {
    const limits = divideConcurrency(600, [
      spec('exempt', { exempt: true, nominalConcurrencyShares: 0 }),
      spec('a', { nominalConcurrencyShares: 30, lendablePercent: 33 }),
      spec('b', { nominalConcurrencyShares: 20, lendablePercent: 50, borrowingLimitPercent: 100 }),
      spec('c', { nominalConcurrencyShares: 5 }),
    ]);
    assert.deepEqual(limits.get('exempt'), { nominal: 0, min: 0, max: 600 });
    assert.deepEqual(limits.get('a'), { nominal: 328, min: 328 - 108, max: 328 + 600 });
    assert.deepEqual(limits.get('b'), { nominal: 219, min: 109, max: 438 });
    assert.deepEqual(limits.get('c'), { nominal: 55, min: 55, max: 655 });
  });
});

describe('API priority and fairness: seats and queues with a fake clock (reference behaviour)', () => {
  it('reference behaviour: a free seat is taken at once; the exempt level never waits', () => {
    const { d, level } = setup(2, [spec('a'), spec('x', { exempt: true, nominalConcurrencyShares: 0 })]);
    assert.equal(d.tryAcquire(level('a')), true);
    assert.equal(d.tryAcquire(level('a')), true);
    assert.equal(d.tryAcquire(level('a')), false, 'the level holds the whole server limit now');
    for (let i = 0; i < 100; i++) assert.equal(d.tryAcquire(level('x')), true);
  });

  it('reference behaviour: a Reject level answers 429 at once when it has no seat', async () => {
    const { d, level } = setup(1, [spec('r', { reject: true })]);
    assert.equal(d.tryAcquire(level('r')), true);
    await assert.rejects(d.wait(level('r'), 'f'), (e: unknown) => isStatusError(e) && e.code === 429 && e.headers?.['Retry-After'] === '1');
  });

  it('reference behaviour: a queued request runs when a seat is released, and times out with 429 otherwise', async () => {
    const { d, clock, level } = setup(1, [spec('a')]);
    d.tryAcquire(level('a'));
    const first = await tick(d.wait(level('a'), 'f1'));
    const second = await tick(d.wait(level('a'), 'f2'));
    assert.equal(await first(), 'waiting');
    level('a').release();
    assert.equal(await first(), 'admitted');
    clock.advance(999);
    assert.equal(await second(), 'waiting');
    clock.advance(1);
    assert.equal(await second(), 'rejected', 'waited the whole queue wait time');
    assert.equal(level('a').waiting, 0);
  });

  it('reference behaviour: a full queue (queueLengthLimit) answers 429 at once', async () => {
    const { d, level } = setup(1, [spec('a', { queues: 1, handSize: 1, queueLengthLimit: 2 })]);
    d.tryAcquire(level('a'));
    const waiting = [await tick(d.wait(level('a'), 'f')), await tick(d.wait(level('a'), 'f'))];
    const third = await tick(d.wait(level('a'), 'f'));
    assert.equal(await third(), 'rejected');
    assert.deepEqual(await Promise.all(waiting.map((w) => w())), ['waiting', 'waiting']);
  });

  it('reference behaviour: fair queuing serves flows in turn, not in arrival order', async () => {
    const { d, level } = setup(1, [spec('a', { queues: 64, handSize: 1, queueLengthLimit: 50 })]);
    // Two flows that shuffle sharding puts in different queues.
    const [heavy, light] = ['heavy', 'light-1', 'light-2', 'light-3'].map((f) => [f, dealHand(flowHash(f), 64, 1)[0]] as const).filter((x, i, all) => all.findIndex((y) => y[1] === x[1]) === i).map((x) => x[0]);
    assert.ok(heavy && light && heavy !== light);
    d.tryAcquire(level('a'));
    const order: string[] = [];
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) all.push(d.wait(level('a'), heavy).then(() => order.push('heavy')));
    for (let i = 0; i < 2; i++) all.push(d.wait(level('a'), light).then(() => order.push('light')));
    for (let i = 0; i < 12; i++) {
      level('a').release();
      await flush();
    }
    await Promise.all(all);
    assert.deepEqual(order.slice(0, 4).sort(), ['heavy', 'heavy', 'light', 'light'], `the light flow was not left behind: ${order.join(',')}`);
  });

  it('reference behaviour: a level keeps its unlent seats; lendable seats of an idle level serve a busy one', async () => {
    // a: nominal 5, lends all; b: nominal 5, lends none. Pool = 10 - (0 + 5) = 5.
    const { d, level } = setup(10, [spec('a', { lendablePercent: 100 }), spec('b')]);
    for (let i = 0; i < 5; i++) assert.equal(d.tryAcquire(level('b')), true, 'b uses its own seats');
    for (let i = 0; i < 5; i++) assert.equal(d.tryAcquire(level('b')), true, "b borrows a's idle seats");
    assert.equal(d.tryAcquire(level('b')), false);
    assert.equal(d.tryAcquire(level('a')), false, 'a lent everything and the pool is used up');
    const aWaits = await tick(d.wait(level('a'), 'f'));
    level('b').release();
    assert.equal(await aWaits(), 'admitted', 'a borrowed seat returned goes to the waiting level');
  });

  it('reference behaviour: borrowingLimitPercent caps what a level borrows', () => {
    const { d, level } = setup(10, [spec('a', { lendablePercent: 100 }), spec('b', { borrowingLimitPercent: 20 })]);
    let n = 0;
    while (d.tryAcquire(level('b'))) n++;
    assert.equal(n, 6, 'nominal 5 plus round(5 * 20 %) = 1');
  });

  it('reference behaviour: a new configuration keeps seats in use; a removed level refuses its waiters with 429', async () => {
    const { d, level } = setup(2, [spec('a'), spec('b')]);
    d.tryAcquire(level('a'));
    const waiter = await tick(d.wait(level('a'), 'f'));
    const b = [spec('b')];
    d.configure(b, divideConcurrency(2, b));
    assert.equal(await waiter(), 'rejected');
    assert.equal(d.level('a'), undefined);
    assert.equal(d.tryAcquire(level('b')), true);
    assert.equal(d.tryAcquire(level('b')), true, 'b now has the whole limit');
  });

  it('reference behaviour: shuffle sharding deals distinct queues, the same hand for the same flow', () => {
    for (const flow of ['alice', 'bob', 'system:serviceaccount:a:b', '']) {
      const hand = dealHand(flowHash(flow), 128, 6);
      assert.equal(new Set(hand).size, 6);
      assert.ok(hand.every((q) => q >= 0 && q < 128));
      assert.deepEqual(dealHand(flowHash(flow), 128, 6), hand);
    }
    assert.deepEqual(dealHand(12345, 3, 6).sort(), [0, 1, 2], 'a hand never exceeds the deck');
  });
});

describe('API priority and fairness: reconfiguring a level (reference behaviour)', () => {
  it('reference behaviour: a level that switches from Queue to Reject refuses its waiters with 429', async () => {
    const clock = new FakeClock();
    const d = new Dispatcher({ serverLimit: 1, queueWaitMs: 1000, clock });
    const queued = [spec('a')];
    d.configure(queued, divideConcurrency(1, queued));
    const a = d.level('a') as Level;
    d.tryAcquire(a);
    const waiter = await tick(d.wait(a, 'f'));
    const rejecting = [spec('a', { reject: true })];
    d.configure(rejecting, divideConcurrency(1, rejecting));
    assert.equal(await waiter(), 'rejected');
    assert.equal(a.waiting, 0);
    clock.advance(2000);
    assert.equal(a.waiting, 0, 'the cancelled timer does not count the waiter twice');
  });
});
