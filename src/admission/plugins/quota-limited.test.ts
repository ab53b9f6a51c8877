import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCE_QUOTA_CONFIG_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { parseResourceQuotaConfiguration, uncoveredConsumption, type LimitedResource } from './quota-limited.js';
import { usageOf } from './quota-usage.js';
import { ResourceQuotaPlugin } from './resource-quota.js';

const V1 = `${RESOURCE_QUOTA_CONFIG_GROUP}/v1`;
const config = (limitedResources: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: V1, kind: 'Configuration', limitedResources, ...extra });
const quota = (name: string, hard: Record<string, string>, scopeSelector?: unknown): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'default', resourceVersion: '1' },
  spec: { hard, ...(scopeSelector ? { scopeSelector } : {}) },
});
const pod = (name: string, requests: Record<string, string> = {}, priorityClassName?: string): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'i', resources: { requests, limits: requests } }], ...(priorityClassName ? { priorityClassName } : {}) },
});
const cpuLimited: LimitedResource[] = [{ apiGroup: '', resource: 'pods', matchContains: ['cpu'], matchScopes: [] }];
const criticalOnly: LimitedResource[] = [{ apiGroup: '', resource: 'pods', matchContains: [], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical', 'urgent'] }] }];

test('spec 2.12 / reference behaviour (ResourceQuota configuration): limitedResources are read in each version; bad fields name their path', () => {
  for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
    assert.deepEqual(parseResourceQuotaConfiguration({ ...config([{ resource: 'pods', matchContains: ['cpu'] }]), apiVersion: `${RESOURCE_QUOTA_CONFIG_GROUP}/${v}` }), [
      { apiGroup: '', resource: 'pods', matchContains: ['cpu'], matchScopes: [] },
    ]);
  }
  assert.deepEqual(parseResourceQuotaConfiguration(undefined), []);
  assert.deepEqual(parseResourceQuotaConfiguration(config(undefined)), []);
  const table: [unknown, RegExp][] = [
    [config([{ matchContains: ['cpu'] }]), /limitedResources\[0\]\.resource: Required value/],
    [config([{ resource: 'pods', extra: 1 }]), /limitedResources\[0\]\.extra: unknown field/],
    [config([{ resource: 'pods', matchContains: 'cpu' }]), /limitedResources\[0\]\.matchContains: must be a list of strings/],
    [config([{ resource: 'pods', matchScopes: [{ scopeName: 'Nope', operator: 'Exists' }] }]), /limitedResources\[0\]\.matchScopes\[0\]\.scopeName: Unsupported value: "Nope"/],
    [config([{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'Near' }] }]), /matchScopes\[0\]\.operator: Unsupported value: "Near"/],
    [config([{ resource: 'pods', matchScopes: [{ scopeName: 'PriorityClass', operator: 'In' }] }]), /matchScopes\[0\]\.values: Required value/],
    [config([{ resource: 'pods', matchScopes: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] }]), /matchScopes\[0\]\.operator: Invalid value: "In": only Exists applies to scope BestEffort/],
    [config('pods'), /limitedResources: must be a list/],
    [{ ...config([]), apiVersion: 'v1' }, /apiVersion: Unsupported value "v1"/],
    [{ ...config([]), kind: 'Other' }, /kind: Unsupported value "Other"/],
    [config([], { limits: [] }), /limits: unknown field/],
    ['text', /must be an object/],
  ];
  for (const [raw, want] of table) assert.throws(() => parseResourceQuotaConfiguration(raw), want, JSON.stringify(raw));
});

test('reference behaviour (ResourceQuota limitedResources): consumption and scopes that no quota covers are named', () => {
  const usage = (o: ApiObject) => () => usageOf('', 'pods', o, 0);
  const critical = pod('p', {}, 'critical');
  const table: [string, LimitedResource[], ApiObject, ApiObject[], string | undefined][] = [
    ['no quota for cpu', cpuLimited, pod('p', { cpu: '1' }), [], 'insufficient quota to consume: cpu,limits.cpu,requests.cpu'],
    ['quotas covering every cpu name', cpuLimited, pod('p', { cpu: '1' }), [quota('q', { 'requests.cpu': '4' }), quota('r', { cpu: '4', 'limits.cpu': '4' })], undefined],
    ['a quota covering some of it', cpuLimited, pod('p', { cpu: '1' }), [quota('q', { 'limits.cpu': '4' })], 'insufficient quota to consume: cpu,requests.cpu'],
    ['no cpu used', cpuLimited, pod('p', { memory: '1Gi' }), [], undefined],
    ['another resource', [{ ...cpuLimited[0]!, resource: 'services' }], pod('p', { cpu: '1' }), [], undefined],
    ['a scope no quota has', criticalOnly, critical, [quota('q', { pods: '5' })], 'insufficient quota to match these scopes: [{PriorityClass In [critical urgent]}]'],
    ['a quota with that scope', criticalOnly, critical, [quota('q', { pods: '5' }, { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['critical'] }] })], undefined],
    ['a quota whose scope the pod is not under', criticalOnly, critical, [quota('q', { pods: '5' }, { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['low'] }] })],
      'insufficient quota to match these scopes: [{PriorityClass In [critical urgent]}]'],
    ['a pod outside the limited scope', criticalOnly, pod('p', {}, 'low'), [], undefined],
  ];
  for (const [what, limited, object, quotas, want] of table) assert.equal(uncoveredConsumption(limited, '', 'pods', object, quotas, usage(object)), want, what);
});

function statusWriter(objects: Record<string, ApiObject[]>) {
  return async (_g: string, resource: string, _ns: string | undefined, name: string, mutate: (o: ApiObject, attempt: number) => ApiObject | undefined | Promise<ApiObject | undefined>) => {
    const list = objects[`/${resource}`] ?? [];
    const i = list.findIndex((o) => o.metadata?.name === name);
    if (i < 0) return undefined;
    const next = await mutate(structuredClone(list[i]!), 0);
    if (next) list[i] = next;
    return list[i];
  };
}
const withQuotas = (quotas: ApiObject[]) => {
  const objects = { '/resourcequotas': quotas, '/pods': [] as ApiObject[] };
  return new ResourceQuotaPlugin(fixedObjects(objects), statusWriter(objects), () => 0, cpuLimited);
};
const create = (o: ApiObject): AdmissionRequest => admissionRequest({ operation: 'CREATE', name: String(o.metadata?.name), resource: { group: '', version: 'v1', resource: 'pods' }, object: o });

admissionPluginContract('ResourceQuota with limitedResources', {
  make: () => withQuotas([]),
  cases: [
    { title: 'a pod using limited cpu in a namespace without quotas', request: () => create(pod('a', { cpu: '1' })) },
    { title: 'a pod using no cpu', request: () => create(pod('b')) },
  ],
});

test('reference behaviour (ResourceQuota limitedResources): the plugin refuses uncovered consumption with 403, even in a namespace without quotas', async () => {
  const outcome = async (plugin: ResourceQuotaPlugin, req: AdmissionRequest) => {
    try {
      await plugin.validate(req);
      return 'allowed';
    } catch (e) {
      assert.ok(e instanceof StatusError);
      return `${e.code} ${e.message}`;
    }
  };
  assert.equal(await outcome(withQuotas([]), create(pod('a', { cpu: '1' }))), '403 pods "a" is forbidden: insufficient quota to consume: cpu,limits.cpu,requests.cpu');
  assert.equal(await outcome(withQuotas([]), create(pod('b'))), 'allowed');
  assert.equal(await outcome(withQuotas([quota('q', { cpu: '4', 'limits.cpu': '4' })]), create(pod('c', { cpu: '1' }))), '403 pods "c" is forbidden: insufficient quota to consume: requests.cpu');
  const covering = () => quota('q', { cpu: '4', 'requests.cpu': '4', 'limits.cpu': '4' });
  assert.equal(await outcome(withQuotas([covering()]), create(pod('c', { cpu: '1' }))), 'allowed');
  // A covered write is still charged as usual.
  assert.equal(await outcome(withQuotas([covering()]), create(pod('d', { cpu: '5' }))),
    '403 pods "d" is forbidden: exceeded quota: q, requested: cpu=5,limits.cpu=5,requests.cpu=5, used: cpu=0,limits.cpu=0,requests.cpu=0, limited: cpu=4,limits.cpu=4,requests.cpu=4');
});
