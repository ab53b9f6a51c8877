/**
 * Event validation with the reference server's rules (spec 6 item 6). Both views run the reference's
 * "legacy" rules, which every stored event must pass; the events/v1 view adds the strict create rules.
 * Field paths use the names of the view the client wrote, so errors point at fields it knows.
 */
import type { ApiObject } from '../../../api/types.js';
import { DEFAULT_NAMESPACE, SYSTEM_NAMESPACE } from '../../../api/naming.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { isQualifiedName } from '../../validation/index.js';
import { FieldReader, immutable, type Rec } from './fields.js';

export const EVENT_TYPES = ['Normal', 'Warning'] as const;
/** The reference's limits on action, reason and reportingInstance, and on the note (message). */
export const SHORT_FIELD_LIMIT = 128;
export const NOTE_LIMIT = 1024;

type View = 'core' | 'v1';

/** Each view's name for the fields whose names differ. */
const NAMES = {
  core: {
    regarding: 'involvedObject',
    controller: 'reportingComponent',
    note: 'message',
    source: 'source',
    first: 'firstTimestamp',
    last: 'lastTimestamp',
    count: 'count',
  },
  v1: {
    regarding: 'regarding',
    controller: 'reportingController',
    note: 'note',
    source: 'deprecatedSource',
    first: 'deprecatedFirstTimestamp',
    last: 'deprecatedLastTimestamp',
    count: 'deprecatedCount',
  },
} as const;

const REFERENCE_FIELDS = ['apiVersion', 'fieldPath', 'kind', 'name', 'namespace', 'resourceVersion', 'uid'];

interface EventFields {
  namespace: string;
  regardingNamespace: string;
  eventTime: string;
  controller: string;
  instance: string;
  action: string;
  reason: string;
  note: string;
  type: string;
  series?: { count: number | undefined; lastObservedTime: string };
}

/** Reads every field with its JSON type checked; the result holds the values the rules need. */
function read(o: ApiObject, view: View, r: FieldReader): EventFields {
  const n = NAMES[view];
  const ref = (key: string) => {
    const x = r.obj(o, key, key);
    for (const f of REFERENCE_FIELDS) r.str(x, f, `${key}.${f}`);
    return x;
  };
  const regarding = ref(n.regarding);
  ref('related');
  const source = r.obj(o, n.source, n.source);
  r.str(source, 'component', `${n.source}.component`);
  r.str(source, 'host', `${n.source}.host`);
  r.time(o, n.first, n.first);
  r.time(o, n.last, n.last);
  r.int(o, n.count, n.count);
  const seriesObj = r.obj(o, 'series', 'series');
  const series = seriesObj && {
    count: r.int(seriesObj, 'count', 'series.count'),
    lastObservedTime: r.time(seriesObj, 'lastObservedTime', 'series.lastObservedTime'),
  };
  const meta = o.metadata as Rec | undefined;
  return {
    namespace: typeof meta?.namespace === 'string' ? meta.namespace : '',
    regardingNamespace: r.str(regarding, 'namespace', `${n.regarding}.namespace`),
    eventTime: r.time(o, 'eventTime', 'eventTime'),
    controller: r.str(o, n.controller, n.controller),
    instance: r.str(o, 'reportingInstance', 'reportingInstance'),
    action: r.str(o, 'action', 'action'),
    reason: r.str(o, 'reason', 'reason'),
    note: r.str(o, n.note, n.note),
    type: r.str(o, 'type', 'type'),
    ...(series ? { series } : {}),
  };
}

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');
const atMost = (path: string, limit: number): FieldError => fieldError.invalid(path, '', `can have at most ${limit} characters`);

/**
 * The rules every event passes. Old-style events (no eventTime) must sit in their object's namespace;
 * new-style events need the reporting fields. `requireNew` applies the latter regardless (events/v1).
 */
function legacyRules(ev: EventFields, view: View, requireNew: boolean): FieldError[] {
  const n = NAMES[view];
  const errs: FieldError[] = [];
  const nsPath = `${n.regarding}.namespace`;
  const mismatch = () => fieldError.invalid(nsPath, ev.regardingNamespace, 'does not match event.namespace');
  if (ev.eventTime === '') {
    // An event about a cluster-scoped object lives in "default" (or, for old clients, no namespace).
    const ok = ev.regardingNamespace
      ? ev.namespace === ev.regardingNamespace
      : ev.namespace === '' || ev.namespace === DEFAULT_NAMESPACE;
    if (!ok) errs.push(mismatch());
  } else if (ev.regardingNamespace === '' && ev.namespace !== DEFAULT_NAMESPACE && ev.namespace !== SYSTEM_NAMESPACE) {
    errs.push(mismatch());
  }
  if (ev.eventTime === '' && !requireNew) return errs;

  if (ev.controller === '') errs.push(fieldError.required(n.controller));
  else for (const msg of isQualifiedName(ev.controller)) errs.push(fieldError.invalid(n.controller, ev.controller, msg));
  for (const [path, value] of [
    ['reportingInstance', ev.instance],
    ['action', ev.action],
    ['reason', ev.reason],
  ] as const) {
    if (value === '') errs.push(fieldError.required(path));
    else if (byteLength(value) > SHORT_FIELD_LIMIT) errs.push(atMost(path, SHORT_FIELD_LIMIT));
  }
  if (byteLength(ev.note) > NOTE_LIMIT) errs.push(atMost(n.note, NOTE_LIMIT));
  return errs;
}

/** A series is a repeat of an event: at least two occurrences, with the time of the last one. */
function seriesRules(ev: EventFields): FieldError[] {
  if (!ev.series) return [];
  const errs: FieldError[] = [];
  const count = ev.series.count ?? 0;
  if (count < 2) errs.push(fieldError.invalid('series.count', count, 'should be at least 2'));
  if (ev.series.lastObservedTime === '') errs.push(fieldError.required('series.lastObservedTime'));
  return errs;
}

/** Core v1 Event: the legacy rules only; any `type` is accepted for compatibility with old clients. */
export function validateCoreEvent(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const ev = read(o, 'core', r);
  return [...r.errors, ...legacyRules(ev, 'core', false)];
}

/** events/v1 Event: eventTime, action, reason, reportingController and reportingInstance required; type Normal or Warning. */
export function validateV1Event(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const ev = read(o, 'v1', r);
  const errs = [...r.errors];
  // A malformed eventTime was already reported by the reader; do not also call it missing.
  if (ev.eventTime === '' && !r.errors.some((e) => e.field === 'eventTime')) errs.push(fieldError.required('eventTime'));
  errs.push(...legacyRules(ev, 'v1', true));
  if (!(EVENT_TYPES as readonly string[]).includes(ev.type)) errs.push(fieldError.notSupported('type', ev.type, EVENT_TYPES));
  errs.push(...seriesRules(ev));
  return errs;
}

/** Fields an events/v1 client may not change; only `series` (and metadata) moves as the event repeats. */
const V1_IMMUTABLE = [
  'regarding',
  'reason',
  'note',
  'deprecatedSource',
  'deprecatedFirstTimestamp',
  'deprecatedLastTimestamp',
  'deprecatedCount',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingController',
  'reportingInstance',
];

export function validateV1EventUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  return V1_IMMUTABLE.flatMap((f) => immutable(f, o[f], old[f]));
}
