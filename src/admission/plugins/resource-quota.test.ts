import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORAGE_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { parseQuantity } from './quantity.js';
import { chargeQuota, growth, ResourceQuotaPlugin, resourceQuotaPlugin, type StatusWriter } from './resource-quota.js';

type Objects = Record<string, ApiObject[]>;

const quota = (name: string, hard: Record<string, string>, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'default', resourceVersion: '1' },
  spec: { hard, ...extra },
});
const pod = (name: string, resources: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'i', resources }], ...spec },
});
const create = (object: ApiObject, resource = 'pods', over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({ operation: 'CREATE', name: String(object.metadata?.name), resource: { group: '', version: 'v1', resource }, object, ...over });

/** A status writer over the same objects the reader sees, with a resourceVersion compare-and-swap. */
function statusStore(objects: Objects): StatusWriter & { writes: number } {
  const writer = async (group: string, resource: string, ns: string | undefined, name: string, mutate: Parameters<StatusWriter>[4]) => {
    for (let attempt = 0; ; attempt++) {
      const list = objects[`${group}/${resource}`] ?? [];
      const i = list.findIndex((o) => o.metadata?.name === name && o.metadata?.namespace === ns);
      if (i < 0) return undefined;
      const seen = list[i]!;
      const next = await mutate(structuredClone(seen), attempt);
      if (!next) return seen;
      if (list[i] !== seen) continue;
      const stored = { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(seen.metadata?.resourceVersion) + 1) } };
      list[i] = stored;
      writer.writes++;
      return stored;
    }
  };
  writer.writes = 0;
  return writer;
}

function setup(objects: Objects) {
  const writer = statusStore(objects);
  return { plugin: new ResourceQuotaPlugin(fixedObjects(objects), writer), writer, objects };
}

async function outcome(plugin: ResourceQuotaPlugin, req: AdmissionRequest): Promise<string> {
  try {
    await plugin.validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return `${e.code} ${e.message}`;
  }
}

admissionPluginContract('ResourceQuota', {
  make: () => setup({ '/resourcequotas': [quota('q', { pods: '1', 'limits.cpu': '1' })], '/pods': [] }).plugin,
  cases: [
    { title: 'a pod within the quota', request: () => create(pod('a', { limits: { cpu: '500m' } })) },
    { title: 'a pod over the quota', request: () => create(pod('b', { limits: { cpu: '2' } })) },
    { title: 'a pod stating no cpu limit', request: () => create(pod('c')) },
    { title: 'a config map no quota counts', request: () => create({ metadata: { name: 'cm', namespace: 'default' } }, 'configmaps') },
  ],
});

test('reference behaviour (ResourceQuota): the exceeded-quota message lists requested, used and limited amounts of the exceeded resources', () => {
  const list = (o: Record<string, string>) => new Map(Object.entries(o).map(([k, v]) => [k, parseQuantity(v)!]));
  const table: [string, Record<string, string>, Record<string, string>, Record<string, string>, string][] = [
    ['fits', { pods: '2' }, { pods: '1' }, { pods: '1' }, 'used pods=2'],
    ['one over', { pods: '1' }, { pods: '1' }, { pods: '1' }, 'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1'],
    ['two over, sorted', { 'limits.cpu': '1', pods: '1', memory: '1Gi' }, { 'limits.cpu': '800m', pods: '1', memory: '0' }, { 'limits.cpu': '500m', pods: '1', memory: '512Mi' },
      'exceeded quota: q, requested: limits.cpu=500m,pods=1, used: limits.cpu=800m,pods=1, limited: limits.cpu=1,pods=1'],
    ['resources the quota does not limit are not charged', { pods: '5' }, {}, { pods: '1', 'requests.cpu': '100' }, 'used pods=1'],
  ];
  for (const [what, hard, used, delta, want] of table) {
    const r = chargeQuota('q', list(hard), list(used), list(delta));
    const got = 'exceeded' in r ? r.exceeded : `used ${[...r.used].filter(([k]) => k === 'pods').map(([k, q]) => `${k}=${q.nano / 1_000_000_000n}`).join(',')}`;
    assert.equal(got, want, what);
  }
});

test('reference behaviour (ResourceQuota): an update pays only for what it adds, never a negative amount', () => {
  const list = (o: Record<string, string>) => new Map(Object.entries(o).map(([k, v]) => [k, parseQuantity(v)!]));
  const g = growth(list({ 'services.nodeports': '3', services: '1', 'services.loadbalancers': '0' }), list({ 'services.nodeports': '1', services: '1', 'services.loadbalancers': '1' }));
  assert.deepEqual([...g.keys()], ['services.nodeports']);
  assert.equal(g.get('services.nodeports')!.nano, 2_000_000_000n);
});

test('reference behaviour (ResourceQuota): creates are refused past spec.hard with a 403, and the usage is recorded in status', async () => {
  const { plugin, objects } = setup({ '/resourcequotas': [quota('q', { pods: '2', 'requests.memory': '1Gi' })], '/pods': [pod('old', { requests: { memory: '256Mi' } })] });
  assert.equal(await outcome(plugin, create(pod('a', { requests: { memory: '512Mi' } }))), 'allowed');
  assert.deepEqual(objects['/resourcequotas']![0]!.status, { hard: { pods: '2', 'requests.memory': '1Gi' }, used: { pods: '2', 'requests.memory': '768Mi' } });
  // "a" is admitted but not stored yet: it still counts.
  assert.equal(await outcome(plugin, create(pod('b', { requests: { memory: '1Mi' } }))),
    '403 pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2');
});

test('reference behaviour (ResourceQuota): deleting objects gives their usage back; dry run charges nothing', async () => {
  const { plugin, objects, writer } = setup({ '/resourcequotas': [quota('q', { 'count/configmaps': '1' })], '/configmaps': [] });
  const cm = (name: string): ApiObject => ({ metadata: { name, namespace: 'default', uid: `uid-${name}` } });
  assert.equal(await outcome(plugin, create(cm('x'), 'configmaps', { dryRun: true })), 'allowed');
  assert.equal(writer.writes, 0);
  assert.equal(await outcome(plugin, create(cm('a'), 'configmaps')), 'allowed');
  assert.equal(await outcome(plugin, create(cm('b'), 'configmaps')), '403 configmaps "b" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1');
  // The cache shows "a", then its deletion: the pending charge is settled, then the stored object is gone.
  objects['/configmaps']!.push({ ...cm('a'), metadata: { ...cm('a').metadata, resourceVersion: '5' } });
  assert.match(await outcome(plugin, create(cm('b'), 'configmaps')), /^403 /);
  objects['/configmaps']!.length = 0;
  assert.equal(await outcome(plugin, create(cm('b'), 'configmaps')), 'allowed');
  // A delete of an object the cache never showed drops its pending charge at once.
  await plugin.validate(admissionRequest({ operation: 'DELETE', name: 'b', resource: { group: '', version: 'v1', resource: 'configmaps' }, oldObject: cm('b') }));
  assert.equal(await outcome(plugin, create(cm('c'), 'configmaps')), 'allowed');
});

test('reference behaviour (ResourceQuota): a limited cpu or memory amount must be stated by every container', async () => {
  const { plugin } = setup({ '/resourcequotas': [quota('compute', { 'limits.cpu': '4', 'requests.memory': '4Gi' })], '/pods': [] });
  const twoContainers = pod('p', {}, {
    containers: [{ name: 'b', image: 'i', resources: { limits: { cpu: '1' } } }, { name: 'a', image: 'i' }],
    initContainers: [{ name: 'init', image: 'i', resources: { requests: { memory: '1Mi' } } }],
  });
  assert.equal(await outcome(plugin, create(twoContainers)),
    '403 pods "p" is forbidden: failed quota: compute: must specify limits.cpu for: a,init; requests.memory for: a,b');
});

test('reference behaviour (ResourceQuota): services pay for node ports and load balancers, also when an update adds them', async () => {
  const svc = (type: string, ports: number, rv?: string): ApiObject => ({
    metadata: { name: 's', namespace: 'default', uid: 'uid-s', ...(rv ? { resourceVersion: rv } : {}) },
    spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ port: 80 + i })) },
  });
  const old = svc('ClusterIP', 2, '7');
  const { plugin } = setup({ '/resourcequotas': [quota('q', { 'services.nodeports': '1', 'services.loadbalancers': '1' })], '/services': [old] });
  const update = (object: ApiObject) => admissionRequest({ operation: 'UPDATE', name: 's', resource: { group: '', version: 'v1', resource: 'services' }, object, oldObject: old });
  assert.equal(await outcome(plugin, update(svc('NodePort', 2))),
    '403 services "s" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
  assert.equal(await outcome(plugin, update(svc('ClusterIP', 3))), 'allowed');
});

test('reference behaviour (ResourceQuota): claims pay storage, also per storage class', async () => {
  const claim = (name: string, size: string, cls?: string): ApiObject => ({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { resources: { requests: { storage: size } }, ...(cls ? { storageClassName: cls } : {}) },
  });
  const gold = `gold.storageclass.${STORAGE_GROUP}/requests.storage`;
  const { plugin } = setup({ '/resourcequotas': [quota('q', { 'requests.storage': '10Gi', [gold]: '1Gi' })], '/persistentvolumeclaims': [claim('old', '8Gi')] });
  assert.equal(await outcome(plugin, create(claim('plain', '1Gi'), 'persistentvolumeclaims')), 'allowed');
  assert.equal(await outcome(plugin, create(claim('big', '2Gi', 'gold'), 'persistentvolumeclaims')),
    `403 persistentvolumeclaims "big" is forbidden: exceeded quota: q, requested: ${gold}=2Gi,requests.storage=2Gi, used: ${gold}=0,requests.storage=9Gi, limited: ${gold}=1Gi,requests.storage=10Gi`);
});

test('reference behaviour (ResourceQuota): a scoped quota counts only the pods its scopes select', async () => {
  const { plugin } = setup({
    '/resourcequotas': [quota('besteffort', { pods: '1' }, { scopes: ['BestEffort'] }), quota('gold', { pods: '1' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['gold'] }] } })],
    '/pods': [pod('be-old'), pod('gold-old', { requests: { cpu: '1' } }, { priorityClassName: 'gold' })],
  });
  const table: [string, ApiObject, string][] = [
    ['a best-effort pod, over the BestEffort quota', pod('be'), '403 pods "be" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1'],
    ['a burstable pod of another class falls under neither', pod('silver', { requests: { cpu: '1' } }, { priorityClassName: 'silver' }), 'allowed'],
    ['a burstable gold pod, over the gold quota', pod('g', { requests: { cpu: '1' } }, { priorityClassName: 'gold' }), '403 pods "g" is forbidden: exceeded quota: gold, requested: pods=1, used: pods=1, limited: pods=1'],
  ];
  for (const [what, p, want] of table) assert.equal(await outcome(plugin, create(p)), want, what);
});

test('reference behaviour (ResourceQuota): concurrent creates racing for the last units: exactly the quota passes', async () => {
  const { plugin } = setup({ '/resourcequotas': [quota('q', { pods: '5' })], '/pods': [] });
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(plugin, create(pod(`p${i}`)))));
  assert.equal(results.filter((r) => r === 'allowed').length, 5);
});

test('reference behaviour (ResourceQuota): a server sharing the store that charged meanwhile is counted after the conflict', async () => {
  const objects: Objects = { '/resourcequotas': [quota('q', { pods: '1' })], '/pods': [] };
  const inner = statusStore(objects);
  let raced = false;
  // Another server charges the quota between our read and our write (its pod is not in our cache).
  const writer: StatusWriter = (g, r, ns, n, mutate) => inner(g, r, ns, n, async (cur, attempt) => {
    const next = await mutate(cur, attempt);
    if (!raced) {
      raced = true;
      const list = objects['/resourcequotas']!;
      list[0] = { ...list[0]!, metadata: { ...list[0]!.metadata, resourceVersion: '2' }, status: { hard: { pods: '1' }, used: { pods: '1' } } };
    }
    return next;
  });
  const plugin = new ResourceQuotaPlugin(fixedObjects(objects), writer);
  assert.equal(await outcome(plugin, create(pod('mine'))), '403 pods "mine" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
});

test('reference behaviour (ResourceQuota): a configuration without apiVersion and kind is refused; status writes are required', () => {
  const deps = { objects: fixedObjects({}), equivalentResources: () => [], kindOf: () => undefined, log: () => undefined };
  assert.throws(() => resourceQuotaPlugin({ ...deps, updateStatus: statusStore({}) }, { limitedResources: [] }), /apiVersion: Unsupported value "".*kind: Unsupported value ""/);
  assert.throws(() => resourceQuotaPlugin(deps, undefined), /needs a server that can write quota status/);
  assert.equal(resourceQuotaPlugin({ ...deps, updateStatus: statusStore({}) }, undefined).name, 'ResourceQuota');
});
