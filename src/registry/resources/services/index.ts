/** core/v1 Service: a stable virtual IP and DNS name in front of a set of pods. */
import { isObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { applyServiceDefaults, carryAllocations, specOf } from './defaults.js';
import { definitionSchema } from '../../reference-schema.js';
import { serviceColumns } from './table.js';
import { validateFamilies, validateService, validateServiceUpdate } from './validation.js';
import { metadataForStatusWrite } from '../../object-meta.js';
import { serviceAllocations } from './allocations.js';
import { serviceNetwork, type ServiceNetwork } from './network.js';

export { serviceNetwork, DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, type ServiceNetwork } from './network.js';
export { ensureApiService, API_SERVICE_NAME } from './api-service.js';
export { startServiceRangeRepair } from './repair.js';

const serviceSchema = definitionSchema('api.core.v1.Service');

/** The Service type of a server whose cluster IPs and node ports come from `net`. */
export function serviceType(net: ServiceNetwork): ResourceType {
  return {
    group: '',
    version: 'v1',
    kind: 'Service',
    listKind: 'ServiceList',
    plural: 'services',
    singular: 'service',
    shortNames: ['svc'],
    categories: ['all'],
    namespaced: true,
    subresources: ['status'],
    storageKey: 'core/services',
    schema: serviceSchema,
    strategy: {
      nameRule: 'label',
      tracksGeneration: false,
      // As in the reference, a PUT may create a service (clients use it to ensure a service exists).
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: true,
      prepareForCreate(o) {
        applyServiceDefaults(specOf(o), net.family);
        o.status = { loadBalancer: {} };
      },
      prepareForUpdate(o, old) {
        const spec = specOf(o);
        applyServiceDefaults(spec, net.family);
        carryAllocations(spec, isObject(old.spec) ? old.spec : {});
        o.status = old.status;
      },
      prepareForStatusUpdate(o, old) {
        o.spec = old.spec;
        o.metadata = metadataForStatusWrite(o, old);
      },
      validate: (o) => [...validateService(o), ...validateFamilies(o, net.family)],
      validateUpdate: validateServiceUpdate,
    },
    tableColumns: serviceColumns,
    allocations: serviceAllocations(net),
  };
}

/** The Service type with the default ranges (10.0.0.0/24, 30000-32767). */
export const services: ResourceType = serviceType(serviceNetwork());
