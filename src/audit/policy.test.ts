import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePolicy, parsePolicy, type PolicyAttributes } from './policy.js';

const V = 'audit.orch.io/v1';
const policyOf = (rules: unknown[], extra: Record<string, unknown> = {}) => parsePolicy(JSON.stringify({ apiVersion: V, kind: 'Policy', rules, ...extra }), 'p.yaml');

const pod: PolicyAttributes = { user: { username: 'alice', groups: ['devs', 'system:authenticated'] }, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/ns1/pods/web', apiGroup: '', namespace: 'ns1', resource: 'pods', subresource: '', name: 'web' };
const podLog: PolicyAttributes = { ...pod, subresource: 'log', path: '/api/v1/namespaces/ns1/pods/web/log' };
const node: PolicyAttributes = { ...pod, namespace: '', resource: 'nodes', name: 'n1', path: '/api/v1/nodes/n1' };
const deploy: PolicyAttributes = { ...pod, apiGroup: 'apps', resource: 'deployments', name: 'd', verb: 'update' };
const healthz: PolicyAttributes = { user: { username: 'alice', groups: [] }, verb: 'get', isResourceRequest: false, path: '/healthz/etcd', apiGroup: '', namespace: '', resource: '', subresource: '', name: '' };
const anonymous: PolicyAttributes = { ...pod, user: undefined } as PolicyAttributes;

describe('audit policy evaluation (spec 2.11)', () => {
  // Each row: a one-rule policy at Metadata, the request, and whether the rule matches.
  const rows: [string, Record<string, unknown>, PolicyAttributes, boolean][] = [
    ['an empty rule matches everything', {}, pod, true],
    ['users: listed', { users: ['alice'] }, pod, true],
    ['users: not listed', { users: ['bob'] }, pod, false],
    ['users: a request with no user never matches', { users: ['alice'] }, anonymous, false],
    ['userGroups: any group matches', { userGroups: ['devs'] }, pod, true],
    ['userGroups: none matches', { userGroups: ['ops'] }, pod, false],
    ['verbs: listed', { verbs: ['get', 'list'] }, pod, true],
    ['verbs: not listed', { verbs: ['create'] }, pod, false],
    ['namespaces: listed', { namespaces: ['ns1'] }, pod, true],
    ['namespaces: other', { namespaces: ['ns2'] }, pod, false],
    ['namespaces: "" matches cluster-scoped', { namespaces: [''] }, node, true],
    ['namespaces: "" does not match namespaced', { namespaces: [''] }, pod, false],
    ['namespaces: never a non-resource URL', { namespaces: ['ns1'] }, healthz, false],
    ['resources: group with no resources matches all of it', { resources: [{ group: '' }] }, pod, true],
    ['resources: another group', { resources: [{ group: 'apps' }] }, pod, false],
    ['resources: named resource', { resources: [{ group: '', resources: ['pods'] }] }, pod, true],
    ['resources: a plain name does not cover subresources', { resources: [{ group: '', resources: ['pods'] }] }, podLog, false],
    ['resources: res/sub', { resources: [{ group: '', resources: ['pods/log'] }] }, podLog, true],
    ['resources: * covers subresources', { resources: [{ group: '', resources: ['*'] }] }, podLog, true],
    ['resources: */sub', { resources: [{ group: '', resources: ['*/log'] }] }, podLog, true],
    ['resources: */sub not the resource itself', { resources: [{ group: '', resources: ['*/log'] }] }, pod, false],
    ['resources: res/* covers the resource', { resources: [{ group: '', resources: ['pods/*'] }] }, pod, true],
    ['resources: res/* covers subresources', { resources: [{ group: '', resources: ['pods/*'] }] }, podLog, true],
    ['resources: apps group', { resources: [{ group: 'apps', resources: ['deployments'] }] }, deploy, true],
    ['resourceNames: listed', { resources: [{ group: '', resources: ['pods'], resourceNames: ['web'] }] }, pod, true],
    ['resourceNames: other', { resources: [{ group: '', resources: ['pods'], resourceNames: ['db'] }] }, pod, false],
    ['resources: never a non-resource URL', { resources: [{ group: '' }] }, healthz, false],
    ['nonResourceURLs: exact', { nonResourceURLs: ['/healthz/etcd'] }, healthz, true],
    ['nonResourceURLs: trailing *', { nonResourceURLs: ['/healthz*'] }, healthz, true],
    ['nonResourceURLs: lone *', { nonResourceURLs: ['*'] }, healthz, true],
    ['nonResourceURLs: other', { nonResourceURLs: ['/version'] }, healthz, false],
    ['nonResourceURLs: never a resource request', { nonResourceURLs: ['*'] }, pod, false],
    ['every field must match', { users: ['alice'], verbs: ['create'] }, pod, false],
  ];
  for (const [title, fields, attrs, expected] of rows) {
    it(`spec 2.11: ${title}`, () => {
      const evaluate = compilePolicy(policyOf([{ level: 'Metadata', ...fields }]));
      assert.equal(evaluate(attrs)?.level, expected ? 'Metadata' : undefined);
    });
  }

  it('spec 2.11: the first matching rule wins; no match is level None', () => {
    const evaluate = compilePolicy(policyOf([{ level: 'None', users: ['bob'] }, { level: 'RequestResponse', verbs: ['get'] }, { level: 'Metadata' }]));
    assert.equal(evaluate(pod)?.level, 'RequestResponse');
    assert.equal(evaluate({ ...pod, user: { username: 'bob', groups: [] } }), undefined, 'bob stops at the None rule');
    assert.equal(evaluate(deploy)?.level, 'Metadata');
    assert.equal(compilePolicy(policyOf([{ level: 'Metadata', verbs: ['watch'] }]))(pod), undefined);
  });

  it('spec 2.11: omitStages add up; a rule omitManagedFields overrides the policy', () => {
    const p = policyOf(
      [
        { level: 'Request', verbs: ['get'], omitStages: ['ResponseStarted'], omitManagedFields: false },
        { level: 'Request' },
      ],
      { omitStages: ['RequestReceived'], omitManagedFields: true },
    );
    const evaluate = compilePolicy(p);
    assert.deepEqual([...(evaluate(pod)?.omitStages ?? [])].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(evaluate(pod)?.omitManagedFields, false);
    assert.deepEqual([...(evaluate(deploy)?.omitStages ?? [])], ['RequestReceived']);
    assert.equal(evaluate(deploy)?.omitManagedFields, true);
  });
});

describe('audit policy validation (spec 2.11)', () => {
  const bad: [string, string, RegExp][] = [
    ['wrong apiVersion', JSON.stringify({ apiVersion: 'audit.orch.io/v1beta1', kind: 'Policy', rules: [{ level: 'None' }] }), /apiVersion: Unsupported value: "audit.orch.io\/v1beta1"/],
    ['a PolicyList is not a policy file', JSON.stringify({ apiVersion: V, kind: 'PolicyList', items: [] }), /kind: Unsupported value: "PolicyList"/],
    ['no rules', JSON.stringify({ apiVersion: V, kind: 'Policy' }), /rules: Required value/],
    ['missing level', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None' }, { verbs: ['get'] }] }), /rules\[1\]\.level: Required value/],
    ['unknown level', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None' }, { level: 'None' }, { level: 'Everything' }] }), /rules\[2\]\.level: Unsupported value: "Everything"/],
    ['unknown stage', JSON.stringify({ apiVersion: V, kind: 'Policy', omitStages: ['Done'], rules: [{ level: 'None' }] }), /omitStages\[0\]: Unsupported value: "Done"/],
    ['rule stage', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', omitStages: ['X'] }] }), /rules\[0\]\.omitStages\[0\]: Unsupported value/],
    ['group with a version', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', resources: [{ group: 'apps/v1' }] }] }), /rules\[0\]\.resources\[0\]\.group: Invalid value: "apps\/v1"/],
    ['resourceNames without resources', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', resources: [{ group: '', resourceNames: ['a'] }] }] }), /resources\[0\]\.resourceNames: Invalid value: using resource names requires at least one resource/],
    ['URL without a slash', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', nonResourceURLs: ['healthz'] }] }), /nonResourceURLs\[0\]: Invalid value: "healthz": non-resource URL rules must begin with a '\/'/],
    ['URL with an inner *', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', nonResourceURLs: ['/a*/b'] }] }), /wildcards '\*' must be the final character/],
    ['URLs and resources together', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', nonResourceURLs: ['/a'], namespaces: ['x'] }] }), /rules\[0\]\.nonResourceURLs: Invalid value: rules cannot apply to both/],
    ['a list of non-strings', JSON.stringify({ apiVersion: V, kind: 'Policy', rules: [{ level: 'None', users: [1] }] }), /rules\[0\]\.users: Invalid value: must be a list of strings/],
    ['omitManagedFields not a bool', JSON.stringify({ apiVersion: V, kind: 'Policy', omitManagedFields: 'yes', rules: [{ level: 'None' }] }), /omitManagedFields: Invalid value: "yes"/],
    ['not YAML', 'rules: [', /not valid YAML or JSON/],
  ];
  for (const [title, text, re] of bad) {
    it(`spec 2.11: ${title} is a start-up error naming the file and field`, () => {
      assert.throws(() => parsePolicy(text, '/etc/audit.yaml'), (e: Error) => e.message.startsWith('--audit-policy-file /etc/audit.yaml: ') && re.test(e.message));
    });
  }

  it('reference behaviour: YAML is read, and unknown fields are warnings rather than errors', () => {
    const p = parsePolicy(`apiVersion: ${V}\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  colour: blue\n  resources:\n  - group: ""\n    resources: ["secrets"]\n    kinds: [x]\n`, 'p.yaml');
    assert.deepEqual(p.omitStages, ['RequestReceived']);
    assert.equal(p.rules[0]?.resources[0]?.resources[0], 'secrets');
    assert.deepEqual(p.warnings, ['rules[0].colour: unknown field, ignored', 'rules[0].resources[0].kinds: unknown field, ignored']);
  });
});
