import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIMIT_RANGER_ANNOTATION } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { LimitRangerPlugin } from './limit-ranger.js';
import { aggregateMessage, applyContainerDefaults, claimViolations, comparableValues, containerDefaults, podTotal, podViolations } from './limit-ranger-rules.js';
import { formatQuantity, parseQuantity } from './quantity.js';

type Obj = Record<string, unknown>;
const range = (name: string, ...limits: Obj[]): ApiObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name, namespace: 'default' }, spec: { limits } });
const container = (name: string, resources?: Obj, extra: Obj = {}): Obj => ({ name, image: 'i', ...(resources ? { resources } : {}), ...extra });
const podSpec = (...containers: Obj[]): Obj => ({ containers });

const POD = { group: '', version: 'v1', resource: 'pods' };
const PVC = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const podRequest = (spec: Obj, operation: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionRequest =>
  admissionRequest({ operation, name: 'p', resource: POD, kind: { group: '', version: 'v1', kind: 'Pod' }, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec }, ...(operation === 'UPDATE' ? { oldObject: { metadata: { name: 'p' }, spec } } : {}) });
const claimRequest = (storage: string, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldMeta: Obj = {}): AdmissionRequest =>
  admissionRequest({
    operation,
    name: 'c',
    resource: PVC,
    kind: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } },
    ...(operation === 'UPDATE' ? { oldObject: { metadata: { name: 'c', ...oldMeta }, spec: {} } } : {}),
  });

const cpuRange = range('cpu', { type: 'Container', max: { cpu: '1' }, min: { cpu: '100m' }, default: { cpu: '500m' }, defaultRequest: { cpu: '200m' } });
const storageRange = range('storage', { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
const reader = fixedObjects({ '/limitranges': [cpuRange, storageRange] });

admissionPluginContract('LimitRanger', {
  make: () => new LimitRangerPlugin(reader),
  cases: [
    { title: 'a pod without resources', request: () => podRequest(podSpec(container('c'))) },
    { title: 'a pod over the container max', request: () => podRequest(podSpec(container('c', { limits: { cpu: '2' }, requests: { cpu: '2' } }))) },
    { title: 'a claim inside the bounds', request: () => claimRequest('5Gi') },
    { title: 'a claim resized past the max', request: () => claimRequest('20Gi', 'UPDATE') },
  ],
});

test('reference behaviour (LimitRanger): a Container item defaults default from max and defaultRequest from default, then min', () => {
  const table: [string, Obj, { requests: Obj; limits: Obj }][] = [
    ['all stated', { type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '200m' } }, { requests: { cpu: '200m' }, limits: { cpu: '500m' } }],
    ['max only', { type: 'Container', max: { memory: '1Gi' } }, { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } }],
    ['min only', { type: 'Container', min: { cpu: '100m' } }, { requests: { cpu: '100m' }, limits: {} }],
    ['default wins over max, defaultRequest over min', { type: 'Container', max: { cpu: '2' }, default: { cpu: '1' }, min: { cpu: '100m' } }, { requests: { cpu: '1' }, limits: { cpu: '1' } }],
    ['canonical text', { type: 'Container', default: { cpu: '1000m' } }, { requests: { cpu: '1' }, limits: { cpu: '1' } }],
    ['Pod and claim items give no defaults', { type: 'Pod', max: { cpu: '4' } }, { requests: {}, limits: {} }],
  ];
  for (const [what, item, want] of table) assert.deepEqual(containerDefaults(range('r', item)), want, what);
});

test('reference behaviour (LimitRanger): defaults fill only what each container lacks, and the annotation says what was set', () => {
  const spec = podSpec(container('web'), container('side', { requests: { cpu: '300m' }, limits: { memory: '64Mi' } }));
  spec.initContainers = [container('init')];
  const set = applyContainerDefaults(spec, { requests: { cpu: '200m', memory: '32Mi' }, limits: { cpu: '500m', memory: '128Mi' } });
  assert.deepEqual(set, [
    'cpu, memory request for container web',
    'cpu, memory limit for container web',
    'memory request for container side',
    'cpu limit for container side',
    'cpu, memory request for init container init',
    'cpu, memory limit for init container init',
  ]);
  assert.deepEqual((spec.containers as Obj[])[1]!.resources, { requests: { cpu: '300m', memory: '32Mi' }, limits: { memory: '64Mi', cpu: '500m' } });
  const untouched = podSpec(container('full', { requests: { cpu: '1' }, limits: { cpu: '1' } }));
  assert.deepEqual(applyContainerDefaults(untouched, { requests: { cpu: '200m' }, limits: { cpu: '500m' } }), []);
});

test('reference behaviour (LimitRanger): container, pod and claim bounds with the reference messages', () => {
  const table: [string, string[], string[]][] = [
    ['over max limit', podViolations(cpuRange, podSpec(container('c', { limits: { cpu: '2' }, requests: { cpu: '500m' } }))), ['maximum cpu usage per Container is 1, but limit is 2']],
    ['request over max', podViolations(range('r', { type: 'Container', max: { cpu: '1' } }), podSpec(container('c', { limits: { cpu: '1' }, requests: { cpu: '1500m' } }))), ['maximum cpu usage per Container is 1, but request is 1500m']],
    ['no limit under a max', podViolations(range('r', { type: 'Container', max: { memory: '1Gi' } }), podSpec(container('c'))), ['maximum memory usage per Container is 1Gi.  No limit is specified']],
    ['under min', podViolations(cpuRange, podSpec(container('c', { limits: { cpu: '50m' }, requests: { cpu: '50m' } }))), ['minimum cpu usage per Container is 100m, but request is 50m']],
    ['no request under a min', podViolations(cpuRange, podSpec(container('c', { limits: { cpu: '500m' } }))), ['minimum cpu usage per Container is 100m.  No request is specified']],
    ['inside the bounds', podViolations(cpuRange, podSpec(container('c', { limits: { cpu: '1000m' }, requests: { cpu: '0.2' } }))), []],
    ['ratio over', podViolations(range('r', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }), podSpec(container('c', { limits: { cpu: '1' }, requests: { cpu: '250m' } }))), ['cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000']],
    ['ratio without request', podViolations(range('r', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }), podSpec(container('c', { limits: { cpu: '1' } }))), ['cpu max limit to request ratio per Container is 2, but no request is specified or request is 0']],
    ['ratio without limit', podViolations(range('r', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }), podSpec(container('c', { requests: { cpu: '1' } }))), ['cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0']],
    ['pod total over max', podViolations(range('r', { type: 'Pod', max: { cpu: '1' } }), podSpec(container('a', { limits: { cpu: '600m' } }), container('b', { limits: { cpu: '600m' } }))), ['maximum cpu usage per Pod is 1, but limit is 1200m']],
    ['init containers too', podViolations(range('r', { type: 'Container', max: { cpu: '1' } }), { containers: [container('a', { limits: { cpu: '1' } })], initContainers: [container('i', { limits: { cpu: '3' } })] }), ['maximum cpu usage per Container is 1, but limit is 3']],
    ['claim under min', claimViolations(storageRange, { resources: { requests: { storage: '512Mi' } } }), ['minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 512Mi']],
    ['claim over max', claimViolations(storageRange, { resources: { requests: { storage: '11Gi' } } }), ['maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi']],
    ['claim without request', claimViolations(range('r', { type: 'PersistentVolumeClaim', max: { storage: '1Gi' } }), {}), ['maximum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified']],
    ['claim bounds ignore pods', podViolations(storageRange, podSpec(container('c'))), []],
  ];
  for (const [what, got, want] of table) assert.deepEqual(got, want, what);
});

test('reference behaviour (LimitRanger): a pod total counts sidecars with the containers and the largest init container', () => {
  const spec = {
    containers: [container('a', { requests: { cpu: '1' } }), container('b', { requests: { cpu: '500m', memory: '1Gi' } })],
    initContainers: [
      container('side', { requests: { cpu: '250m' } }, { restartPolicy: 'Always' }),
      container('big', { requests: { cpu: '3', memory: '512Mi' } }),
    ],
  };
  const total = podTotal(spec, 'requests');
  // cpu: containers 1.5 + sidecar 0.25 = 1.75, but the big init container needs 3 + 0.25 beside the sidecar.
  assert.equal(formatQuantity(total.get('cpu')!), '3250m');
  assert.equal(formatQuantity(total.get('memory')!), '1Gi');
});

test('reference behaviour (LimitRanger): several errors aggregate in brackets; thousandths compare exactly', () => {
  assert.equal(aggregateMessage(['a']), 'a');
  assert.equal(aggregateMessage(['a', 'b', 'a']), '[a, b]');
  assert.deepEqual(comparableValues(parseQuantity('1'), undefined, parseQuantity('1.0001')), [1000n, 0n, 1001n]);
  assert.deepEqual(comparableValues(parseQuantity('1'), parseQuantity('10E')), [1n, 10n ** 19n]);
});

async function outcome(plugin: LimitRangerPlugin, req: AdmissionRequest): Promise<string> {
  try {
    await plugin.admit(req);
    await plugin.validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (LimitRanger): pods get defaults and the annotation, then the bounds; 403 names the pod', async () => {
  const plugin = new LimitRangerPlugin(reader);
  const req = podRequest(podSpec(container('c')));
  assert.equal(await outcome(plugin, req), 'allowed');
  assert.deepEqual((req.object!.spec as { containers: Obj[] }).containers[0]!.resources, { limits: { cpu: '500m' }, requests: { cpu: '200m' } });
  assert.equal(req.object!.metadata!.annotations![LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu request for container c; cpu limit for container c');
  const over = podRequest(podSpec(container('c', { limits: { cpu: '2' }, requests: { cpu: '2' } })));
  assert.equal(await outcome(plugin, over), '403 pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  assert.equal(over.object!.metadata!.annotations, undefined, 'nothing was defaulted, so no annotation');
  assert.equal(await outcome(plugin, podRequest(podSpec(container('c', { limits: { cpu: '2' } })), 'UPDATE')), 'allowed', 'pod updates are not checked');
  assert.equal(await outcome(new LimitRangerPlugin(fixedObjects({})), podRequest(podSpec(container('c')))), 'allowed');
});

test('reference behaviour (LimitRanger): claims are checked on create and resize, not once being deleted', async () => {
  const plugin = new LimitRangerPlugin(reader);
  const table: [string, AdmissionRequest, string][] = [
    ['inside', claimRequest('5Gi'), 'allowed'],
    ['too small', claimRequest('100Mi'), '403 persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi'],
    ['resized too far', claimRequest('20Gi', 'UPDATE'), '403 persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'],
    ['being deleted', claimRequest('20Gi', 'UPDATE', { deletionTimestamp: '2024-01-01T00:00:00Z' }), 'allowed'],
  ];
  for (const [what, req, want] of table) assert.equal(await outcome(plugin, req), want, what);
});
