/** OpenAPI schemas of the two Event views (core v1 and events/v1), field names per the public API reference. */
import { int32, obj, objectSchema, str, time } from '../../schema.js';
import type { Schema } from '../../types.js';

/** MicroTime: RFC 3339 with microseconds; published as date-time like the reference does. */
const microTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

export const objectReference: Schema = {
  ...obj(
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('If referring to a piece of an object instead of an entire object, a path such as "spec.containers{name}".'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
      uid: str('UID of the referent.'),
    },
    'ObjectReference contains enough information to let you inspect or modify the referred object.',
  ),
  'x-kubernetes-map-type': 'atomic',
};

const eventSource = obj(
  {
    component: str('Component from which the event is generated.'),
    host: str('Node name on which the event is generated.'),
  },
  'EventSource contains information for an event.',
);

const coreSeries = obj(
  {
    count: int32('Number of occurrences in this series up to the last heartbeat time.'),
    lastObservedTime: microTime('Time of the last occurrence observed.'),
  },
  'EventSeries contains information on series of events, i.e. thing that was/is happening continuously for some time.',
);

export const coreEventSchema: Schema = objectSchema(
  'Event is a report of an event somewhere in the cluster.',
  {
    involvedObject: { ...objectReference, description: 'The object that this event is about.' },
    reason: str('A short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
    message: str('A human-readable description of the status of this operation.'),
    source: { ...eventSource, description: 'The component reporting this event. Should be a short machine understandable string.' },
    firstTimestamp: time('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
    lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
    count: int32('The number of times this event has occurred.'),
    type: str('Type of this event (Normal, Warning), new types could be added in the future.'),
    eventTime: microTime('Time when this Event was first observed.'),
    series: { ...coreSeries, description: 'Data about the Event series this event represents or nil if it\'s a singleton Event.' },
    action: str('What action was taken/failed regarding to the Regarding object.'),
    related: { ...objectReference, description: 'Optional secondary object for more complex actions.' },
    reportingComponent: str('Name of the controller that emitted this Event, e.g. `example.com/my-controller`.'),
    reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
  },
  ['metadata', 'involvedObject'],
);

const v1Series = obj(
  {
    count: int32('Number of occurrences in this series up to the last heartbeat time.'),
    lastObservedTime: microTime('Time when last Event from the series was seen before last heartbeat.'),
  },
  'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
  ['count', 'lastObservedTime'],
);

export const v1EventSchema: Schema = objectSchema(
  'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system.',
  {
    eventTime: microTime('The time when this Event was first observed. It is required.'),
    series: { ...v1Series, description: 'Data about the Event series this event represents or nil if it\'s a singleton Event.' },
    reportingController: str('The name of the controller that emitted this Event, e.g. `example.com/my-controller`. Must be set on create.'),
    reportingInstance: str('The ID of the controller instance, e.g. `kubelet-xyzf`. Must be set on create; at most 128 characters.'),
    action: str('What action was taken/failed regarding the regarding object. Machine-readable; at most 128 characters.'),
    reason: str('Why the action was taken. Human-readable; at most 128 characters.'),
    regarding: { ...objectReference, description: 'The object this Event is about.' },
    related: { ...objectReference, description: 'Optional secondary object for more complex actions.' },
    note: str('A human-readable description of the status of this operation. At most 1kB.'),
    type: str('Type of this event (Normal, Warning), new types could be added in the future. Must be set on create.'),
    deprecatedSource: { ...eventSource, description: 'The deprecated field assuring backward compatibility with core.v1 Event type.' },
    deprecatedFirstTimestamp: time('The deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedLastTimestamp: time('The deprecated field assuring backward compatibility with core.v1 Event type.'),
    deprecatedCount: int32('The deprecated field assuring backward compatibility with core.v1 Event type.'),
  },
  ['eventTime'],
);
