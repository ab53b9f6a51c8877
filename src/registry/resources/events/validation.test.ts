import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_NAMESPACE } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { coreEvents, eventsV1 } from './index.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const coreValidate = (o: ApiObject) => coreEvents.strategy.validate(o);
const v1Validate = (o: ApiObject) => eventsV1.strategy.validate(o);

const legacy = (over: ApiObject = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'prod' },
  involvedObject: { kind: 'Pod', name: 'p', namespace: 'prod' },
  reason: 'Started',
  message: 'started',
  type: 'Whatever',
  count: 1,
  ...over,
});

const v1 = (over: ApiObject = {}): ApiObject => ({
  apiVersion: 'events/v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'prod' },
  eventTime: '2024-05-01T10:00:00.000000Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Scale',
  reason: 'Scaled',
  regarding: { kind: 'Deployment', name: 'web', namespace: 'prod' },
  note: 'scaled',
  type: 'Normal',
  ...over,
});

test('spec 6: an old-style core event is valid with any type and no reporting fields', () => {
  assert.deepEqual(coreValidate(legacy()), []);
});

test('spec 6: old-style core event: involvedObject.namespace must match metadata.namespace', () => {
  const errs = coreValidate(legacy({ involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } }));
  assert.deepEqual(summary(errs), ['FieldValueInvalid involvedObject.namespace']);
  assert.match(errs[0]?.message ?? '', /does not match event.namespace/);
  // A cluster-scoped object's events live in "default" (or nowhere), not elsewhere.
  assert.deepEqual(coreValidate(legacy({ metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Node', name: 'n' } })), []);
  assert.deepEqual(summary(coreValidate(legacy({ involvedObject: { kind: 'Node', name: 'n' } }))), [
    'FieldValueInvalid involvedObject.namespace',
  ]);
});

test('spec 6: a new-style core event (eventTime set) needs the reporting fields under core names', () => {
  const errs = coreValidate(legacy({ eventTime: '2024-05-01T10:00:00.000000Z', reason: '' }));
  assert.deepEqual(summary(errs), [
    'FieldValueRequired reportingComponent',
    'FieldValueRequired reportingInstance',
    'FieldValueRequired action',
    'FieldValueRequired reason',
  ]);
  const ok = legacy({ eventTime: '2024-05-01T10:00:00Z', reportingComponent: 'kubelet', reportingInstance: 'n1', action: 'Start' });
  assert.deepEqual(coreValidate(ok), []);
  // New-style events about cluster objects may sit in the system namespace, but not in an arbitrary one.
  const nodeEvent = { ...ok, involvedObject: { kind: 'Node', name: 'n' } };
  assert.deepEqual(coreValidate({ ...nodeEvent, metadata: { name: 'e', namespace: SYSTEM_NAMESPACE } }), []);
  assert.deepEqual(summary(coreValidate(nodeEvent)), ['FieldValueInvalid involvedObject.namespace']);
});

test('spec 6: core event message is limited to 1 KiB once eventTime is set', () => {
  const base = { eventTime: '2024-05-01T10:00:00Z', reportingComponent: 'k', reportingInstance: 'i', action: 'a' };
  assert.deepEqual(coreValidate(legacy({ ...base, message: 'x'.repeat(1024) })), []);
  const errs = coreValidate(legacy({ ...base, message: 'x'.repeat(1025) }));
  assert.deepEqual(summary(errs), ['FieldValueInvalid message']);
  assert.match(errs[0]?.message ?? '', /can have at most 1024 characters/);
});

test('spec 6: wrong JSON types and malformed timestamps are reported at their paths', () => {
  const errs = coreValidate(legacy({ reason: 7, count: 'x', involvedObject: 'pod', firstTimestamp: 'yesterday', source: { host: 1 } }));
  assert.deepEqual(summary(errs), [
    'FieldValueTypeInvalid involvedObject',
    'FieldValueTypeInvalid source.host',
    'FieldValueInvalid firstTimestamp',
    'FieldValueTypeInvalid count',
    'FieldValueTypeInvalid reason',
    // The unreadable involvedObject reads as empty, which does not match the event's namespace either.
    'FieldValueInvalid involvedObject.namespace',
  ]);
});

test('spec 6: a complete events/v1 event is valid', () => {
  assert.deepEqual(v1Validate(v1()), []);
  assert.deepEqual(v1Validate(v1({ type: 'Warning', series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' } })), []);
});

test('spec 6: events/v1 requires eventTime, action, reason, reportingController and reportingInstance', () => {
  const errs = v1Validate(v1({ eventTime: undefined, action: '', reason: undefined, reportingController: '', reportingInstance: '' }));
  assert.deepEqual(summary(errs), [
    'FieldValueRequired eventTime',
    'FieldValueRequired reportingController',
    'FieldValueRequired reportingInstance',
    'FieldValueRequired action',
    'FieldValueRequired reason',
  ]);
  assert.ok(errs.every((e) => e.message === 'Required value'));
});

test('spec 6: events/v1 type must be Normal or Warning', () => {
  for (const type of ['Info', '', undefined]) {
    const errs = v1Validate(v1({ type }));
    assert.deepEqual(summary(errs), ['FieldValueNotSupported type']);
    assert.match(errs[0]?.message ?? '', /supported values: "Normal", "Warning"/);
  }
});

test('spec 6: events/v1 reportingController must be a qualified name', () => {
  const errs = v1Validate(v1({ reportingController: 'bad name!' }));
  assert.deepEqual(summary(errs), ['FieldValueInvalid reportingController']);
  assert.deepEqual(v1Validate(v1({ reportingController: 'kubelet' })), []);
});

test('spec 6: events/v1 note is limited to 1 KiB; action, reason, reportingInstance to 128', () => {
  assert.deepEqual(summary(v1Validate(v1({ note: 'é'.repeat(513) }))), ['FieldValueInvalid note']);
  const long = 'a'.repeat(129);
  assert.deepEqual(summary(v1Validate(v1({ action: long, reason: long, reportingInstance: long }))), [
    'FieldValueInvalid reportingInstance',
    'FieldValueInvalid action',
    'FieldValueInvalid reason',
  ]);
});

test('spec 6: events/v1 regarding.namespace rules use the view\'s field names', () => {
  assert.deepEqual(v1Validate(v1({ regarding: { kind: 'Pod', name: 'p', namespace: 'other' } })), []);
  assert.deepEqual(summary(v1Validate(v1({ regarding: { kind: 'Node', name: 'n' } }))), ['FieldValueInvalid regarding.namespace']);
});

test('spec 6: events/v1 series needs count >= 2 and lastObservedTime', () => {
  assert.deepEqual(summary(v1Validate(v1({ series: { count: 1 } }))), [
    'FieldValueInvalid series.count',
    'FieldValueRequired series.lastObservedTime',
  ]);
  assert.deepEqual(summary(v1Validate(v1({ eventTime: 'not a time' }))), ['FieldValueInvalid eventTime']);
});

test('spec 6: events/v1 update: identity fields are immutable, series may change', () => {
  const old = v1();
  const update = eventsV1.strategy.validateUpdate;
  assert.ok(update);
  assert.deepEqual(update(v1({ series: { count: 2, lastObservedTime: '2024-05-01T10:09:00.000000Z' } }), old), []);
  const changed = v1({
    eventTime: '2024-05-02T00:00:00.000000Z',
    action: 'Other',
    reason: 'Other',
    reportingController: 'x',
    reportingInstance: 'y',
    regarding: { kind: 'Pod', name: 'q' },
    related: { kind: 'Node', name: 'n' },
    type: 'Warning',
    note: 'changed',
  });
  const errs = update(changed, old);
  assert.deepEqual(errs.map((e) => e.field).sort(), [
    'action',
    'eventTime',
    'note',
    'reason',
    'regarding',
    'related',
    'reportingController',
    'reportingInstance',
    'type',
  ]);
  assert.ok(errs.every((e) => e.type === 'FieldValueInvalid' && e.message.endsWith('field is immutable')));
  // Absent and empty are the same value, as for the reference's Go zero values.
  assert.deepEqual(update(v1({ related: {}, deprecatedCount: 0 }), old), []);
});

test('spec 6: core events accept updates of any field (compatibility with old recorders)', () => {
  assert.equal(coreEvents.strategy.validateUpdate, undefined);
});

test('spec 6: prepare hooks store Time in seconds and MicroTime with six fraction digits, in UTC', () => {
  const o = legacy({
    firstTimestamp: '2024-05-01T12:00:00.987+02:00',
    eventTime: '2024-05-01T10:00:00.5Z',
    series: { count: 2, lastObservedTime: '2024-05-01T10:00:00.1234567Z' },
    lastTimestamp: 'garbage',
  });
  coreEvents.strategy.prepareForCreate?.(o);
  assert.equal(o.firstTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(o.eventTime, '2024-05-01T10:00:00.500000Z');
  assert.deepEqual(o.series, { count: 2, lastObservedTime: '2024-05-01T10:00:00.123456Z' });
  assert.equal(o.lastTimestamp, 'garbage');
  const w = v1({ deprecatedLastTimestamp: '2024-05-01T10:00:00+00:00', eventTime: '2024-05-01T10:00:00Z' });
  eventsV1.strategy.prepareForUpdate?.(w, v1());
  assert.equal(w.deprecatedLastTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(w.eventTime, '2024-05-01T10:00:00.000000Z');
});
