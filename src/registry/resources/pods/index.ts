/** core/v1 Pod: a group of containers scheduled together onto one node. */
import { isObject, type ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { applyPodDefaults, initialPodStatus } from './defaults.js';
import { podQOSClass } from './quantity.js';
import { definitionSchema } from '../../reference-schema.js';
import { podColumns } from './table.js';
import { validatePodUpdate } from './update.js';
import { validatePod } from './validation.js';

const podSchema = definitionSchema('api.core.v1.Pod');

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * A status write keeps the stored spec. Unlike most types, pod status writes may change labels and annotations
 * (the reference allows it for the node agent), but never owner references or the deletion state.
 */
function prepareForStatusUpdate(o: ApiObject, old: ApiObject): void {
  o.spec = old.spec;
  const meta = { ...(o.metadata ?? {}) };
  for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'finalizers', 'ownerReferences']) {
    const v = old.metadata?.[k];
    if (v === undefined) delete meta[k];
    else meta[k] = v;
  }
  o.metadata = meta;
  // The QoS class is fixed at creation; a node agent that drops it must not erase it.
  const status = isObject(o.status) ? o.status : undefined;
  const oldQos = isObject(old.status) ? old.status.qosClass : undefined;
  if (status && (status.qosClass === undefined || status.qosClass === '') && oldQos !== undefined) status.qosClass = oldQos;
}

export const pods: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  subresources: ['status'],
  storageKey: 'core/pods',
  schema: podSchema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate(o) {
      const spec = applyPodDefaults(o);
      o.status = initialPodStatus(spec);
    },
    // Admission (LimitRanger's defaults, webhooks) may change resources, and the class follows them.
    afterCreateAdmission(o) {
      if (isObject(o.spec) && isObject(o.status)) o.status.qosClass = podQOSClass(o.spec);
    },
    prepareForUpdate(o, old) {
      applyPodDefaults(o);
      o.status = old.status;
    },
    prepareForStatusUpdate,
    validate: validatePod,
    validateUpdate: validatePodUpdate,
  },
  tableColumns: podColumns,
  selectableFields(o) {
    const spec = isObject(o.spec) ? o.spec : {};
    const status = isObject(o.status) ? o.status : {};
    return {
      'spec.nodeName': text(spec.nodeName),
      'spec.restartPolicy': text(spec.restartPolicy),
      'spec.schedulerName': text(spec.schedulerName),
      'spec.serviceAccountName': text(spec.serviceAccountName),
      'spec.hostNetwork': spec.hostNetwork === true ? 'true' : 'false',
      'status.phase': text(status.phase),
      'status.podIP': text(status.podIP),
      'status.nominatedNodeName': text(status.nominatedNodeName),
    };
  },
};
