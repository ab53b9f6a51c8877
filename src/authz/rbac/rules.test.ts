import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ruleAllows } from './rules.js';
import type { Rule, RuleAttributes } from './types.js';

const res = (verb: string, apiGroup: string, resource: string, subresource = '', name = ''): RuleAttributes => ({
  verb,
  isResourceRequest: true,
  path: '',
  apiGroup,
  resource,
  subresource,
  name,
});
const url = (verb: string, path: string): RuleAttributes => ({
  verb,
  isResourceRequest: false,
  path,
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
});

const cases: [string, Rule, RuleAttributes, boolean][] = [
  // apiGroups
  ['core group is ""', { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, res('get', '', 'pods'), true],
  ['core rule does not match another group', { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, res('get', 'apps', 'pods'), false],
  ['group * matches any group', { apiGroups: ['*'], resources: ['pods'], verbs: ['get'] }, res('get', 'x.example', 'pods'), true],
  ['named group exact', { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }, res('get', 'apps', 'deployments'), true],
  ['no apiGroups matches nothing', { resources: ['pods'], verbs: ['get'] }, res('get', '', 'pods'), false],
  // resources
  ['resource * matches any', { apiGroups: [''], resources: ['*'], verbs: ['get'] }, res('get', '', 'secrets'), true],
  ['resource * matches subresources too', { apiGroups: [''], resources: ['*'], verbs: ['get'] }, res('get', '', 'pods', 'log'), true],
  ['resource does not cover its subresource', { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, res('get', '', 'pods', 'log'), false],
  ['subresource exact', { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }, res('get', '', 'pods', 'log'), true],
  ['subresource rule does not cover the resource', { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }, res('get', '', 'pods'), false],
  ['*/subresource matches that subresource of any resource', { apiGroups: [''], resources: ['*/status'], verbs: ['get'] }, res('get', '', 'services', 'status'), true],
  ['*/subresource does not match another subresource', { apiGroups: [''], resources: ['*/status'], verbs: ['get'] }, res('get', '', 'pods', 'log'), false],
  ['*/subresource does not match the resource', { apiGroups: [''], resources: ['*/status'], verbs: ['get'] }, res('get', '', 'pods'), false],
  ['resource/* matches any subresource of it', { apiGroups: [''], resources: ['pods/*'], verbs: ['get'] }, res('get', '', 'pods', 'exec'), true],
  ['resource/* does not match the resource itself', { apiGroups: [''], resources: ['pods/*'], verbs: ['get'] }, res('get', '', 'pods'), false],
  ['resource/* does not match another resource', { apiGroups: [''], resources: ['pods/*'], verbs: ['get'] }, res('get', '', 'podsx', 'exec'), false],
  // verbs
  ['verb * matches any verb', { apiGroups: [''], resources: ['pods'], verbs: ['*'] }, res('deletecollection', '', 'pods'), true],
  ['verb must be listed', { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }, res('watch', '', 'pods'), false],
  ['special verb', { apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }, res('impersonate', '', 'users', '', 'bob'), true],
  // resourceNames
  ['resourceNames: listed name', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'], verbs: ['get'] }, res('get', '', 'configmaps', '', 'b'), true],
  ['resourceNames: other name', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['get'] }, res('get', '', 'configmaps', '', 'c'), false],
  ['resourceNames: list has no name, never matches', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['list'] }, res('list', '', 'configmaps'), false],
  ['resourceNames: create has no name, never matches', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['create'] }, res('create', '', 'configmaps'), false],
  ['resourceNames: watch without name, never matches', { apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'], verbs: ['watch'] }, res('watch', '', 'configmaps'), false],
  ['resourceNames empty = any name', { apiGroups: [''], resources: ['configmaps'], resourceNames: [], verbs: ['get'] }, res('get', '', 'configmaps', '', 'z'), true],
  // nonResourceURLs
  ['url exact', { nonResourceURLs: ['/healthz'], verbs: ['get'] }, url('get', '/healthz'), true],
  ['url exact only', { nonResourceURLs: ['/healthz'], verbs: ['get'] }, url('get', '/healthz/etcd'), false],
  ['url trailing * is a prefix', { nonResourceURLs: ['/healthz/*'], verbs: ['get'] }, url('get', '/healthz/etcd'), true],
  ['url prefix does not match the bare path without the slash', { nonResourceURLs: ['/healthz/*'], verbs: ['get'] }, url('get', '/healthz'), false],
  ['url prefix without slash', { nonResourceURLs: ['/api*'], verbs: ['get'] }, url('get', '/apis/x'), true],
  ['url * alone matches all', { nonResourceURLs: ['*'], verbs: ['get'] }, url('get', '/anything/at/all'), true],
  ['url verb must match', { nonResourceURLs: ['/metrics'], verbs: ['get'] }, url('post', '/metrics'), false],
  ['resource rule never matches a non-resource request', { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, url('get', '/healthz'), false],
  ['url rule never matches a resource request', { nonResourceURLs: ['*'], verbs: ['*'] }, res('get', '', 'pods'), false],
];

describe('ruleAllows', () => {
  for (const [title, rule, attrs, want] of cases) {
    it(`spec 2.7/spec 5.7: ${title}`, () => assert.equal(ruleAllows(rule, attrs), want));
  }
});
