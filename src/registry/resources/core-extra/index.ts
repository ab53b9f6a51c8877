/** The remaining core/v1 kinds with behaviour of their own: volumes and claims, quotas, limit ranges, component statuses. */
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { componentStatuses } from './component-statuses.js';
import { limitRanges } from './limit-ranges.js';
import { persistentVolumeClaims } from './persistent-volume-claims.js';
import { persistentVolumes } from './persistent-volumes.js';
import { resourceQuotas } from './resource-quotas.js';

export { componentStatusObject, type ProbeResult } from './component-statuses.js';
export { podEphemeralContainersView } from './ephemeral-containers.js';

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const coreExtraTypes: ResourceType[] = [persistentVolumes, persistentVolumeClaims, resourceQuotas, limitRanges, componentStatuses];

/** Objects this group creates at start when missing (see resources/bootstrap.ts): none of these kinds has any. */
export function coreExtraBootstrap(_served: readonly ResourceType[]): ApiObject[] {
  return [];
}
