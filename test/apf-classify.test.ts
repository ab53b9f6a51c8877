/**
 * Classification of requests by the server's built-in FlowSchemas (reference behaviour: the mandatory and
 * suggested objects of API priority and fairness), and the matching rules of FlowSchemas one by one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYSTEM_NAMESPACE } from '../src/api/naming.js';
import type { ApiObject } from '../src/api/types.js';
import { Classifier, compileFlowSchema, flowOf, type FlowRequest } from '../src/flowcontrol/index.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../src/registry/resources/flowcontrol/bootstrap.js';

const levels = new Set([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((l) => l.metadata?.name));
const fallback = compileFlowSchema(MANDATORY_FLOW_SCHEMAS[1] as ApiObject);
const builtin = new Classifier([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS], (n) => levels.has(n), fallback);

const resource = (verb: string, apiGroup: string, res: string, namespace = '', subresource = ''): FlowRequest => ({
  verb,
  isResourceRequest: true,
  path: '/x',
  apiGroup,
  namespace,
  resource: res,
  subresource,
});
const nonResource = (verb: string, path: string): FlowRequest => ({ verb, isResourceRequest: false, path, apiGroup: '', namespace: '', resource: '', subresource: '' });
const user = (username: string, ...groups: string[]) => ({ username, groups: [...groups, 'system:authenticated'] });
const anonymous = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const saUser = (ns: string, name: string) => user(`system:serviceaccount:${ns}:${name}`, 'system:serviceaccounts', `system:serviceaccounts:${ns}`);

describe('API priority and fairness: classification by the built-in FlowSchemas (reference behaviour)', () => {
  const table: [string, { username: string; groups: string[] }, FlowRequest, string, string][] = [
    ['system:masters is exempt', user('admin', 'system:masters'), resource('list', '', 'pods', 'default'), 'exempt', 'exempt'],
    ['health probes are exempt, also below /healthz', anonymous, nonResource('get', '/healthz/etcd'), 'probes', 'exempt'],
    ['readyz by a signed-in user is exempt', user('bob'), nonResource('get', '/readyz'), 'probes', 'exempt'],
    ['a post to /healthz is not a probe', user('bob'), nonResource('post', '/healthz'), 'global-default', 'global-default'],
    ['node status', user('system:node:n1', 'system:nodes'), resource('patch', '', 'nodes', '', 'status'), 'system-node-high', 'node-high'],
    ['node lease in any namespace', user('system:node:n1', 'system:nodes'), resource('update', 'coordination.orch.io', 'leases', 'orch-node-lease'), 'system-node-high', 'node-high'],
    ['other node requests', user('system:node:n1', 'system:nodes'), resource('list', '', 'pods', 'default'), 'system-nodes', 'system'],
    ['scheduler leader election', user('system:kube-scheduler'), resource('update', 'coordination.orch.io', 'leases', SYSTEM_NAMESPACE), 'system-leader-election', 'leader-election'],
    ['scheduler binding pods', user('system:kube-scheduler'), resource('create', '', 'pods', 'default', 'binding'), 'kube-scheduler', 'workload-high'],
    ['controller manager endpoints', user('system:kube-controller-manager'), resource('update', '', 'endpoints', 'default'), 'endpoint-controller', 'workload-high'],
    ['a system service account', saUser(SYSTEM_NAMESPACE, 'job-controller'), resource('list', 'batch', 'jobs'), 'kube-system-service-accounts', 'workload-high'],
    ['a system service account electing a leader', saUser(SYSTEM_NAMESPACE, 'x'), resource('get', '', 'configmaps', 'default'), 'workload-leader-election', 'leader-election'],
    ['another namespace service account', saUser('team', 'builder'), resource('create', '', 'configmaps', 'team'), 'service-accounts', 'workload-low'],
    ['an ordinary user', user('alice', 'devs'), resource('create', '', 'configmaps', 'default'), 'global-default', 'global-default'],
    ['anonymous discovery', anonymous, nonResource('get', '/apis'), 'global-default', 'global-default'],
    ['no group at all falls to catch-all', { username: 'odd', groups: [] }, resource('get', '', 'pods', 'x'), 'catch-all', 'catch-all'],
  ];
  for (const [title, u, req, schema, level] of table) {
    it(`reference behaviour: ${title} -> ${schema} / ${level}`, () => {
      const got = builtin.classify(u, req);
      assert.equal(got.name, schema);
      assert.equal(got.priorityLevel, level);
    });
  }

  it('reference behaviour: the flow is the user (ByUser), the namespace (ByNamespace), or one flow (no distinguisher)', () => {
    const alice = user('alice');
    const req = resource('get', '', 'pods', 'ns1');
    assert.equal(flowOf(builtin.classify(alice, req), alice, req), 'alice');
    const cm = user('system:kube-controller-manager');
    assert.equal(flowOf(builtin.classify(cm, req), cm, req), 'ns1');
    const admin = user('admin', 'system:masters');
    assert.equal(flowOf(builtin.classify(admin, req), admin, req), '');
  });
});

const fs = (name: string, precedence: number, level: string, rules: unknown[]): ApiObject => ({
  kind: 'FlowSchema',
  metadata: { name, uid: `uid-${name}` },
  spec: { matchingPrecedence: precedence, priorityLevelConfiguration: { name: level }, distinguisherMethod: { type: 'ByUser' }, rules },
});

describe('API priority and fairness: FlowSchema matching rules (reference behaviour)', () => {
  const everyone = [{ kind: 'Group', group: { name: '*' } }];
  it('reference behaviour: lowest matchingPrecedence wins, then the name; schemas naming a missing level are skipped', () => {
    const rule = { subjects: everyone, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };
    const c = new Classifier([fs('b', 10, 'l', [rule]), fs('a', 10, 'l', [rule]), fs('z', 5, 'gone', [rule]), fs('c', 20, 'l', [rule])], (n) => n === 'l', fallback);
    assert.equal(c.classify(user('u'), nonResource('get', '/x')).name, 'a');
  });

  const table: [string, unknown, { username: string; groups: string[] }, FlowRequest, boolean][] = [
    ['User subject by name', { subjects: [{ kind: 'User', user: { name: 'u' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a'] }] }, user('u'), nonResource('get', '/a'), true],
    ['User subject, another user', { subjects: [{ kind: 'User', user: { name: 'u' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a'] }] }, user('v'), nonResource('get', '/a'), false],
    ['ServiceAccount by namespace and *', { subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '*' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }, saUser('ns', 'x'), nonResource('get', '/a'), true],
    ['ServiceAccount in another namespace', { subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '*' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }, saUser('ns2', 'x'), nonResource('get', '/a'), false],
    ['a verb not listed', { subjects: everyone, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['*'] }] }, user('u'), nonResource('post', '/a'), false],
    ['a trailing /* covers paths below', { subjects: everyone, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/apis/*'] }] }, user('u'), nonResource('get', '/apis/x/y'), true],
    ['a trailing /* does not cover the bare path', { subjects: everyone, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['/apis/*'] }] }, user('u'), nonResource('get', '/apis'), false],
    ['a non-resource rule does not match a resource request', { subjects: everyone, nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }, user('u'), resource('get', '', 'pods', 'd'), false],
    ['resource, group and namespace listed', { subjects: everyone, resourceRules: [{ verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'], namespaces: ['d'] }] }, user('u'), resource('list', 'apps', 'deployments', 'd'), true],
    ['a namespace not listed', { subjects: everyone, resourceRules: [{ verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'], namespaces: ['d'] }] }, user('u'), resource('list', 'apps', 'deployments', 'e'), false],
    ['cluster scope needs clusterScope', { subjects: everyone, resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }, user('u'), resource('list', '', 'nodes'), false],
    ['cluster scope with clusterScope', { subjects: everyone, resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true }] }, user('u'), resource('list', '', 'nodes'), true],
    ['a subresource is resource/subresource', { subjects: everyone, resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }, user('u'), resource('get', '', 'pods', 'd', 'log'), false],
    ['pods/log listed', { subjects: everyone, resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods/log'], namespaces: ['*'] }] }, user('u'), resource('get', '', 'pods', 'd', 'log'), true],
  ];
  for (const [title, rule, u, req, matches] of table) {
    it(`reference behaviour: ${title} ${matches ? 'matches' : 'does not match'}`, () => {
      const c = new Classifier([fs('s', 1, 'l', [rule])], () => true, fallback);
      assert.equal(c.classify(u, req).name, matches ? 's' : 'catch-all');
    });
  }

  it('reference behaviour: the per-user cache notices a change of groups', () => {
    const c = new Classifier([fs('g', 1, 'l', [{ subjects: [{ kind: 'Group', group: { name: 'ops' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }])], () => true, fallback);
    assert.equal(c.classify(user('u', 'ops'), nonResource('get', '/')).name, 'g');
    assert.equal(c.classify(user('u'), nonResource('get', '/')).name, 'catch-all');
  });
});
