/**
 * Conversion between the stored form (core v1 Event) and the events/v1 view (spec 6 item 6).
 *
 * The mapping is a bijection, as in the reference server, so that both round trips are exact: the old
 * core fields live on in events/v1 as the `deprecated*` fields, and the core `series`, `eventTime`,
 * `reportingComponent`/`reportingInstance` carry the new-style data. Mapping one core field from two
 * events/v1 fields (e.g. `count` from both `series.count` and `deprecatedCount`) would make the
 * conversion lossy, so the "replaces" relations of spec 6 are the meaning of the fields, not extra copies.
 */
import type { ApiObject } from '../../../api/types.js';
import { EVENTS_GROUP } from '../../../api/naming.js';

export const V1_API_VERSION = `${EVENTS_GROUP}/v1`;

/** [events/v1 name, core name], in the events/v1 field order. */
const FIELD_MAP: readonly (readonly [string, string])[] = [
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['reportingController', 'reportingComponent'],
  ['reportingInstance', 'reportingInstance'],
  ['action', 'action'],
  ['reason', 'reason'],
  ['regarding', 'involvedObject'],
  ['related', 'related'],
  ['note', 'message'],
  ['type', 'type'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];

/** The core v1 field order, so stored objects read like the reference's. */
const CORE_ORDER = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];

const toV1Name = new Map(FIELD_MAP.map(([v1, core]) => [core, v1]));

function header(apiVersion: string, from: ApiObject): ApiObject {
  const out: ApiObject = { apiVersion, kind: 'Event' };
  if (from.metadata !== undefined) out.metadata = structuredClone(from.metadata);
  return out;
}

/** Copies `from[src]` into `out[dst]` (deep, so the input is never shared); null means unset, as in Go. */
function copy(out: ApiObject, dst: string, from: ApiObject, src: string): void {
  const v = from[src];
  if (v !== undefined && v !== null) out[dst] = structuredClone(v);
}

/** Stored (core v1) Event -> events/v1 Event. Unknown fields are dropped, as decoding would. */
export function coreToV1(core: ApiObject): ApiObject {
  const out = header(V1_API_VERSION, core);
  for (const [v1Name, coreName] of FIELD_MAP) copy(out, v1Name, core, coreName);
  return out;
}

/** events/v1 Event -> stored (core v1) Event. */
export function v1ToCore(v1: ApiObject): ApiObject {
  const out = header('v1', v1);
  for (const coreName of CORE_ORDER) copy(out, coreName, v1, toV1Name.get(coreName) as string);
  return out;
}

