import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferedSink, checkBatchSettings, LOG_BATCH_DEFAULTS, TokenBucket, WEBHOOK_BATCH_DEFAULTS, type BatchSettings } from './buffered.js';
import { auditSinkContract, FakeTimers, sampleAuditEvent, sampleAuditEvents, settle } from './testing.js';
import { DROP_REPORT_PERIOD_MS } from './timers.js';
import type { AuditEvent, AuditSink } from './types.js';

/** An inner sink that records batches; `hold` makes each call wait until released. */
class RecordingSink implements AuditSink {
  batches: AuditEvent[][] = [];
  active = 0;
  maxActive = 0;
  shutdowns = 0;
  private waiting: (() => void)[] = [];
  constructor(private readonly behaviour: 'ok' | 'hold' | 'throw' | 'reject' = 'ok') {}
  processEvents(events: readonly AuditEvent[]): void | Promise<void> {
    if (this.behaviour === 'throw') throw new Error('disk on fire');
    this.batches.push([...events]);
    if (this.behaviour === 'reject') return Promise.reject(new Error('backend said no'));
    if (this.behaviour === 'ok') return;
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise<void>((resolve) =>
      this.waiting.push(() => {
        this.active--;
        resolve();
      }),
    );
  }
  release(): void {
    for (const w of this.waiting.splice(0)) w();
  }
  async shutdown(): Promise<void> {
    this.shutdowns++;
  }
  get sizes(): number[] {
    return this.batches.map((b) => b.length);
  }
}

const settings = (over: Partial<BatchSettings>): BatchSettings => ({ ...WEBHOOK_BATCH_DEFAULTS, throttleEnable: false, ...over });

auditSinkContract('BufferedSink', async () => {
  const inner = new RecordingSink();
  return { sink: new BufferedSink(inner, settings({ maxBatchSize: 4, maxBatchWaitMs: 60_000 })), stored: () => inner.batches.flat() };
});

describe('BufferedSink (spec 2.11 audit backends, batch mode)', () => {
  it('reference behaviour: full batches go out at once, the rest when the wait passes', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ maxBatchSize: 3, maxBatchWaitMs: 1000 }), { timers });
    sink.processEvents(sampleAuditEvents(1, 7));
    await settle();
    assert.deepEqual(inner.sizes, [3, 3]);
    await timers.advance(999);
    assert.deepEqual(inner.sizes, [3, 3]);
    await timers.advance(1);
    assert.deepEqual(inner.sizes, [3, 3, 1]);
    assert.deepEqual(inner.batches.flat().map((e) => e.auditID), sampleAuditEvents(1, 7).map((e) => e.auditID));
  });

  it('reference behaviour: a partial batch waits maxBatchWait, then a new wait starts for later events', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ maxBatchSize: 10, maxBatchWaitMs: 500 }), { timers });
    sink.processEvents(sampleAuditEvents(1, 2));
    await timers.advance(499);
    assert.deepEqual(inner.sizes, []);
    await timers.advance(1);
    assert.deepEqual(inner.sizes, [2]);
    sink.processEvents(sampleAuditEvents(3, 1));
    await timers.advance(499);
    assert.deepEqual(inner.sizes, [2]);
    await timers.advance(1);
    assert.deepEqual(inner.sizes, [2, 1]);
  });

  it('reference behaviour: the log defaults write each event as it comes', async () => {
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, LOG_BATCH_DEFAULTS, { timers: new FakeTimers() });
    sink.processEvents(sampleAuditEvents(1, 3));
    await settle();
    assert.deepEqual(inner.sizes, [1, 1, 1]);
  });

  it('reference behaviour: the throttle lets a burst through, then batches at qps', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: true, throttleQPS: 2, throttleBurst: 2 }), { timers });
    sink.processEvents(sampleAuditEvents(1, 6));
    await settle();
    assert.equal(inner.batches.length, 2);
    await timers.advance(500);
    assert.equal(inner.batches.length, 3);
    await timers.advance(1000);
    assert.equal(inner.batches.length, 5);
    await timers.advance(500);
    assert.equal(inner.batches.length, 6);
  });

  it('spec 2.11: a full buffer drops and counts new events, and says so at most once per period', async () => {
    const timers = new FakeTimers();
    const lines: string[] = [];
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ bufferSize: 5, maxBatchSize: 10, maxBatchWaitMs: 60_000 }), { timers, log: (m) => lines.push(m), name: 'webhook' });
    assert.equal(sink.processEvents(sampleAuditEvents(1, 8)), undefined);
    assert.equal(sink.droppedEvents, 3);
    assert.equal(sink.buffered, 5);
    sink.processEvents(sampleAuditEvents(9, 2));
    assert.equal(sink.droppedEvents, 5);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /audit buffer \(webhook\): 3 audit event\(s\) lost: the buffer of 5 events is full/);
    await timers.advance(DROP_REPORT_PERIOD_MS);
    assert.equal(lines.length, 2);
    assert.match(lines[1]!, /: 2 audit event\(s\) lost/);
  });

  it('spec 2.11: a backend that never answers does not block processEvents, and memory stays bounded', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink('hold');
    const sink = new BufferedSink(inner, settings({ bufferSize: 4, maxBatchSize: 2, maxBatchWaitMs: 0 }), { timers });
    for (let i = 0; i < 10; i++) assert.equal(sink.processEvents(sampleAuditEvents(i * 2, 2)), undefined);
    await settle();
    assert.equal(inner.maxActive, 2, 'at most bufferSize / maxBatchSize batches wait at the backend');
    assert.ok(sink.buffered <= 4);
    assert.equal(sink.droppedEvents + sink.buffered + inner.batches.flat().length, 20);
    inner.release();
    await settle();
    assert.equal(sink.buffered, 0);
  });

  it('spec 2.11: a backend that throws or rejects loses the batch (counted), never the caller', async () => {
    for (const behaviour of ['throw', 'reject'] as const) {
      const inner = new RecordingSink(behaviour);
      const lines: string[] = [];
      const sink = new BufferedSink(inner, settings({ maxBatchSize: 2, maxBatchWaitMs: 0 }), { timers: new FakeTimers(), log: (m) => lines.push(m) });
      assert.doesNotThrow(() => sink.processEvents(sampleAuditEvents(1, 4)));
      await settle();
      assert.equal(sink.droppedEvents, 4, behaviour);
      assert.match(lines[0]!, /the backend failed/, behaviour);
    }
  });

  it('spec 2.11: shutdown sends what waits (ignoring wait and throttle), then shuts the backend down', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ maxBatchSize: 2, maxBatchWaitMs: 60_000, throttleEnable: true, throttleQPS: 0.001, throttleBurst: 1 }), { timers });
    sink.processEvents(sampleAuditEvents(1, 1));
    sink.processEvents(sampleAuditEvents(2, 4));
    await sink.shutdown();
    assert.equal(inner.batches.flat().length, 5);
    assert.equal(inner.shutdowns, 1);
    sink.processEvents(sampleAuditEvents(10, 2));
    assert.equal(sink.droppedEvents, 2, 'events after shutdown are counted as lost');
  });

  it('spec 2.11: shutdown gives up at its deadline and counts what was not sent (batches handed over one after another)', async () => {
    const timers = new FakeTimers();
    const inner = new RecordingSink('hold');
    const sink = new BufferedSink(inner, { ...LOG_BATCH_DEFAULTS, maxBatchSize: 2, asyncDelegate: false }, { timers, shutdownTimeoutMs: 1000 });
    sink.processEvents(sampleAuditEvents(1, 6));
    await settle();
    let done = false;
    const closing = sink.shutdown().then(() => (done = true));
    await timers.advance(999);
    assert.equal(done, false);
    await timers.advance(1);
    await closing;
    assert.equal(inner.shutdowns, 1);
    assert.equal(sink.droppedEvents, 4, 'the first batch is at the backend; the two behind it are lost');
  });

  it('reference behaviour: the buffer keeps its own copy, so later changes by the caller do not leak in', async () => {
    const inner = new RecordingSink();
    const sink = new BufferedSink(inner, settings({ maxBatchSize: 1, maxBatchWaitMs: 0 }), { timers: new FakeTimers() });
    const event = sampleAuditEvent(1, { stage: 'RequestReceived', annotations: { a: '1' }, objectRef: { resource: 'configmaps' } });
    sink.processEvents([event]);
    event.stage = 'ResponseComplete';
    event.annotations!.b = '2';
    event.objectRef!.name = 'filled-in-later';
    await settle();
    assert.equal(inner.batches[0]![0]!.stage, 'RequestReceived');
    assert.deepEqual(inner.batches[0]![0]!.annotations, { a: '1' });
    assert.deepEqual(inner.batches[0]![0]!.objectRef, { resource: 'configmaps' });
  });
});

describe('TokenBucket (the batch throttle)', () => {
  const cases: { name: string; qps: number; burst: number; takes: number[]; waits: number[] }[] = [
    { name: 'a full bucket lets the burst through', qps: 10, burst: 3, takes: [0, 0, 0], waits: [0, 0, 0] },
    { name: 'past the burst each token waits 1/qps more', qps: 10, burst: 1, takes: [0, 0, 0], waits: [0, 100, 200] },
    { name: 'time refills the bucket', qps: 2, burst: 1, takes: [0, 500, 1000], waits: [0, 0, 0] },
    { name: 'refill never exceeds the burst', qps: 1, burst: 2, takes: [0, 0, 60_000, 60_000, 60_000], waits: [0, 0, 0, 0, 1000] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => {
      const b = new TokenBucket(c.qps, c.burst, 0);
      assert.deepEqual(c.takes.map((t) => Math.round(b.take(t))), c.waits);
    });
  }
});

describe('checkBatchSettings (reference validation of --audit-*-batch-*)', () => {
  const name = (f: string) => `flag(${f})`;
  const refused: [Partial<BatchSettings>, RegExp][] = [
    [{ bufferSize: 0 }, /flag\(bufferSize\): invalid value 0: must be a positive integer/],
    [{ maxBatchSize: -1 }, /flag\(maxBatchSize\): invalid value -1: must be a positive integer/],
    [{ maxBatchSize: 1.5 }, /flag\(maxBatchSize\): invalid value 1.5: must be a positive integer/],
    [{ maxBatchWaitMs: -5 }, /flag\(maxBatchWaitMs\): .*must not be negative/],
    [{ throttleEnable: true, throttleQPS: 0 }, /flag\(throttleQPS\): .*positive number when the throttle is enabled/],
    [{ throttleEnable: true, throttleBurst: 0 }, /flag\(throttleBurst\): .*positive integer when the throttle is enabled/],
  ];
  for (const [over, error] of refused) {
    it(`reference behaviour: ${JSON.stringify(over)} is refused, naming the setting`, () => {
      assert.throws(() => checkBatchSettings(settings({ throttleEnable: true, ...over }), name), error);
    });
  }
  const accepted: Partial<BatchSettings>[] = [{ throttleEnable: true }, { throttleEnable: false, throttleQPS: 0, throttleBurst: 0 }, { maxBatchWaitMs: 0 }];
  for (const over of accepted) {
    it(`reference behaviour: ${JSON.stringify(over)} is accepted`, () => {
      assert.doesNotThrow(() => checkBatchSettings(settings(over), name));
    });
  }
  it('reference behaviour: both sets of defaults are valid', () => {
    assert.doesNotThrow(() => checkBatchSettings(WEBHOOK_BATCH_DEFAULTS, name));
    assert.doesNotThrow(() => checkBatchSettings(LOG_BATCH_DEFAULTS, name));
  });
});
