/** meta/v1 messages (apimachinery generated.proto): object and list metadata, Status, WatchEvent, selectors. */
import type { DescriptorSet } from '../wire.js';
import { f, K } from './build.js';

export const metaDescriptors: DescriptorSet = {
  ObjectMeta: {
    name: f.str(1),
    generateName: f.str(2),
    namespace: f.str(3),
    selfLink: f.str(4),
    uid: f.str(5),
    resourceVersion: f.str(6),
    generation: f.i64(7),
    creationTimestamp: f.time(8),
    deletionTimestamp: f.time(9),
    deletionGracePeriodSeconds: f.i64(10, K),
    labels: f.map(11),
    annotations: f.map(12),
    ownerReferences: f.msgs(13, 'OwnerReference'),
    finalizers: f.strs(14),
    // 15 was clusterName, removed by the reference.
    managedFields: f.msgs(17, 'ManagedFieldsEntry'),
  },
  OwnerReference: {
    kind: f.str(1, K),
    name: f.str(3, K),
    uid: f.str(4, K),
    apiVersion: f.str(5, K),
    controller: f.bool(6, K),
    blockOwnerDeletion: f.bool(7, K),
  },
  ManagedFieldsEntry: {
    manager: f.str(1),
    operation: f.str(2),
    apiVersion: f.str(3),
    time: f.time(4),
    fieldsType: f.str(6),
    // FieldsV1 is a message holding the JSON field set as raw bytes (1): the RawExtension shape.
    fieldsV1: f.raw(7),
    subresource: f.str(8),
  },
  ListMeta: {
    selfLink: f.str(1),
    resourceVersion: f.str(2),
    continue: f.str(3),
    remainingItemCount: f.i64(4, K),
  },
  Status: {
    metadata: f.msg(1, 'ListMeta'),
    status: f.str(2),
    message: f.str(3),
    reason: f.str(4),
    details: f.msg(5, 'StatusDetails'),
    code: f.i32(6),
  },
  StatusDetails: {
    name: f.str(1),
    group: f.str(2),
    kind: f.str(3),
    causes: f.msgs(4, 'StatusCause'),
    retryAfterSeconds: f.i32(5),
    uid: f.str(6),
  },
  StatusCause: {
    reason: f.str(1),
    message: f.str(2),
    field: f.str(3),
  },
  LabelSelector: {
    matchLabels: f.map(1),
    matchExpressions: f.msgs(2, 'LabelSelectorRequirement'),
  },
  LabelSelectorRequirement: {
    key: f.str(1, K),
    operator: f.str(2, K),
    values: f.strs(3),
  },
  Condition: {
    type: f.str(1, K),
    status: f.str(2, K),
    observedGeneration: f.i64(3),
    lastTransitionTime: f.time(4),
    reason: f.str(5, K),
    message: f.str(6, K),
  },
};
