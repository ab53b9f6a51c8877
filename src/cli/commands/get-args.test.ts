import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldLabel, eventAge, describeText } from './describe-render.js';
import { kindPrefix, parseResourceArgs } from './get-args.js';
import { apiVersionsText, selectResources } from './api-resources.js';
import type { ResourceInfo } from '../../client/index.js';

describe('orchctl get/describe arguments', () => {
  it('reference behaviour: TYPE[,TYPE] NAME... and TYPE/NAME... forms, not mixed', () => {
    assert.deepEqual(parseResourceArgs(['cm,secret', 'a', 'b'], 'get'), [{ type: 'cm', names: ['a', 'b'] }, { type: 'secret', names: ['a', 'b'] }]);
    assert.deepEqual(parseResourceArgs(['cm/a', 'secret/s', 'cm/b'], 'get'), [{ type: 'cm', names: ['a', 'b'] }, { type: 'secret', names: ['s'] }]);
    assert.deepEqual(parseResourceArgs(['ns'], 'get'), [{ type: 'ns', names: [] }]);
    for (const bad of [[], ['cm', 'cm/a'], ['cm/'], ['cm/a/b'], ['cm,,x']]) assert.throws(() => parseResourceArgs(bad, 'get'), /./, bad.join(' '));
    assert.equal(kindPrefix({ kind: 'Deployment', group: 'apps' }), 'deployment.apps/');
  });

  it('reference behaviour: describe labels fields in Title Case, keeps map keys, counts repeated events', () => {
    assert.equal(fieldLabel('creationTimestamp'), 'Creation Timestamp');
    assert.equal(fieldLabel('apiVersion'), 'API Version');
    assert.equal(fieldLabel('uid'), 'UID');
    assert.equal(fieldLabel('ca.crt'), 'ca.crt');
    const now = Date.parse('2024-01-01T00:10:00Z');
    assert.equal(eventAge({ count: 3, firstTimestamp: '2024-01-01T00:00:00Z', lastTimestamp: '2024-01-01T00:09:00Z' }, now), '60s (x3 over 10m)');
    const text = describeText({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', labels: { x: '1', y: '2' } }, data: { k: 'v' } }, [], now);
    assert.equal(text, 'Name:         a\nNamespace:    n\nLabels:       x=1\n              y=2\nAnnotations:  <none>\nAPI Version:  v1\nData:\n  K:  v\nKind:  ConfigMap\nEvents:  <none>\n');
  });

  it('reference behaviour: api-resources keeps preferred versions, core first, then groups by name; filters', () => {
    const r = (group: string, plural: string, o: Partial<ResourceInfo> = {}): ResourceInfo => ({ group, version: 'v1', plural, singular: plural, kind: plural, namespaced: true, verbs: ['get', 'list'], shortNames: [], categories: [], subresources: [], preferred: true, ...o });
    const all = [r('b.io', 'zs'), r('', 'pods'), r('a.io', 'xs', { namespaced: false }), r('a.io', 'old', { preferred: false }), r('', 'bindings', { verbs: ['create'] })];
    assert.deepEqual(selectResources(all, {}).map((x) => `${x.group}/${x.plural}`), ['/bindings', '/pods', 'a.io/xs', 'b.io/zs']);
    assert.deepEqual(selectResources(all, { namespaced: 'false' }).map((x) => x.plural), ['xs']);
    assert.deepEqual(selectResources(all, { verbs: 'list', apiGroup: '' }).map((x) => x.plural), ['pods']);
    assert.throws(() => selectResources(all, { namespaced: 'maybe' }), /--namespaced/);
    assert.equal(apiVersionsText([], ['v1', 'apps/v1', 'apps/v1']), 'apps/v1\nv1\n');
  });
});
