/**
 * flowcontrol.apiserver/v1 and v1beta3 FlowSchema and PriorityLevelConfiguration: stored and validated here,
 * each kind on one storage in v1 (spec 9.6). src/flowcontrol/ enforces them (priority and fairness).
 */
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { flowcontrolBootstrapObjects } from './bootstrap.js';
import { FLOWCONTROL_GROUP, flowSchemaToV1, flowSchemaToV1beta3, priorityLevelToV1, priorityLevelToV1beta3 } from './convert.js';
import { defaultFlowSchema, defaultPriorityLevel, type FlowControlVersion } from './defaults.js';
import { flowSchemaColumns, priorityLevelColumns } from './table.js';
import { validateFlowSchema } from './validate-flowschema.js';
import { validatePriorityLevel } from './validate-prioritylevel.js';

export { FLOWCONTROL_GROUP } from './convert.js';

function flowSchemaType(version: FlowControlVersion): ResourceType {
  return referenceType(FLOWCONTROL_GROUP, version, 'flowschemas', {
    tableColumns: flowSchemaColumns,
    strategy: {
      prepareForCreate: defaultFlowSchema,
      prepareForUpdate: (o) => defaultFlowSchema(o),
      validate: validateFlowSchema,
    },
    ...(version === 'v1beta3' ? { toStorage: flowSchemaToV1, fromStorage: flowSchemaToV1beta3 } : {}),
  });
}

function priorityLevelType(version: FlowControlVersion): ResourceType {
  const defaults = (o: ApiObject) => defaultPriorityLevel(o, version);
  return referenceType(FLOWCONTROL_GROUP, version, 'prioritylevelconfigurations', {
    tableColumns: priorityLevelColumns,
    strategy: {
      prepareForCreate: defaults,
      prepareForUpdate: (o) => defaults(o),
      validate: validatePriorityLevel,
    },
    ...(version === 'v1beta3' ? { toStorage: priorityLevelToV1, fromStorage: priorityLevelToV1beta3 } : {}),
  });
}

export const flowSchemasV1 = flowSchemaType('v1');
export const flowSchemasV1beta3 = flowSchemaType('v1beta3');
export const priorityLevelsV1 = priorityLevelType('v1');
export const priorityLevelsV1beta3 = priorityLevelType('v1beta3');

/** Types of this group with behaviour of their own. */
export const flowcontrolTypes: ResourceType[] = [flowSchemasV1, flowSchemasV1beta3, priorityLevelsV1, priorityLevelsV1beta3];

/** The reference's mandatory and suggested objects (see bootstrap.ts), for the served types. */
export function flowcontrolBootstrap(served: readonly ResourceType[]): ApiObject[] {
  return flowcontrolBootstrapObjects(served);
}
