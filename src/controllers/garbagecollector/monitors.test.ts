import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceInfo } from '../../client/index.js';
import { deletableResources } from './monitors.js';

const info = (group: string, plural: string, verbs: string[], preferred = true): ResourceInfo => ({
  group, version: 'v1', plural, singular: plural, kind: plural, namespaced: true, verbs, shortNames: [], categories: [], subresources: [], preferred,
});
const ALL = ['create', 'delete', 'get', 'list', 'watch'];

describe('garbage collector monitored resources (reference behaviour)', () => {
  it('reference behaviour: preferred versions with list, watch and delete; never events', () => {
    const picked = deletableResources([
      info('', 'configmaps', ALL),
      info('apps', 'deployments', ALL, false),
      info('', 'bindings', ['create']),
      info('authorization.orch.io', 'subjectaccessreviews', ['create']),
      info('', 'events', ALL),
      info('events.orch.io', 'events', ALL),
      info('example.com', 'widgets', ALL),
    ]).map((r) => `${r.group}/${r.plural}`);
    assert.deepEqual(picked, ['/configmaps', 'example.com/widgets']);
  });
});
