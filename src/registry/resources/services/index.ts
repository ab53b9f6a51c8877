/** core/v1 Service: a stable virtual IP and DNS name in front of a set of pods. */
import { isObject, type ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { allocate, applyServiceDefaults, carryAllocations, specOf } from './defaults.js';
import { serviceSchema } from './schema.js';
import { serviceColumns } from './table.js';
import { validateService, validateServiceUpdate } from './validation.js';
import { metadataForStatusWrite } from '../../object-meta.js';


export const services: ResourceType = {
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
      const spec = specOf(o);
      applyServiceDefaults(spec);
      allocate(spec);
      o.status = { loadBalancer: {} };
    },
    prepareForUpdate(o, old) {
      const spec = specOf(o);
      applyServiceDefaults(spec);
      carryAllocations(spec, isObject(old.spec) ? old.spec : {});
      allocate(spec);
      o.status = old.status;
    },
    prepareForStatusUpdate(o, old) {
      o.spec = old.spec;
      o.metadata = metadataForStatusWrite(o, old);
    },
    validate: validateService,
    validateUpdate: validateServiceUpdate,
  },
  tableColumns: serviceColumns,
};
