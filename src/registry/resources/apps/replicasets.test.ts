import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { replicasets } from './index.js';

type Obj = Record<string, unknown>;
const s = replicasets.strategy;
const template = (labels: Obj = { app: 'web' }, spec: Obj = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec } });
const replicaSet = (spec: Obj = {}): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web-1', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec },
});
const created = (spec?: Obj) => {
  const o = replicaSet(spec);
  s.prepareForCreate?.(o);
  return o;
};
const errs = (spec: Obj) => s.validate(created(spec));
const cell = (name: string, o: ApiObject) => replicasets.tableColumns.find((c) => c.name === name)?.value(o);

describe('replicasets (reference behaviour)', () => {
  it('reference behaviour: identity, rs short name, all category, replicas default 1 and status replicas 0', () => {
    assert.deepEqual(replicasets.shortNames, ['rs']);
    assert.deepEqual(replicasets.categories, ['all']);
    const o = created();
    assert.equal((o.spec as Obj).replicas, 1);
    assert.equal(((o.spec as Obj).template as Obj & { spec: Obj }).spec.restartPolicy, 'Always');
    assert.deepEqual(o.status, { replicas: 0 });
    assert.deepEqual(s.validate(o), []);
  });

  const bad: [string, Obj, string, string][] = [
    ['selector required', { selector: null }, 'spec.selector', 'Required value'],
    ['empty selector (message names a deployment, as the reference)', { selector: { matchLabels: {} } }, 'spec.selector', 'empty selector is invalid for deployment'],
    ['template labels must match', { template: template({ app: 'other' }) }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['invalid selector label value', { selector: { matchLabels: { app: 'not valid!' } } }, 'spec.selector', 'invalid label selector'],
    ['negative replicas', { replicas: -3 }, 'spec.replicas', 'must be greater than or equal to 0'],
    ['negative minReadySeconds', { minReadySeconds: -1 }, 'spec.minReadySeconds', 'must be greater than or equal to 0'],
    ['restartPolicy Never', { template: template({ app: 'web' }, { restartPolicy: 'Never' }) }, 'spec.template.spec.restartPolicy', 'supported values: "Always"'],
    ['no containers', { template: template({ app: 'web' }, { containers: [] }) }, 'spec.template.spec.containers', 'Required value'],
  ];
  for (const [title, spec, field, message] of bad) {
    it(`reference behaviour: ${title} is rejected at ${field}`, () => {
      const found = errs(spec).find((e) => e.field === field && e.message.includes(message));
      assert.ok(found, JSON.stringify(errs(spec)));
    });
  }

  it('reference behaviour: the selector is immutable, replicas and template may change', () => {
    const old = created();
    const scaled = replicaSet({ replicas: 5, template: template({ app: 'web', v: '2' }) });
    s.prepareForUpdate?.(scaled, old);
    assert.deepEqual(s.validateUpdate?.(scaled, old), []);
    const moved = replicaSet({ selector: { matchLabels: { app: 'web', v: '2' } }, template: template({ app: 'web', v: '2' }) });
    s.prepareForUpdate?.(moved, old);
    assert.deepEqual(s.validateUpdate?.(moved, old).map((e) => e.field), ['spec.selector']);
  });

  it('reference behaviour: table DESIRED, CURRENT, READY, wide CONTAINERS, IMAGES, SELECTOR; scale rules', () => {
    assert.deepEqual(
      replicasets.tableColumns.map((c) => [c.name, c.type, c.priority]),
      [['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]],
    );
    const o = created({ replicas: 4 });
    o.status = { replicas: 3, readyReplicas: 2 };
    assert.deepEqual(['Desired', 'Current', 'Ready', 'Containers', 'Images', 'Selector'].map((n) => cell(n, o)), [4, 3, 2, 'web', 'nginx', 'app=web']);
    assert.equal(replicasets.scale?.selector(o), 'app=web');
    assert.equal(replicasets.scale?.specReplicasPath, 'spec.replicas');
  });
});
