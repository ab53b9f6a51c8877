import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../api/naming.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { addDefaultTolerations, DefaultTolerationSecondsPlugin, defaultTolerationSecondsPlugin } from './default-toleration-seconds.js';

const POD = { group: '', version: 'v1', resource: 'pods' };
const podWrite = (spec: Record<string, unknown>, over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    name: 'p',
    resource: POD,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
    ...over,
  });
const notReady = { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable = { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

admissionPluginContract('DefaultTolerationSeconds', {
  make: () => new DefaultTolerationSecondsPlugin(),
  cases: [
    { title: 'a pod without tolerations', request: () => podWrite({}) },
    { title: 'a pod tolerating everything', request: () => podWrite({ tolerations: [{ operator: 'Exists' }] }) },
  ],
});

test('reference behaviour (DefaultTolerationSeconds): the two NoExecute node tolerations are added unless already tolerated', () => {
  const custom = { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
  const table: [string, unknown, unknown[] | undefined][] = [
    ['no tolerations', undefined, [notReady, unreachable]],
    ['an unrelated toleration is kept first', [{ key: 'gpu', operator: 'Exists' }], [{ key: 'gpu', operator: 'Exists' }, notReady, unreachable]],
    ['its own not-ready toleration is kept', [custom], [custom, unreachable]],
    ['a not-ready toleration of any effect counts', [{ key: TAINT_NODE_NOT_READY, operator: 'Exists' }], [{ key: TAINT_NODE_NOT_READY, operator: 'Exists' }, unreachable]],
    ['a not-ready toleration for NoSchedule does not', [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoSchedule' }],
      [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoSchedule' }, notReady, unreachable]],
    ['an empty key tolerates both', [{ operator: 'Exists', effect: 'NoExecute' }], [{ operator: 'Exists', effect: 'NoExecute' }]],
  ];
  for (const [what, tolerations, want] of table) {
    const spec: Record<string, unknown> = tolerations === undefined ? {} : { tolerations: structuredClone(tolerations) };
    addDefaultTolerations(spec);
    assert.deepEqual(spec.tolerations, want, what);
  }
});

test('reference behaviour (DefaultTolerationSeconds): pods on create and update only; subresources and other kinds untouched; no configuration', () => {
  const p = new DefaultTolerationSecondsPlugin();
  assert.deepEqual([p.handles('CREATE'), p.handles('UPDATE'), p.handles('DELETE'), p.handles('CONNECT')], [true, true, false, false]);
  const upd = podWrite({}, { operation: 'UPDATE' });
  p.admit(upd);
  assert.deepEqual((upd.object?.spec as Record<string, unknown>).tolerations, [notReady, unreachable]);
  const status = podWrite({}, { subResource: 'status' });
  p.admit(status);
  assert.equal((status.object?.spec as Record<string, unknown>).tolerations, undefined);
  const other = podWrite({}, { resource: { group: '', version: 'v1', resource: 'configmaps' } });
  p.admit(other);
  assert.equal((other.object?.spec as Record<string, unknown>).tolerations, undefined);
  assert.throws(() => defaultTolerationSecondsPlugin({} as never, { x: 1 }), /plugin DefaultTolerationSeconds takes no configuration/);
});
