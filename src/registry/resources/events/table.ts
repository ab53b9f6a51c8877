/**
 * Event table columns and field-selector fields as the reference shows them (`kubectl get events`).
 * Both are computed on the stored (core) form; the events/v1 view converts first.
 */
import type { ApiObject } from '../../../api/types.js';
import { column, pathValue } from '../../schema.js';
import type { TableColumn } from '../../types.js';

const text = (o: ApiObject, path: string): string => {
  const v = pathValue(o, path);
  return typeof v === 'string' ? v : '';
};
const firstSet = (...values: string[]) => values.find((v) => v !== '') ?? '';

/** When the event was first seen: the old timestamp, else the new-style eventTime. */
const firstSeen = (o: ApiObject) => firstSet(text(o, 'firstTimestamp'), text(o, 'eventTime'));

/** The latest sighting: a series' last observation, else lastTimestamp, else the first sighting. */
const lastSeen = (o: ApiObject) =>
  pathValue(o, 'series') ? text(o, 'series.lastObservedTime') : firstSet(text(o, 'lastTimestamp'), firstSeen(o));

/** Occurrences: the series count, else the old count; a singleton new-style event has neither, so 1. */
function count(o: ApiObject): number {
  const series = pathValue(o, 'series.count');
  if (pathValue(o, 'series') && typeof series === 'number') return series;
  const c = pathValue(o, 'count');
  return typeof c === 'number' && c !== 0 ? c : 1;
}

/** "kind/name" with the kind lower-cased, as kubectl prints it ("pod/web-0"). */
function target(o: ApiObject): string {
  const kind = text(o, 'involvedObject.kind').toLowerCase();
  const name = text(o, 'involvedObject.name');
  return name ? `${kind}/${name}` : kind;
}

/** "component, instance", preferring the old source fields over the reporting ones. */
function source(o: ApiObject): string {
  const component = firstSet(text(o, 'source.component'), text(o, 'reportingComponent'));
  const instance = firstSet(text(o, 'source.host'), text(o, 'reportingInstance'));
  return instance ? `${component}, ${instance}` : component;
}

const orNull = (s: string) => (s === '' ? null : s);

export const coreEventColumns: TableColumn[] = [
  column('Last Seen', 'date', 'When the event last happened.', (o) => orNull(lastSeen(o))),
  column('Type', 'string', 'Normal or Warning.', (o) => text(o, 'type')),
  column('Reason', 'string', 'Short reason code.', (o) => text(o, 'reason')),
  column('Object', 'string', 'The object concerned.', target),
  column('Subobject', 'string', 'The part of the object concerned.', (o) => text(o, 'involvedObject.fieldPath'), 1),
  column('Source', 'string', 'Who reported the event.', source, 1),
  column('Message', 'string', 'Event text.', (o) => text(o, 'message').trim()),
  column('First Seen', 'date', 'When the event first happened.', (o) => orNull(firstSeen(o)), 1),
  column('Count', 'integer', 'Occurrences.', count, 1),
];

/** The same columns for a view that is converted to the stored form before the cells are computed. */
export function convertedColumns(columns: TableColumn[], toStorage: (o: ApiObject) => ApiObject): TableColumn[] {
  return columns.map((c) => ({ ...c, value: (o: ApiObject) => c.value(toStorage(o)) }));
}

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** The reference's field-selector fields of core events; `source` falls back to the reporting component. */
export function coreEventFields(o: ApiObject): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const f of REFERENCE_FIELDS) fields[`involvedObject.${f}`] = text(o, `involvedObject.${f}`);
  fields.reason = text(o, 'reason');
  fields.reportingComponent = text(o, 'reportingComponent');
  fields.source = firstSet(text(o, 'source.component'), text(o, 'reportingComponent'));
  fields.type = text(o, 'type');
  return fields;
}

/** events/v1 field-selector fields, under the names that view uses. */
export function v1EventFields(o: ApiObject): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const f of REFERENCE_FIELDS) fields[`regarding.${f}`] = text(o, `regarding.${f}`);
  fields.reason = text(o, 'reason');
  fields.reportingController = text(o, 'reportingController');
  fields.type = text(o, 'type');
  return fields;
}
