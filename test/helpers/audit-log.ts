import { existsSync, readFileSync } from 'node:fs';
import type { AuditEvent } from '../../src/audit/types.js';

/** Every event in an audit log file (JSON lines); none while the file does not exist yet. */
export const readEvents = (file: string): AuditEvent[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEvent) : [];

/** The events of one request (by its Audit-ID), once `stages` of them are in the file (or after 5 s). */
export async function eventsOf(file: string, id: string, stages: number): Promise<AuditEvent[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const mine = readEvents(file).filter((e) => e.auditID === id);
    if (mine.length >= stages || Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 20));
  }
}
