import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../api/types.js';
import type { ResourceType } from '../../types.js';
import { coreToV1 } from './convert.js';
import { coreEvents, eventsV1 } from './index.js';

const cells = (t: ResourceType, o: ApiObject, wide = false) =>
  Object.fromEntries(t.tableColumns.filter((c) => wide || c.priority === 0).map((c) => [c.name, c.value(o)]));

const oldStyle: ApiObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-0.1', namespace: 'prod' },
  involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'prod', fieldPath: 'spec.containers{app}' },
  reason: 'BackOff',
  message: '  Back-off restarting failed container \n',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:05:00Z',
  count: 7,
  type: 'Warning',
};

const newStyle: ApiObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'node-1.2', namespace: 'default' },
  involvedObject: { kind: 'Node' },
  reason: 'Ready',
  message: 'node is ready',
  type: 'Normal',
  eventTime: '2024-05-01T09:00:00.000000Z',
  action: 'Check',
  reportingComponent: 'example.com/ctl',
  reportingInstance: 'ctl-1',
};

test('spec 6: core event table shows Last Seen, Type, Reason, Object, Message like kubectl', () => {
  assert.deepEqual(
    coreEvents.tableColumns.filter((c) => c.priority === 0).map((c) => [c.name, c.type]),
    [
      ['Last Seen', 'date'],
      ['Type', 'string'],
      ['Reason', 'string'],
      ['Object', 'string'],
      ['Message', 'string'],
    ],
  );
  assert.deepEqual(cells(coreEvents, oldStyle), {
    'Last Seen': '2024-05-01T10:05:00Z',
    Type: 'Warning',
    Reason: 'BackOff',
    Object: 'pod/web-0',
    Message: 'Back-off restarting failed container',
  });
});

test('spec 6: core event wide columns: Subobject, Source, First Seen, Count', () => {
  const wide = cells(coreEvents, oldStyle, true);
  assert.equal(wide.Subobject, 'spec.containers{app}');
  assert.equal(wide.Source, 'kubelet, node-1');
  assert.equal(wide['First Seen'], '2024-05-01T10:00:00Z');
  assert.equal(wide.Count, 7);
});

test('spec 6: a new-style event falls back to eventTime, the reporting fields and a count of 1', () => {
  const wide = cells(coreEvents, newStyle, true);
  assert.equal(wide['Last Seen'], '2024-05-01T09:00:00.000000Z');
  assert.equal(wide['First Seen'], '2024-05-01T09:00:00.000000Z');
  assert.equal(wide.Object, 'node');
  assert.equal(wide.Source, 'example.com/ctl, ctl-1');
  assert.equal(wide.Count, 1);
  const series = { ...newStyle, series: { count: 4, lastObservedTime: '2024-05-01T09:30:00.000000Z' } };
  assert.equal(cells(coreEvents, series, true)['Last Seen'], '2024-05-01T09:30:00.000000Z');
  assert.equal(cells(coreEvents, series, true).Count, 4);
  assert.equal(cells(coreEvents, { kind: 'Event' })['Last Seen'], null);
});

test('spec 6: the events/v1 table shows the same cells from its own fields', () => {
  for (const o of [oldStyle, newStyle]) assert.deepEqual(cells(eventsV1, coreToV1(o), true), cells(coreEvents, o, true));
  assert.deepEqual(
    eventsV1.tableColumns.map((c) => c.name),
    coreEvents.tableColumns.map((c) => c.name),
  );
});

test('spec 6: core event field selectors cover involvedObject.*, reason, reportingComponent, source, type', () => {
  const fields = coreEvents.selectableFields?.(oldStyle);
  assert.deepEqual(fields, {
    'involvedObject.kind': 'Pod',
    'involvedObject.namespace': 'prod',
    'involvedObject.name': 'web-0',
    'involvedObject.uid': '',
    'involvedObject.apiVersion': '',
    'involvedObject.resourceVersion': '',
    'involvedObject.fieldPath': 'spec.containers{app}',
    reason: 'BackOff',
    reportingComponent: '',
    source: 'kubelet',
    type: 'Warning',
  });
  // `source` falls back to the reporting component for new-style events.
  assert.equal(coreEvents.selectableFields?.(newStyle).source, 'example.com/ctl');
});

test('spec 6: events/v1 field selectors use that view\'s names', () => {
  const fields = eventsV1.selectableFields?.(coreToV1(oldStyle)) ?? {};
  assert.equal(fields['regarding.kind'], 'Pod');
  assert.equal(fields['regarding.name'], 'web-0');
  assert.equal(fields['regarding.namespace'], 'prod');
  assert.equal(fields.reason, 'BackOff');
  assert.equal(fields.type, 'Warning');
  assert.equal(eventsV1.selectableFields?.(coreToV1(newStyle)).reportingController, 'example.com/ctl');
  assert.equal(fields['involvedObject.kind'], undefined);
});
