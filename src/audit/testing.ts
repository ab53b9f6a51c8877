/**
 * Test support for audit sinks: sample events, a fake clock, and the contract every sink must keep
 * (`auditSinkContract`). Each sink's test file runs the contract against its own implementation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_GROUP } from '../api/naming.js';
import type { AuditTimers } from './timers.js';
import type { AuditEvent, AuditSink } from './types.js';

export function sampleAuditEvent(n: number, extra: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: `${AUDIT_GROUP}/v1`,
    level: 'Metadata',
    auditID: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/default/configmaps/c${n}`,
    verb: 'get',
    user: { username: 'alice', groups: ['system:authenticated'] },
    sourceIPs: ['127.0.0.1'],
    objectRef: { resource: 'configmaps', namespace: 'default', name: `c${n}`, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2024-01-02T03:04:05.000001Z',
    stageTimestamp: '2024-01-02T03:04:05.000002Z',
    ...extra,
  };
}

export const sampleAuditEvents = (from: number, count: number): AuditEvent[] => Array.from({ length: count }, (_, i) => sampleAuditEvent(from + i));

/** Lets queued callbacks, promise reactions and setImmediate work run. */
export async function settle(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A clock that moves only when told; `advance` fires the timers that fall due, in order. */
export class FakeTimers implements AuditTimers {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.pending.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Timers not yet fired. */
  get count(): number {
    return this.pending.size;
  }

  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    await settle();
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.pending.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await settle();
    }
    this.t = target;
    await settle();
  }
}

export interface SinkUnderTest {
  sink: AuditSink;
  /** Events that reached the sink's destination so far (the file's lines, the webhook's items). */
  stored(): AuditEvent[] | Promise<AuditEvent[]>;
  /** Releases what the test set up (files, servers); called after shutdown. */
  cleanup?(): Promise<void>;
}

/** The behaviour every AuditSink promises (types.ts): it takes events, never throws, and shutdown flushes. */
export function auditSinkContract(name: string, make: () => Promise<SinkUnderTest>): void {
  describe(`${name}: the audit sink contract (spec 2.11)`, () => {
    it('spec 2.11: every event handed over is stored once shutdown has resolved', async () => {
      const t = await make();
      try {
        const events = sampleAuditEvents(1, 25);
        for (let i = 0; i < events.length; i += 5) await t.sink.processEvents(events.slice(i, i + 5));
        await t.sink.shutdown();
        const ids = (await t.stored()).map((e) => e.auditID).sort();
        assert.deepEqual(ids, events.map((e) => e.auditID).sort());
      } finally {
        await t.cleanup?.();
      }
    });

    it('spec 2.11: stored events keep their fields', async () => {
      const t = await make();
      try {
        const event = sampleAuditEvent(7, { level: 'Request', verb: 'create', requestObject: { kind: 'ConfigMap', data: { a: 'b' } }, annotations: { 'x/y': 'z' } });
        await t.sink.processEvents([event]);
        await t.sink.shutdown();
        const [got] = await t.stored();
        const { kind: _k, apiVersion: _v, ...fields } = event;
        assert.deepEqual({ ...got, kind: undefined, apiVersion: undefined }, { ...fields, kind: undefined, apiVersion: undefined });
      } finally {
        await t.cleanup?.();
      }
    });

    it('spec 2.11: an empty call, a second shutdown and events after shutdown neither throw nor reject', async () => {
      const t = await make();
      try {
        await t.sink.processEvents([]);
        await t.sink.shutdown();
        await t.sink.shutdown();
        await t.sink.processEvents(sampleAuditEvents(100, 3));
        assert.deepEqual(await t.stored(), []);
      } finally {
        await t.cleanup?.();
      }
    });
  });
}
