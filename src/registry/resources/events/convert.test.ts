import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENTS_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { coreToV1, v1ToCore } from './convert.js';
import { coreEvents, eventsV1 } from './index.js';

const core = (): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-0.17a', namespace: 'prod', labels: { a: 'b' } },
  involvedObject: { kind: 'Pod', namespace: 'prod', name: 'web-0', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
  reason: 'Pulled',
  message: 'Image pulled',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:05:00Z',
  count: 3,
  type: 'Normal',
  eventTime: '2024-05-01T10:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
  action: 'Pull',
  related: { kind: 'Node', name: 'node-1' },
  reportingComponent: 'kubelet',
  reportingInstance: 'kubelet-node-1',
});

test('spec 6: core -> events/v1 renames every field and sets the target apiVersion', () => {
  const v1 = coreToV1(core());
  assert.deepEqual(v1, {
    apiVersion: `${EVENTS_GROUP}/v1`,
    kind: 'Event',
    metadata: { name: 'web-0.17a', namespace: 'prod', labels: { a: 'b' } },
    eventTime: '2024-05-01T10:00:00.123456Z',
    series: { count: 3, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
    reportingController: 'kubelet',
    reportingInstance: 'kubelet-node-1',
    action: 'Pull',
    reason: 'Pulled',
    regarding: { kind: 'Pod', namespace: 'prod', name: 'web-0', uid: 'u1', apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
    related: { kind: 'Node', name: 'node-1' },
    note: 'Image pulled',
    type: 'Normal',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
    deprecatedLastTimestamp: '2024-05-01T10:05:00Z',
    deprecatedCount: 3,
  });
});

test('spec 6: events/v1 -> core maps regarding, note, reportingController and the deprecated fields back', () => {
  const stored = v1ToCore({
    apiVersion: `${EVENTS_GROUP}/v1`,
    kind: 'Event',
    metadata: { name: 'e', namespace: 'prod' },
    eventTime: '2024-05-01T10:00:00.000000Z',
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Scale',
    reason: 'Scaled',
    regarding: { kind: 'Deployment', name: 'web', namespace: 'prod' },
    note: 'scaled to 3',
    type: 'Normal',
    deprecatedSource: { component: 'old' },
    deprecatedCount: 2,
  });
  assert.deepEqual(stored, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'prod' },
    involvedObject: { kind: 'Deployment', name: 'web', namespace: 'prod' },
    reason: 'Scaled',
    message: 'scaled to 3',
    source: { component: 'old' },
    count: 2,
    type: 'Normal',
    eventTime: '2024-05-01T10:00:00.000000Z',
    action: 'Scale',
    reportingComponent: 'example.com/ctl',
    reportingInstance: 'ctl-1',
  });
});

test('spec 6: core -> v1 -> core and v1 -> core -> v1 are exact round trips', () => {
  assert.deepEqual(v1ToCore(coreToV1(core())), core());
  const v1 = coreToV1(core());
  assert.deepEqual(coreToV1(v1ToCore(v1)), v1);
});

test('spec 6: conversions do not mutate or share their input', () => {
  const input = core();
  const v1 = coreToV1(input);
  assert.deepEqual(input, core());
  (v1.regarding as Record<string, unknown>).name = 'changed';
  (v1.metadata as Record<string, unknown>).name = 'changed';
  assert.deepEqual(input, core());
  const back = v1ToCore(v1);
  (back.involvedObject as Record<string, unknown>).kind = 'X';
  assert.equal((v1.regarding as Record<string, unknown>).kind, 'Pod');
});

test('spec 6: unknown fields and nulls are dropped, a missing metadata stays missing', () => {
  assert.deepEqual(v1ToCore({ kind: 'Event', bogus: 1, note: null, reason: 'r' }), { apiVersion: 'v1', kind: 'Event', reason: 'r' });
});

test('spec 6: both views share one storage and only events/v1 converts', () => {
  assert.equal(coreEvents.storageKey, 'core/events');
  assert.equal(eventsV1.storageKey, 'core/events');
  assert.equal(coreEvents.toStorage, undefined);
  assert.equal(eventsV1.group, EVENTS_GROUP);
  assert.equal(eventsV1.fromStorage?.(core()).apiVersion, `${EVENTS_GROUP}/v1`);
  assert.equal(eventsV1.toStorage?.(coreToV1(core())).apiVersion, 'v1');
  for (const t of [coreEvents, eventsV1]) {
    assert.deepEqual([t.kind, t.plural, t.singular, t.listKind, t.namespaced], ['Event', 'events', 'event', 'EventList', true]);
    assert.deepEqual(t.shortNames, ['ev']);
    assert.equal(t.strategy.allowCreateOnUpdate, true);
    assert.equal(t.strategy.allowUnconditionalUpdate, true);
    assert.equal(t.strategy.nameRule, 'subdomain');
  }
});
