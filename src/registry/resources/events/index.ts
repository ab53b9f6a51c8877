/**
 * Event, served as core v1 (the stored form) and as events/v1 (spec 6 item 6), both on `core/events`.
 */
import type { ApiObject } from '../../../api/types.js';
import { EVENTS_GROUP } from '../../../api/naming.js';
import type { ResourceType, Strategy } from '../../types.js';
import { coreToV1, v1ToCore } from './convert.js';
import { formatMicroTime, formatTime, normalizeTimestamps } from './fields.js';
import { definitionSchema } from '../../reference-schema.js';
import { coreEventColumns, coreEventFields, convertedColumns, v1EventFields } from './table.js';
import { validateCoreEvent, validateV1Event, validateV1EventUpdate } from './validation.js';

const coreEventSchema = definitionSchema('api.core.v1.Event');
const v1EventSchema = definitionSchema('api.events.v1.Event');

export { coreToV1, v1ToCore } from './convert.js';

export const EVENTS_STORAGE_KEY = 'core/events';

/** Stores timestamps in their wire form (Time in seconds, MicroTime with six fraction digits). */
function timestampNormalizer(timePaths: string[], microTimePaths: string[]) {
  return (o: ApiObject) => {
    normalizeTimestamps(o, timePaths, formatTime);
    normalizeTimestamps(o, microTimePaths, formatMicroTime);
  };
}

const MICRO_TIMES = ['eventTime', 'series.lastObservedTime'];
const normalizeCore = timestampNormalizer(['firstTimestamp', 'lastTimestamp'], MICRO_TIMES);
const normalizeV1 = timestampNormalizer(['deprecatedFirstTimestamp', 'deprecatedLastTimestamp'], MICRO_TIMES);

// Events have no spec and no status: generation does not track anything. Recorders PUT without a
// resourceVersion and may create by update, as with the reference.
const common = {
  nameRule: 'subdomain',
  tracksGeneration: false,
  allowUnconditionalUpdate: true,
  allowCreateOnUpdate: true,
} as const;

const coreStrategy: Strategy = {
  ...common,
  prepareForCreate: normalizeCore,
  prepareForUpdate: (o) => normalizeCore(o),
  validate: validateCoreEvent,
};

const v1Strategy: Strategy = {
  ...common,
  prepareForCreate: normalizeV1,
  prepareForUpdate: (o) => normalizeV1(o),
  validate: validateV1Event,
  validateUpdate: validateV1EventUpdate,
};

const shared = {
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  subresources: [],
  storageKey: EVENTS_STORAGE_KEY,
};

export const coreEvents: ResourceType = {
  ...shared,
  group: '',
  schema: coreEventSchema,
  strategy: coreStrategy,
  tableColumns: coreEventColumns,
  selectableFields: coreEventFields,
};

export const eventsV1: ResourceType = {
  ...shared,
  group: EVENTS_GROUP,
  schema: v1EventSchema,
  strategy: v1Strategy,
  tableColumns: convertedColumns(coreEventColumns, v1ToCore),
  selectableFields: v1EventFields,
  toStorage: v1ToCore,
  fromStorage: coreToV1,
};
