/** All message descriptors, and which one each served apiVersion + kind is encoded with. */
import { COORDINATION_GROUP, EVENTS_GROUP, RBAC_GROUP } from '../../../api/naming.js';
import type { DescriptorSet } from '../wire.js';
import { containerDescriptors } from './container.js';
import { coreDescriptors } from './core.js';
import { groupDescriptors } from './groups.js';
import { metaDescriptors } from './meta.js';
import { podDescriptors } from './pod.js';
import { volumeDescriptors } from './volume.js';

export const DESCRIPTORS: DescriptorSet = {
  ...metaDescriptors,
  ...containerDescriptors,
  ...volumeDescriptors,
  ...podDescriptors,
  ...coreDescriptors,
  ...groupDescriptors,
};

/** apiVersion -> kind -> descriptor name. Lists are `<Kind>List`; Status is served as v1 like the reference. */
const KINDS: Record<string, Record<string, string>> = {
  v1: {
    Status: 'Status',
    ...Object.fromEntries(
      ['Namespace', 'ConfigMap', 'Secret', 'ServiceAccount', 'Pod', 'Node', 'Service', 'Endpoints', 'Event'].flatMap((k) => [
        [k, k],
        [`${k}List`, `${k}List`],
      ]),
    ),
  },
  [`${COORDINATION_GROUP}/v1`]: { Lease: 'coordination.Lease', LeaseList: 'coordination.LeaseList' },
  [`${EVENTS_GROUP}/v1`]: { Event: 'events.Event', EventList: 'events.EventList' },
  [`${RBAC_GROUP}/v1`]: Object.fromEntries(
    ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'].flatMap((k) => [
      [k, `rbac.${k}`],
      [`${k}List`, `rbac.${k}List`],
    ]),
  ),
};

/** The descriptor of a served kind, or undefined when it has no protobuf form. */
export function descriptorFor(apiVersion: string, kind: string): string | undefined {
  const byKind = Object.hasOwn(KINDS, apiVersion) ? KINDS[apiVersion] : undefined;
  return byKind && Object.hasOwn(byKind, kind) ? byKind[kind] : undefined;
}

/** Every apiVersion/kind pair with a protobuf form, for tests and discovery. */
export function protobufKinds(): { apiVersion: string; kind: string; descriptor: string }[] {
  return Object.entries(KINDS).flatMap(([apiVersion, kinds]) =>
    Object.entries(kinds).map(([kind, descriptor]) => ({ apiVersion, kind, descriptor })),
  );
}
