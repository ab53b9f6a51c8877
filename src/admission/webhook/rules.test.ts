import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMISSIONREGISTRATION_GROUP } from '../../api/naming.js';
import { compileRule, isExemptResource, ruleMatches, type RuleTarget } from './rules.js';

const pods: RuleTarget = { operation: 'CREATE', resource: { group: '', version: 'v1', resource: 'pods' }, subResource: '', namespace: 'ns' };
const rule = (r: Record<string, unknown>) =>
  compileRule({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*', ...r });

test('reference behaviour: webhook rules match operation, group, version, resource forms and scope', () => {
  const cases: [string, Record<string, unknown>, Partial<RuleTarget>, boolean][] = [
    ['exact', {}, {}, true],
    ['other operation', {}, { operation: 'UPDATE' }, false],
    ['operation *', { operations: ['*'] }, { operation: 'DELETE' }, true],
    ['group *', { apiGroups: ['*'] }, { resource: { group: 'apps', version: 'v1', resource: 'pods' } }, true],
    ['other group', {}, { resource: { group: 'apps', version: 'v1', resource: 'pods' } }, false],
    ['other version', {}, { resource: { group: '', version: 'v2', resource: 'pods' } }, false],
    ['* skips subresources', { resources: ['*'] }, { subResource: 'status' }, false],
    ['* matches resources', { resources: ['*'] }, {}, true],
    ['*/* matches subresources', { resources: ['*/*'] }, { subResource: 'status' }, true],
    ['pods/* matches pods/status', { resources: ['pods/*'] }, { subResource: 'status' }, true],
    ['pods/* also matches pods itself, as in the reference', { resources: ['pods/*'] }, {}, true],
    ['*/status', { resources: ['*/status'] }, { subResource: 'status' }, true],
    ['pods skips pods/status', {}, { subResource: 'status' }, false],
    ['Namespaced on namespaced', { scope: 'Namespaced' }, {}, true],
    ['Cluster on namespaced', { scope: 'Cluster' }, {}, false],
    ['Cluster on cluster-scoped', { scope: 'Cluster', resources: ['*'] }, { namespace: '' }, true],
    [
      'a Namespace is cluster-scoped even with its name as namespace',
      { scope: 'Namespaced', resources: ['namespaces'] },
      { namespace: 'ns', resource: { group: '', version: 'v1', resource: 'namespaces' } },
      false,
    ],
  ];
  for (const [name, r, t, want] of cases) assert.equal(ruleMatches(rule(r), { ...pods, ...t }), want, name);
});

test('reference behaviour: requests on admission configuration kinds never go to webhooks', () => {
  assert.equal(isExemptResource({ group: ADMISSIONREGISTRATION_GROUP, version: 'v1', resource: 'validatingwebhookconfigurations' }), true);
  assert.equal(isExemptResource({ group: ADMISSIONREGISTRATION_GROUP, version: 'v1', resource: 'mutatingwebhookconfigurations' }), true);
  assert.equal(isExemptResource({ group: '', version: 'v1', resource: 'pods' }), false);
});
