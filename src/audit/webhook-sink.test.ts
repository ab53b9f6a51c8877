import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWebhookServer, type Reply } from '../../test/helpers/webhook-server.js';
import { webhookBackend } from '../util/webhook-backend.js';
import { loadWebhookKubeconfig } from '../util/webhook-kubeconfig.js';
import { BufferedSink, WEBHOOK_BATCH_DEFAULTS } from './buffered.js';
import { isStrictAuditSink } from './strict.js';
import { auditSinkContract, FakeTimers, sampleAuditEvent, sampleAuditEvents, settle } from './testing.js';
import type { AuditEvent } from './types.js';
import { buildWebhookAuditSink, checkAuditWebhookOptions, encodeEventList, retryDelayMs, WebhookSink, type AuditWebhookOptions } from './webhook-sink.js';

/** A real HTTPS audit receiver; `answer` decides each reply (200 unless told otherwise). */
async function receiver(answer: (call: number) => Reply = () => ({ raw: '{}' })) {
  let calls = 0;
  const server = await startWebhookServer(() => answer(++calls));
  const lists = () => server.reviews as unknown as { kind: string; apiVersion: string; metadata: object; items: AuditEvent[] }[];
  return { server, lists, items: () => lists().flatMap((l) => l.items), calls: () => calls };
}

const dir = mkdtempSync(join(tmpdir(), 'orch-audit-webhook-'));
let files = 0;
const kubeconfig = (url: string, caBundle: string): string => {
  const file = join(dir, `kubeconfig-${++files}.yaml`);
  writeFileSync(file, `clusters:\n- name: audit\n  cluster:\n    server: ${url}/audit\n    certificate-authority-data: ${caBundle}\n`);
  return file;
};
after(() => rmSync(dir, { recursive: true, force: true }));

/** Fake time that also remembers every wait asked for. */
class RecordingTimers extends FakeTimers {
  delays: number[] = [];
  override setTimeout(fn: () => void, ms: number): unknown {
    this.delays.push(ms);
    return super.setTimeout(fn, ms);
  }
}

/** Waits (in real time) until `f` holds: the network runs on real time even when the backoff clock is fake. */
async function until(what: string, f: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!f()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

for (const mode of ['batch', 'blocking'] as const) {
  auditSinkContract(`the webhook backend (${mode} mode, real HTTPS receiver)`, async () => {
    const r = await receiver();
    const opts: AuditWebhookOptions = { configFile: kubeconfig(r.server.url, r.server.caBundle), mode, batch: { maxBatchSize: 4, maxBatchWaitMs: 50 } };
    const sink = buildWebhookAuditSink({ auditWebhook: opts }, () => undefined)!;
    return { sink, stored: r.items, cleanup: () => r.server.close() };
  });
}

describe('audit webhook backend (spec 2.11, issue 17)', () => {
  let ok: Awaited<ReturnType<typeof receiver>>;
  before(async () => {
    ok = await receiver();
  });
  after(() => ok.server.close());

  it('spec 2.11: a batch is POSTed as one EventList of the configured version, items in order without type fields', async () => {
    const sink = buildWebhookAuditSink({ auditWebhook: { configFile: kubeconfig(ok.server.url, ok.server.caBundle), batch: { maxBatchSize: 3, maxBatchWaitMs: 60_000 } } }, () => undefined)!;
    const before = ok.lists().length;
    sink.processEvents(sampleAuditEvents(1, 3));
    await until('the batch', () => ok.lists().length === before + 1);
    const list = ok.lists()[before]!;
    assert.equal(list.kind, 'EventList');
    assert.equal(list.apiVersion, 'audit.orch.io/v1');
    assert.deepEqual(list.metadata, {});
    assert.deepEqual(list.items.map((e) => e.auditID), sampleAuditEvents(1, 3).map((e) => e.auditID));
    assert.equal('kind' in list.items[0]!, false);
    assert.equal('apiVersion' in list.items[0]!, false);
    assert.equal(ok.server.paths[before], '/audit');
    await sink.shutdown();
  });

  it('reference behaviour: a blocking call sends the event as it was when handed over, however the caller reuses it', async () => {
    const sink = new WebhookSink(webhookBackend(loadWebhookKubeconfig(kubeconfig(ok.server.url, ok.server.caBundle))), { version: 'audit.orch.io/v1', initialBackoffMs: 10 });
    const event = sampleAuditEvent(42, { stage: 'RequestReceived' });
    const before = ok.lists().length;
    const delivery = sink.deliver([event]);
    event.stage = 'ResponseComplete';
    assert.equal(await delivery, true);
    assert.equal(ok.lists()[before]!.items[0]!.stage, 'RequestReceived');
    await sink.shutdown();
  });

  it('reference behaviour: encodeEventList keeps every other field and escapes strings', () => {
    const e = sampleAuditEvent(1, { userAgent: 'a "quoted"\nagent', annotations: { k: 'v' } });
    const { kind: _k, apiVersion: _v, ...rest } = e;
    assert.deepEqual(JSON.parse(encodeEventList([e], 'audit.orch.io/v1')), { kind: 'EventList', apiVersion: 'audit.orch.io/v1', metadata: {}, items: [rest] });
  });

  it('reference behaviour: transient failures (5xx) are retried after 10s, then 15s, and the events arrive', async () => {
    const r = await receiver((n) => (n <= 2 ? { raw: 'busy', status: 500 } : { raw: '{}' }));
    const timers = new RecordingTimers();
    const conn = loadWebhookKubeconfig(kubeconfig(r.server.url, r.server.caBundle));
    const sink = new WebhookSink(webhookBackend(conn), { version: 'audit.orch.io/v1', initialBackoffMs: 10_000 }, { timers, random: () => 0 });
    try {
      let settled = false;
      const delivery = sink.deliver(sampleAuditEvents(1, 2)).then((v) => ((settled = true), v));
      await until('the first attempt and its backoff', () => r.calls() === 1 && timers.count === 1);
      await timers.advance(9_999);
      assert.equal(r.calls(), 1);
      await timers.advance(1);
      await until('the second attempt and its backoff', () => r.calls() === 2 && timers.count === 1);
      await timers.advance(15_000);
      assert.equal(await delivery, true);
      assert.equal(settled, true);
      assert.equal(r.calls(), 3);
      assert.deepEqual(timers.delays, [10_000, 15_000]);
      assert.equal(new Set(r.server.reviews.map((b) => JSON.stringify(b))).size, 1, 'each attempt sends the same EventList');
      assert.deepEqual(r.lists()[2]!.items.map((e) => e.auditID), sampleAuditEvents(1, 2).map((e) => e.auditID));
      assert.equal(sink.droppedEvents, 0);
    } finally {
      await sink.shutdown();
      await r.server.close();
    }
  });

  it('reference behaviour: connection errors are retried 5 times in all, then the events are counted as lost', async () => {
    const gone = await receiver();
    const file = kubeconfig(gone.server.url, gone.server.caBundle);
    await gone.server.close();
    const timers = new RecordingTimers();
    const lines: string[] = [];
    const sink = new WebhookSink(webhookBackend(loadWebhookKubeconfig(file)), { version: 'audit.orch.io/v1', initialBackoffMs: 1000 }, { timers, random: () => 0.5, log: (m) => lines.push(m) });
    const delivery = sink.deliver(sampleAuditEvents(1, 4));
    for (const [i, wait] of [1100, 1650, 2475, 3712.5].entries()) {
      await until(`backoff ${i + 1}`, () => timers.count === 1);
      await timers.advance(wait);
    }
    assert.equal(await delivery, false);
    assert.deepEqual(timers.delays.slice(0, 4), [1100, 1650, 2475, 3712.5]);
    assert.equal(sink.droppedEvents, 4);
    assert.match(lines[0]!, /audit webhook: 4 audit event\(s\) lost: Post ".*\/audit": .*ECONNREFUSED/);
    await sink.shutdown();
  });

  it('reference behaviour: a rejection that retrying cannot fix (400) is not retried', async () => {
    const r = await receiver(() => ({ raw: 'no', status: 400 }));
    const sink = new WebhookSink(webhookBackend(loadWebhookKubeconfig(kubeconfig(r.server.url, r.server.caBundle))), { version: 'audit.orch.io/v1', initialBackoffMs: 10 });
    try {
      await sink.processEvents(sampleAuditEvents(1, 3));
      assert.equal(r.calls(), 1);
      assert.equal(sink.droppedEvents, 3);
    } finally {
      await sink.shutdown();
      await r.server.close();
    }
  });

  it('spec 2.11: in batch mode a webhook that never answers neither blocks nor fails processEvents', async () => {
    const r = await receiver(() => ({ hang: true }));
    const backend = webhookBackend(loadWebhookKubeconfig(kubeconfig(r.server.url, r.server.caBundle)));
    const webhook = new WebhookSink(backend, { version: 'audit.orch.io/v1', initialBackoffMs: 10_000, shutdownGraceMs: 100 });
    const sink = new BufferedSink(webhook, { ...WEBHOOK_BATCH_DEFAULTS, maxBatchSize: 10, maxBatchWaitMs: 0, bufferSize: 100 }, { shutdownTimeoutMs: 200 });
    try {
      const started = performance.now();
      for (let i = 0; i < 50; i++) assert.equal(sink.processEvents(sampleAuditEvents(i * 10, 10)), undefined);
      assert.ok(performance.now() - started < 500, 'processEvents returns without waiting for the webhook');
      await until('ten batches at the webhook', () => r.calls() === 10);
      assert.equal(sink.droppedEvents, 400, 'a full buffer takes 100 events; the rest of the burst is dropped');
      assert.equal(sink.buffered, 0, 'the buffer emptied into ten concurrent batches');
      sink.processEvents(sampleAuditEvents(1000, 150));
      await settle();
      assert.equal(sink.buffered, 100, 'with ten batches stuck at the webhook, nothing more goes out');
      assert.equal(sink.droppedEvents, 450);
      const stopping = performance.now();
      await sink.shutdown();
      assert.ok(performance.now() - stopping < 2000, 'shutdown keeps to its deadlines');
      assert.equal(sink.droppedEvents, 550, 'the buffered events are lost at the deadline');
      assert.equal(webhook.droppedEvents, 100, 'the batches cut off at the webhook are lost there');
    } finally {
      await sink.shutdown();
      await r.server.close();
    }
  });

  it('reference behaviour: shutdown ends the retries at once and counts the events', async () => {
    const r = await receiver(() => ({ raw: 'down', status: 503 }));
    const sink = new WebhookSink(webhookBackend(loadWebhookKubeconfig(kubeconfig(r.server.url, r.server.caBundle))), { version: 'audit.orch.io/v1', initialBackoffMs: 3_600_000 });
    try {
      const delivery = sink.deliver(sampleAuditEvents(1, 2));
      await until('the first attempt', () => r.calls() === 1);
      await settle();
      const started = performance.now();
      await sink.shutdown();
      assert.equal(await delivery, false);
      assert.ok(performance.now() - started < 2000);
      assert.equal(sink.droppedEvents, 2);
      assert.equal(await sink.deliver(sampleAuditEvents(3, 1)), false, 'after shutdown events are refused and counted');
      assert.equal(sink.droppedEvents, 3);
    } finally {
      await r.server.close();
    }
  });

  it('reference behaviour: only blocking-strict gives a strict sink, whose deliver reports the failure', async () => {
    const r = await receiver(() => ({ raw: 'no', status: 403 }));
    const configFile = kubeconfig(r.server.url, r.server.caBundle);
    try {
      const modes = { batch: false, blocking: false, 'blocking-strict': true } as const;
      for (const [mode, strict] of Object.entries(modes)) {
        const sink = buildWebhookAuditSink({ auditWebhook: { configFile, mode: mode as AuditWebhookOptions['mode'] } }, () => undefined)!;
        assert.equal(isStrictAuditSink(sink), strict, mode);
        await sink.shutdown();
      }
      const strict = buildWebhookAuditSink({ auditWebhook: { configFile, mode: 'blocking-strict' } }, () => undefined)!;
      assert.ok(isStrictAuditSink(strict));
      assert.equal(await strict.deliver(sampleAuditEvents(1, 1)), false);
      await strict.shutdown();
    } finally {
      await r.server.close();
    }
  });

  it('reference behaviour: no webhook options, no sink', () => {
    assert.equal(buildWebhookAuditSink({}, () => undefined), undefined);
  });
});

describe('audit webhook settings (start-up errors naming the flag)', () => {
  let configFile: string;
  before(() => {
    configFile = kubeconfig('https://127.0.0.1:1', Buffer.from('unused').toString('base64'));
  });
  const refused: [Partial<AuditWebhookOptions>, RegExp][] = [
    [{ version: 'audit.orch.io/v1beta1' }, /--audit-webhook-version: invalid group version "audit.orch.io\/v1beta1": allowed versions are \["audit.orch.io\/v1"\]/],
    [{ mode: 'sometimes' as never }, /--audit-webhook-mode: invalid mode "sometimes": allowed modes are batch, blocking, blocking-strict/],
    [{ initialBackoffMs: 0 }, /--audit-webhook-initial-backoff: invalid value 0ms: must be a positive duration/],
    [{ batch: { bufferSize: 0 } }, /--audit-webhook-batch-buffer-size: invalid value 0/],
    [{ batch: { maxBatchSize: 0 } }, /--audit-webhook-batch-max-size: invalid value 0/],
    [{ batch: { throttleQPS: 0 } }, /--audit-webhook-batch-throttle-qps: invalid value 0/],
    [{ batch: { throttleBurst: -1 } }, /--audit-webhook-batch-throttle-burst: invalid value -1/],
    [{ configFile: join(dir, 'missing.yaml') }, /--audit-webhook-config-file .*missing.yaml: cannot be read as a kubeconfig/],
    [{ configFile: '' }, /--audit-webhook-config-file: a file path is required/],
  ];
  for (const [over, error] of refused) {
    it(`reference behaviour: ${JSON.stringify(over)} stops the start`, () => {
      assert.throws(() => checkAuditWebhookOptions({ configFile, ...over }), error);
    });
  }
  it('reference behaviour: batch settings are not checked outside batch mode', () => {
    assert.doesNotThrow(() => checkAuditWebhookOptions({ configFile, mode: 'blocking', batch: { bufferSize: 0 } }));
  });
  it('reference behaviour: the throttle settings are not checked when it is off', () => {
    assert.doesNotThrow(() => checkAuditWebhookOptions({ configFile, batch: { throttleEnable: false, throttleQPS: 0 } }));
  });

  const schedule: [number, number, number, number][] = [
    [10_000, 1, 0, 10_000],
    [10_000, 2, 0, 15_000],
    [10_000, 3, 0, 22_500],
    [10_000, 4, 0, 33_750],
    [10_000, 1, 0.5, 11_000],
    [1000, 4, 1, 4050],
  ];
  for (const [initial, attempt, random, want] of schedule) {
    it(`reference behaviour: after attempt ${attempt} from ${initial}ms with jitter draw ${random}, wait ${want}ms`, () => {
      assert.equal(Math.round(retryDelayMs(initial, attempt, random) * 100) / 100, want);
    });
  }
});
