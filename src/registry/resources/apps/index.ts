/**
 * The workload types: apps/v1 (Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision) and the
 * two core/v1 workload kinds (ReplicationController, PodTemplate), keyed by group/version/plural like the rest.
 */
import type { ResourceType } from '../../types.js';
import { controllerrevisions } from './controllerrevisions.js';
import { daemonsets } from './daemonsets.js';
import { deployments } from './deployments.js';
import { podtemplates } from './podtemplates.js';
import { replicasets } from './replicasets.js';
import { replicationcontrollers } from './replicationcontrollers.js';
import { statefulsets } from './statefulsets.js';

/** Types of this group with behaviour of their own; the group's other resources are served from the reference data alone. */
export const appsTypes: ResourceType[] = [deployments, replicasets, statefulsets, daemonsets, controllerrevisions, replicationcontrollers, podtemplates];

export { controllerrevisions, daemonsets, deployments, podtemplates, replicasets, replicationcontrollers, statefulsets };
