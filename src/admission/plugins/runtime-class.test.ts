import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NODE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { nodeSelectorConflict, RuntimeClassPlugin, sameResources } from './runtime-class.js';
import { isSuperset, mergeTolerations } from './toleration-merge.js';

type Obj = Record<string, unknown>;
const rc = (name: string, extra: Obj = {}): ApiObject => ({ apiVersion: `${NODE_GROUP}/v1`, kind: 'RuntimeClass', metadata: { name }, handler: name, ...extra });
const classes = [
  rc('plain'),
  rc('kata', {
    overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
    scheduling: { nodeSelector: { sandbox: 'kata' }, tolerations: [{ key: 'sandbox', operator: 'Equal', value: 'kata', effect: 'NoSchedule' }] },
  }),
];
const reader = (withPeek = true) => fixedObjects({ [`${NODE_GROUP}/runtimeclasses`]: classes }, withPeek);
const podWrite = (spec: Obj, over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    name: 'p',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
    ...over,
  });

admissionPluginContract('RuntimeClass', {
  make: () => new RuntimeClassPlugin(reader()),
  cases: [
    { title: 'a pod of a class with overhead and scheduling', request: () => podWrite({ runtimeClassName: 'kata' }) },
    { title: 'a pod of an unknown class', request: () => podWrite({ runtimeClassName: 'gone' }) },
    { title: 'a pod with overhead and no class', request: () => podWrite({ overhead: { cpu: '1' } }) },
    { title: 'a pod whose node selector conflicts', request: () => podWrite({ runtimeClassName: 'kata', nodeSelector: { sandbox: 'gvisor' } }) },
  ],
});

async function outcome(req: AdmissionRequest, withPeek = true): Promise<string> {
  const p = new RuntimeClassPlugin(reader(withPeek));
  try {
    await p.admit(req);
    await p.validate(req);
    const s = req.object?.spec as Obj;
    return JSON.stringify({ overhead: s.overhead, nodeSelector: s.nodeSelector, tolerations: s.tolerations });
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (RuntimeClass): overhead, node selector and tolerations come from the class; conflicts and unknown classes are 403', async () => {
  const kataTol = { key: 'sandbox', operator: 'Equal', value: 'kata', effect: 'NoSchedule' };
  const table: [string, Obj, string][] = [
    ['no class', {}, JSON.stringify({})],
    ['a class without overhead or scheduling', { runtimeClassName: 'plain' }, JSON.stringify({})],
    ['the class fills all three', { runtimeClassName: 'kata' },
      JSON.stringify({ overhead: { cpu: '250m', memory: '120Mi' }, nodeSelector: { sandbox: 'kata' }, tolerations: [kataTol] })],
    ['selectors merge; tolerations are added after the pod\'s', { runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'a', operator: 'Exists' }] },
      JSON.stringify({ overhead: { cpu: '250m', memory: '120Mi' }, nodeSelector: { disk: 'ssd', sandbox: 'kata' }, tolerations: [{ key: 'a', operator: 'Exists' }, kataTol] })],
    ['the same overhead stated in other units', { runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '120Mi' } },
      JSON.stringify({ overhead: { cpu: '250m', memory: '120Mi' }, nodeSelector: { sandbox: 'kata' }, tolerations: [kataTol] })],
    ['an unknown class', { runtimeClassName: 'gone' }, '403 pods "p" is forbidden: pod rejected: RuntimeClass "gone" not found'],
    ['another overhead', { runtimeClassName: 'kata', overhead: { cpu: '1' } }, '403 pods "p" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead'],
    ['overhead without a class', { overhead: { cpu: '1' } }, '403 pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ['overhead with a class that defines none', { runtimeClassName: 'plain', overhead: { cpu: '1' } }, '403 pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ['a node selector conflict', { runtimeClassName: 'kata', nodeSelector: { sandbox: 'gvisor' } },
      '403 pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor'],
  ];
  for (const [what, spec, want] of table) {
    assert.equal(await outcome(podWrite(structuredClone(spec))), want, what);
    // Without the cache's synchronous view the answer is the same, read from storage.
    assert.equal(await outcome(podWrite(structuredClone(spec)), false), want, `${what} (no peek)`);
  }
});

test('reference behaviour (RuntimeClass): creates only, pods only, never subresources', async () => {
  const p = new RuntimeClassPlugin(reader());
  assert.deepEqual([p.handles('CREATE'), p.handles('UPDATE'), p.handles('DELETE'), p.handles('CONNECT')], [true, false, false, false]);
  const sub = podWrite({ runtimeClassName: 'gone' }, { subResource: 'binding' });
  await p.admit(sub);
  await p.validate(sub);
  const other = podWrite({ runtimeClassName: 'gone' }, { resource: { group: '', version: 'v1', resource: 'podtemplates' } });
  await p.admit(other);
  await p.validate(other);
  assert.equal((other.object?.spec as Obj).overhead, undefined);
});

test('reference behaviour (RuntimeClass): quantities compare by value; node selector conflicts name both values', () => {
  assert.equal(sameResources({ cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1073741824' }), true);
  assert.equal(sameResources({ cpu: '1' }, { cpu: '1', memory: '1' }), false);
  assert.equal(sameResources({ cpu: '1' }, { cpu: '2' }), false);
  assert.equal(nodeSelectorConflict({ a: '1' }, { a: '1', b: '2' }), undefined);
  assert.equal(nodeSelectorConflict({ a: '1' }, { a: '2' }), 'conflict: runtimeClass.scheduling.nodeSelector[a] = 1; pod.spec.nodeSelector[a] = 2');
});

test('reference behaviour (RuntimeClass): toleration merging keeps only tolerations no other one covers', () => {
  const anyKey = { operator: 'Exists' };
  const gpu = { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' };
  const gpuEq = { key: 'gpu', operator: 'Equal', value: 'a', effect: 'NoSchedule' };
  const ne = (s?: number) => ({ key: 'n', operator: 'Exists', effect: 'NoExecute', ...(s === undefined ? {} : { tolerationSeconds: s }) });
  const table: [string, Obj[], Obj[], Obj[]][] = [
    ['disjoint lists concatenate', [gpu], [{ key: 'x', operator: 'Exists' }], [gpu, { key: 'x', operator: 'Exists' }]],
    ['a duplicate is kept once', [gpu], [gpu], [gpu]],
    ['Exists covers Equal of the same key', [gpuEq], [gpu], [gpu]],
    ['an empty key with Exists covers all', [gpu, gpuEq], [anyKey], [anyKey]],
    ['a longer NoExecute time covers a shorter one', [ne(10)], [ne(60)], [ne(60)]],
    ['no time covers any time', [ne(10)], [ne()], [ne()]],
    ['a time does not cover no time', [ne()], [ne(10)], [ne()]],
  ];
  for (const [what, a, b, want] of table) assert.deepEqual(mergeTolerations(a, b), want, what);
  assert.equal(isSuperset(gpu, { key: 'gpu', operator: 'Exists', effect: 'NoExecute' }), false);
  assert.equal(isSuperset({ key: 'gpu', operator: 'Exists' }, gpu), true);
});
