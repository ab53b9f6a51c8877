/** policy/v1: PodDisruptionBudget, and the disruption arithmetic the eviction handler needs. */
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { absent, num, rec } from '../batch/fields.js';
import { referenceType } from '../reference.js';
import { validatePodDisruptionBudget } from './validation.js';

export { coveredPods, disruptionStatus, disruptionsAllowed, scaledValue, DELETION_TIMEOUT_MS, type DisruptionOptions, type DisruptionStatus } from './disruption.js';
export { validatePodDisruptionBudget } from './validation.js';

const intOrPercent = (v: unknown) => (absent(v) ? 'N/A' : String(v));

export const podDisruptionBudgets: ResourceType = referenceType('policy', 'v1', 'poddisruptionbudgets', {
  shortNames: ['pdb'],
  tableColumns: [
    column('Min Available', 'string', 'Pods that must stay available.', (o) => intOrPercent(rec(o.spec).minAvailable)),
    column('Max Unavailable', 'string', 'Pods that may be unavailable at once.', (o) => intOrPercent(rec(o.spec).maxUnavailable)),
    column('Allowed Disruptions', 'integer', 'Pods that may be disrupted now.', (o) => num(rec(o.status).disruptionsAllowed)),
  ],
  strategy: { validate: validatePodDisruptionBudget },
});

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const policyTypes: ResourceType[] = [podDisruptionBudgets];
