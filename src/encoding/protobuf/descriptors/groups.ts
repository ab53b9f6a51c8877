/** Named-group kinds: coordination/v1 Lease, events/v1 Event and the rbac/v1 roles and bindings. */
import type { DescriptorSet } from '../wire.js';
import { f, K, listOf } from './build.js';

const meta = f.msg(1, 'ObjectMeta');

export const groupDescriptors: DescriptorSet = {
  'coordination.Lease': { metadata: meta, spec: f.msg(2, 'coordination.LeaseSpec') },
  'coordination.LeaseList': listOf('coordination.Lease'),
  // Every LeaseSpec field is a pointer in the reference.
  'coordination.LeaseSpec': {
    holderIdentity: f.str(1, K),
    leaseDurationSeconds: f.i32(2, K),
    acquireTime: f.micro(3),
    renewTime: f.micro(4),
    leaseTransitions: f.i32(5, K),
    strategy: f.str(6, K),
    preferredHolder: f.str(7, K),
  },

  'events.Event': {
    metadata: meta,
    eventTime: f.micro(2),
    series: f.msg(3, 'events.EventSeries'),
    reportingController: f.str(4),
    reportingInstance: f.str(5),
    action: f.str(6),
    reason: f.str(7),
    regarding: f.msg(8, 'ObjectReference'),
    related: f.msg(9, 'ObjectReference'),
    note: f.str(10),
    type: f.str(11),
    deprecatedSource: f.msg(12, 'EventSource'),
    deprecatedFirstTimestamp: f.time(13),
    deprecatedLastTimestamp: f.time(14),
    deprecatedCount: f.i32(15),
  },
  'events.EventList': listOf('events.Event'),
  'events.EventSeries': { count: f.i32(1, K), lastObservedTime: f.micro(2) },

  'rbac.Role': { metadata: meta, rules: f.msgs(2, 'rbac.PolicyRule') },
  'rbac.RoleList': listOf('rbac.Role'),
  'rbac.ClusterRole': {
    metadata: meta,
    rules: f.msgs(2, 'rbac.PolicyRule'),
    aggregationRule: f.msg(3, 'rbac.AggregationRule'),
  },
  'rbac.ClusterRoleList': listOf('rbac.ClusterRole'),
  'rbac.RoleBinding': { metadata: meta, subjects: f.msgs(2, 'rbac.Subject'), roleRef: f.msg(3, 'rbac.RoleRef') },
  'rbac.RoleBindingList': listOf('rbac.RoleBinding'),
  'rbac.ClusterRoleBinding': { metadata: meta, subjects: f.msgs(2, 'rbac.Subject'), roleRef: f.msg(3, 'rbac.RoleRef') },
  'rbac.ClusterRoleBindingList': listOf('rbac.ClusterRoleBinding'),
  'rbac.PolicyRule': {
    verbs: f.strs(1),
    apiGroups: f.strs(2),
    resources: f.strs(3),
    resourceNames: f.strs(4),
    nonResourceURLs: f.strs(5),
  },
  'rbac.AggregationRule': { clusterRoleSelectors: f.msgs(1, 'LabelSelector') },
  'rbac.Subject': { kind: f.str(1, K), apiGroup: f.str(2), name: f.str(3, K), namespace: f.str(4) },
  'rbac.RoleRef': { apiGroup: f.str(1, K), kind: f.str(2, K), name: f.str(3, K) },
};
