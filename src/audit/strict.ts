/**
 * The `blocking-strict` audit mode: a request fails (500) when its RequestReceived event cannot be stored.
 * Plain sinks only take events and never report failure, so a strict sink adds a way to ask.
 */
import type { AuditEvent, AuditSink } from './types.js';

export interface StrictAuditSink extends AuditSink {
  readonly strict: true;
  /** True when the events were stored; false when they were lost (already counted and logged). Never rejects. */
  deliver(events: readonly AuditEvent[]): Promise<boolean>;
}

export const isStrictAuditSink = (s: AuditSink): s is StrictAuditSink => (s as Partial<StrictAuditSink>).strict === true && typeof (s as Partial<StrictAuditSink>).deliver === 'function';
