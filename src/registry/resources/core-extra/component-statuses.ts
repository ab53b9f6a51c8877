/**
 * core/v1 ComponentStatus (deprecated): not stored. A read answers objects computed from health probes of
 * the control-plane components at request time; the type here gives discovery, short name and table.
 */
import type { ApiObject } from '../../../api/types.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { rec, text } from './volume-common.js';

/** The outcome of one probe, in the reference's terms (success, failure, or could not tell). */
export interface ProbeResult {
  result: 'success' | 'failure' | 'unknown';
  /** What the component said (or the failure text of an HTTP probe). */
  message: string;
  /** Why the probe itself failed. */
  error: string;
}

const CONDITION_STATUS = { success: 'True', failure: 'False', unknown: 'Unknown' } as const;

/** One ComponentStatus object: a single `Healthy` condition; empty message and error are left out. */
export function componentStatusObject(name: string, probe: ProbeResult): ApiObject {
  const condition: Record<string, string> = { type: 'Healthy', status: CONDITION_STATUS[probe.result] };
  if (probe.message) condition.message = probe.message;
  if (probe.error) condition.error = probe.error;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null as unknown as string }, conditions: [condition] };
}

/** The Healthy condition, as the table reads it. */
function healthy(o: ApiObject): Record<string, unknown> | undefined {
  const conditions = Array.isArray(o.conditions) ? o.conditions : [];
  return conditions.map(rec).find((c) => c.type === 'Healthy');
}

export const componentStatuses: ResourceType = referenceType('', 'v1', 'componentstatuses', {
  shortNames: ['cs'],
  tableColumns: [
    column('Status', 'string', 'Healthy, Unhealthy or Unknown.', (o) => {
      const c = healthy(o);
      if (!c) return 'Unknown';
      return c.status === 'True' ? 'Healthy' : 'Unhealthy';
    }),
    column('Message', 'string', 'What the component answered.', (o) => text(healthy(o)?.message)),
    column('Error', 'string', 'Why the component could not be checked.', (o) => text(healthy(o)?.error)),
  ],
});
