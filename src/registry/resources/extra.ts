/** Built-in types beyond the core group's workload and config kinds: events, leases and access control. */
import type { ResourceType } from '../types.js';
import { coreEvents, eventsV1 } from './events/index.js';
import { lease } from './leases/index.js';
import { clusterRole, clusterRoleBinding, role, roleBinding } from './rbac/index.js';

export const extraTypes: ResourceType[] = [coreEvents, eventsV1, lease, role, clusterRole, roleBinding, clusterRoleBinding];
