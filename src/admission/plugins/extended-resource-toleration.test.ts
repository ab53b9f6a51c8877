import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GROUP_SUFFIX } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionOperation, AdmissionRequest } from '../types.js';
import { ExtendedResourceTolerationPlugin, isExtendedResourceName } from './extended-resource-toleration.js';

const container = (requests: Record<string, string>) => ({ name: 'c', image: 'i', resources: { requests } });
const pod = (spec: Record<string, unknown>, operation: AdmissionOperation = 'CREATE'): AdmissionRequest =>
  admissionRequest({
    operation,
    name: 'p',
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    object: { metadata: { name: 'p', namespace: 'default' }, spec },
  });
const tolerate = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' });

admissionPluginContract('ExtendedResourceToleration', {
  make: () => new ExtendedResourceTolerationPlugin(),
  cases: [
    { title: 'a pod requesting a GPU', request: () => pod({ containers: [container({ 'example.com/gpu': '1' })] }) },
    { title: 'a pod requesting cpu only', request: () => pod({ containers: [container({ cpu: '1' })] }) },
  ],
});

test('reference behaviour (ExtendedResourceToleration): which resource names are extended', () => {
  const table: [string, boolean][] = [
    ['example.com/gpu', true],
    ['vendor.io/fpga_x.1', true],
    ['cpu', false],
    ['memory', false],
    [`${GROUP_SUFFIX}/something`, false],
    [`sub.${GROUP_SUFFIX}/thing`, false],
    ['requests.example.com/gpu', false],
    ['example.com/a/b', false],
    ['Example.com/gpu', false],
    ['example.com/-gpu', false],
    [`example.com/${'g'.repeat(64)}`, false],
  ];
  for (const [name, want] of table) assert.equal(isExtendedResourceName(name), want, name);
});

test('reference behaviour (ExtendedResourceToleration): requested extended resources (containers and init containers) become NoSchedule tolerations, sorted', () => {
  const table: [string, Record<string, unknown>, unknown][] = [
    ['none requested', { containers: [container({ cpu: '1', memory: '1Gi' })] }, undefined],
    ['one container', { containers: [container({ 'example.com/gpu': '1' })] }, [tolerate('example.com/gpu')]],
    ['containers and init containers, deduplicated and sorted', {
      initContainers: [container({ 'b.com/x': '1' })],
      containers: [container({ 'example.com/gpu': '1', cpu: '1' }), container({ 'b.com/x': '2' })],
    }, [tolerate('b.com/x'), tolerate('example.com/gpu')]],
    ['ephemeral containers do not count', { containers: [container({})], ephemeralContainers: [container({ 'example.com/gpu': '1' })] }, undefined],
    ['limits alone do not count', { containers: [{ name: 'c', image: 'i', resources: { limits: { 'example.com/gpu': '1' } } }] }, undefined],
    ['an identical toleration is kept as is', { containers: [container({ 'example.com/gpu': '1' })], tolerations: [{ key: 'a', operator: 'Exists' }, tolerate('example.com/gpu')] },
      [{ key: 'a', operator: 'Exists' }, tolerate('example.com/gpu')]],
    ['a matching toleration with seconds is replaced', { containers: [container({ 'example.com/gpu': '1' })], tolerations: [{ ...tolerate('example.com/gpu'), tolerationSeconds: 5 }, { key: 'z', operator: 'Exists' }] },
      [tolerate('example.com/gpu'), { key: 'z', operator: 'Exists' }]],
    ['other tolerations stay, the new one is appended', { containers: [container({ 'example.com/gpu': '1' })], tolerations: [{ key: 'example.com/gpu', operator: 'Equal', value: 'x', effect: 'NoSchedule' }] },
      [{ key: 'example.com/gpu', operator: 'Equal', value: 'x', effect: 'NoSchedule' }, tolerate('example.com/gpu')]],
  ];
  for (const [what, spec, want] of table) {
    const req = pod(spec);
    new ExtendedResourceTolerationPlugin().admit(req);
    assert.deepEqual(((req.object as ApiObject).spec as { tolerations?: unknown }).tolerations, want, what);
  }
});

test('reference behaviour (ExtendedResourceToleration): pod updates get the tolerations too; other resources are left alone', () => {
  const p = new ExtendedResourceTolerationPlugin();
  assert.deepEqual((['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const).map((op) => p.handles(op)), [true, true, false, false]);
  const update = pod({ containers: [container({ 'example.com/gpu': '1' })] }, 'UPDATE');
  p.admit(update);
  assert.deepEqual(((update.object as ApiObject).spec as { tolerations?: unknown }).tolerations, [tolerate('example.com/gpu')]);
  const cm = admissionRequest({ operation: 'CREATE', object: { metadata: { name: 'c' }, spec: { containers: [container({ 'example.com/gpu': '1' })] } } });
  p.admit(cm);
  assert.equal((cm.object?.spec as { tolerations?: unknown }).tolerations, undefined);
});
