import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TAINT_NODE_NOT_READY } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { TaintNodesByConditionPlugin } from './taint-nodes-by-condition.js';

const node = (spec?: Record<string, unknown>, subResource = ''): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    namespace: '',
    name: 'n1',
    subResource,
    kind: { group: '', version: 'v1', kind: 'Node' },
    resource: { group: '', version: 'v1', resource: 'nodes' },
    object: { metadata: { name: 'n1' }, ...(spec ? { spec } : {}) },
  });

admissionPluginContract('TaintNodesByCondition', {
  make: () => new TaintNodesByConditionPlugin(),
  cases: [
    { title: 'a new node', request: () => node() },
    { title: 'a new node already tainted', request: () => node({ taints: [{ key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }] }) },
  ],
});

test('reference behaviour (TaintNodesByCondition): a new node gets the not-ready NoSchedule taint once', () => {
  const notReady = { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' };
  const table: [string, AdmissionRequest, unknown][] = [
    ['no spec', node(), [notReady]],
    ['other taints kept', node({ taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] }), [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }, notReady]],
    ['already there', node({ taints: [{ key: TAINT_NODE_NOT_READY, effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' }] }), [{ key: TAINT_NODE_NOT_READY, effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' }]],
    ['same key, another effect', node({ taints: [{ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' }] }), [{ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' }, notReady]],
    ['a subresource is left alone', node({}, 'status'), undefined],
  ];
  for (const [what, req, want] of table) {
    new TaintNodesByConditionPlugin().admit(req);
    assert.deepEqual(((req.object as ApiObject).spec as { taints?: unknown } | undefined)?.taints, want, what);
  }
});

test('reference behaviour (TaintNodesByCondition): only node creates are handled; other resources are left alone', () => {
  const p = new TaintNodesByConditionPlugin();
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => p.handles(op)), [true, false, false, false]);
  const cm = admissionRequest({ operation: 'CREATE', object: { metadata: { name: 'c' } } });
  p.admit(cm);
  assert.deepEqual(cm.object, { metadata: { name: 'c' } });
});
