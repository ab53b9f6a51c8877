import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { formatQuantity } from './quantity.js';
import { KeyedLock, PendingCharges } from './quota-ledger.js';
import { matchesScopes, quotaScopes } from './quota-scopes.js';
import { chargesOperation, missingComputeStatement, objectCountName, resourceOfQuotaName, usageOf, type ResourceList } from './quota-usage.js';

const text = (l: ResourceList) => Object.fromEntries([...l].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, q]) => [k, formatQuantity(q)]));
const NOW = Date.parse('2024-01-01T00:00:00Z');

test('reference behaviour (ResourceQuota): quota names and the resources they count', () => {
  const table: [string, string | undefined][] = [
    ['count/deployments.apps', 'apps/deployments'],
    ['count/pods', '/pods'],
    ['pods', '/pods'],
    ['limits.memory', '/pods'],
    ['requests.hugepages-2Mi', '/pods'],
    ['requests.example.com/gpu', '/pods'],
    ['services.nodeports', '/services'],
    ['requests.storage', '/persistentvolumeclaims'],
    [`fast.storageclass.${STORAGE_GROUP}/persistentvolumeclaims`, '/persistentvolumeclaims'],
    ['configmaps', '/configmaps'],
    ['resourcequotas', '/resourcequotas'],
    ['example.com/gpu', undefined],
  ];
  for (const [name, want] of table) {
    const r = resourceOfQuotaName(name);
    assert.equal(r ? `${r.group}/${r.resource}` : undefined, want, name);
  }
  assert.equal(objectCountName('apps', 'deployments'), 'count/deployments.apps');
  assert.equal(objectCountName('', 'secrets'), 'count/secrets');
  assert.deepEqual(['CREATE', 'UPDATE'].map((op) => [chargesOperation('', 'pods', op), chargesOperation('', 'services', op), chargesOperation('apps', 'deployments', op)]), [[true, true, true], [false, true, false]]);
});

test('reference behaviour (ResourceQuota): pod usage sums containers and sidecars, takes the larger init peak, adds overhead', () => {
  const p: ApiObject = {
    metadata: { name: 'p' },
    spec: {
      containers: [
        { name: 'a', resources: { requests: { cpu: '500m', memory: '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' }, limits: { cpu: '1' } } },
        { name: 'b', resources: { requests: { cpu: '250m', 'ephemeral-storage': '1G' } } },
      ],
      initContainers: [
        { name: 'side', restartPolicy: 'Always', resources: { requests: { cpu: '250m' } } },
        { name: 'init', resources: { requests: { cpu: '2' }, limits: { cpu: '3' } } },
      ],
      overhead: { cpu: '100m', memory: '64Mi' },
    },
  };
  assert.deepEqual(text(usageOf('', 'pods', p, NOW)), {
    'count/pods': '1',
    cpu: '2350m',
    'ephemeral-storage': '1G',
    'hugepages-2Mi': '4Mi',
    'limits.cpu': '3100m',
    memory: '1088Mi',
    pods: '1',
    'requests.cpu': '2350m',
    'requests.ephemeral-storage': '1G',
    'requests.example.com/gpu': '1',
    'requests.hugepages-2Mi': '4Mi',
    'requests.memory': '1088Mi',
  });
});

test('reference behaviour (ResourceQuota): finished pods and pods past their grace period count only in count/pods', () => {
  const spec = { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] };
  const table: [string, ApiObject, string[]][] = [
    ['running', { metadata: {}, spec, status: { phase: 'Running' } }, ['count/pods', 'cpu', 'pods', 'requests.cpu']],
    ['succeeded', { metadata: {}, spec, status: { phase: 'Succeeded' } }, ['count/pods']],
    ['failed', { metadata: {}, spec, status: { phase: 'Failed' } }, ['count/pods']],
    ['deleting, within grace', { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 }, spec }, ['count/pods', 'cpu', 'pods', 'requests.cpu']],
    ['deleting, past grace', { metadata: { deletionTimestamp: '2023-12-31T23:59:00Z', deletionGracePeriodSeconds: 30 }, spec }, ['count/pods']],
  ];
  for (const [what, p, want] of table) assert.deepEqual(Object.keys(text(usageOf('', 'pods', p, NOW))), want, what);
});

test('reference behaviour (ResourceQuota): services, claims and other objects are counted by kind', () => {
  const lb = { metadata: {}, spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 1, nodePort: 30001 }, { port: 2 }] } };
  assert.deepEqual(text(usageOf('', 'services', lb, NOW)), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
  const claim = { metadata: { annotations: {} }, spec: { storageClassName: 'fast', resources: { requests: { storage: '1.5' } } } };
  assert.deepEqual(text(usageOf('', 'persistentvolumeclaims', claim, NOW)), {
    'count/persistentvolumeclaims': '1',
    [`fast.storageclass.${STORAGE_GROUP}/persistentvolumeclaims`]: '1',
    [`fast.storageclass.${STORAGE_GROUP}/requests.storage`]: '2',
    persistentvolumeclaims: '1',
    'requests.storage': '2',
  });
  assert.deepEqual(text(usageOf('', 'secrets', { metadata: {} }, NOW)), { 'count/secrets': '1', secrets: '1' });
  assert.deepEqual(text(usageOf('apps', 'deployments', { metadata: {} }, NOW)), { 'count/deployments.apps': '1' });
});

test('reference behaviour (ResourceQuota): "must specify" names each missing resource with its containers', () => {
  const p = (containers: unknown[]): ApiObject => ({ metadata: {}, spec: { containers } });
  const table: [string, ApiObject, string[], string | undefined][] = [
    ['nothing limited that needs stating', p([{ name: 'a' }]), ['pods', 'requests.storage'], undefined],
    ['stated', p([{ name: 'a', resources: { requests: { cpu: '1' } } }]), ['requests.cpu', 'cpu'], undefined],
    ['limit missing', p([{ name: 'a', resources: { requests: { cpu: '1' } } }]), ['limits.cpu'], 'must specify limits.cpu for: a'],
    ['two resources, two containers', p([{ name: 'b' }, { name: 'a', resources: { limits: { memory: '1Mi' } } }]), ['limits.memory', 'memory'], 'must specify limits.memory for: b; memory for: a,b'],
  ];
  for (const [what, pod, limited, want] of table) assert.equal(missingComputeStatement(pod, limited), want, what);
});

test('reference behaviour (ResourceQuota): scopes select pods by deadline, QoS, priority class and cross-namespace affinity; never other kinds', () => {
  const q = (spec: Record<string, unknown>): ApiObject => ({ metadata: {}, spec: { hard: { pods: '1' }, ...spec } });
  const pod = (spec: Record<string, unknown>): ApiObject => ({ metadata: {}, spec: { containers: [{ name: 'c' }], ...spec } });
  const sel = (scopeName: string, operator: string, values?: string[]) => q({ scopeSelector: { matchExpressions: [{ scopeName, operator, ...(values ? { values } : {}) }] } });
  const crossNs = { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { namespaceSelector: {}, topologyKey: 'k' } }] } } };
  const table: [string, ApiObject, ApiObject, boolean][] = [
    ['no scopes', q({}), pod({}), true],
    ['Terminating', q({ scopes: ['Terminating'] }), pod({ activeDeadlineSeconds: 10 }), true],
    ['NotTerminating', q({ scopes: ['NotTerminating'] }), pod({ activeDeadlineSeconds: 10 }), false],
    ['BestEffort', q({ scopes: ['BestEffort'] }), pod({}), true],
    ['NotBestEffort with a memory limit', q({ scopes: ['NotBestEffort'] }), pod({ containers: [{ name: 'c', resources: { limits: { memory: '1Mi' } } }] }), true],
    ['both scopes must hold', q({ scopes: ['BestEffort', 'Terminating'] }), pod({}), false],
    ['PriorityClass In', sel('PriorityClass', 'In', ['gold']), pod({ priorityClassName: 'gold' }), true],
    ['PriorityClass NotIn, no class', sel('PriorityClass', 'NotIn', ['gold']), pod({}), true],
    ['PriorityClass Exists, no class', sel('PriorityClass', 'Exists'), pod({}), false],
    ['PriorityClass DoesNotExist', sel('PriorityClass', 'DoesNotExist'), pod({}), false],
    ['CrossNamespacePodAffinity', q({ scopes: ['CrossNamespacePodAffinity'] }), pod(crossNs), true],
    ['CrossNamespacePodAffinity, same namespace only', q({ scopes: ['CrossNamespacePodAffinity'] }), pod({}), false],
  ];
  for (const [what, quota, p, want] of table) assert.equal(matchesScopes('', 'pods', p, quotaScopes(quota)), want, what);
  assert.equal(matchesScopes('', 'configmaps', { metadata: {} }, quotaScopes(q({ scopes: ['BestEffort'] }))), false);
  assert.equal(matchesScopes('', 'configmaps', { metadata: {} }, []), true);
});

test('reference behaviour (ResourceQuota): the per-quota lock runs holders one at a time and frees its keys', async () => {
  const lock = new KeyedLock();
  const order: string[] = [];
  const hold = async (id: string, keys: string[]) => {
    const release = await lock.acquire(keys);
    order.push(`${id}+`);
    await new Promise((r) => setTimeout(r, 5));
    order.push(`${id}-`);
    release();
  };
  await Promise.all([hold('a', ['ns/q1', 'ns/q2']), hold('b', ['ns/q2', 'ns/q1']), hold('c', ['ns/q1'])]);
  assert.deepEqual(order, ['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
  assert.equal(lock.held, 0);
});

test('reference behaviour (ResourceQuota): pending charges end when the cache shows the write, on delete, or when they expire', () => {
  const pending = new PendingCharges(1000);
  const charge = (name: string, replacedVersion?: string) => ({ group: '', resource: 'pods', name, uid: `u-${name}`, replacedVersion, object: { metadata: { name } }, charged: new Map() });
  pending.add('ns', charge('a'), 0);
  pending.add('ns', charge('b', '5'), 0);
  pending.add('ns', charge('c'), 0);
  pending.settle('ns', '', 'pods', [{ metadata: { name: 'a', resourceVersion: '9' } }, { metadata: { name: 'b', resourceVersion: '5' } }]);
  assert.deepEqual(pending.in('ns', 10).map((r) => r.name), ['b', 'c']);
  pending.settle('ns', '', 'pods', [{ metadata: { name: 'b', resourceVersion: '6' } }]);
  pending.forget('ns', 'u-c');
  assert.deepEqual(pending.in('ns', 10), []);
  pending.add('ns', charge('d'), 0);
  assert.deepEqual(pending.in('ns', 1001), []);
  assert.equal(pending.size, 0);
});
