import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { deployments } from './index.js';

type Obj = Record<string, unknown>;
const s = deployments.strategy;
const template = (labels: Obj = { app: 'web' }, spec: Obj = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec },
});
const deployment = (spec: Obj = {}): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: template(), ...spec },
});
const created = (spec?: Obj) => {
  const o = deployment(spec);
  s.prepareForCreate?.(o);
  return o;
};
const specOf = (o: ApiObject) => o.spec as Obj;
const fields = (e: FieldError[]) => e.map((x) => x.field);
const errs = (spec: Obj) => s.validate(created(spec));
const cell = (name: string, o: ApiObject) => deployments.tableColumns.find((c) => c.name === name)?.value(o);

describe('deployments: type and defaults', () => {
  it('reference behaviour: identity, short name, category, scale and status subresources', () => {
    assert.equal(deployments.kind, 'Deployment');
    assert.equal(deployments.group, 'apps');
    assert.deepEqual(deployments.shortNames, ['deploy']);
    assert.deepEqual(deployments.categories, ['all']);
    assert.deepEqual([...deployments.subresources].sort(), ['scale', 'status']);
    assert.equal(s.tracksGeneration, true);
  });

  it('reference behaviour: a minimal deployment gets the apps/v1 defaults and an empty status', () => {
    const o = created();
    const spec = specOf(o);
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    const podSpec = (spec.template as Obj).spec as Obj;
    assert.equal(podSpec.restartPolicy, 'Always');
    assert.equal(podSpec.dnsPolicy, 'ClusterFirst');
    assert.deepEqual(o.status, {});
    assert.deepEqual(s.validate(o), []);
  });

  it('reference behaviour: given values are kept; Recreate gets no rollingUpdate', () => {
    const o = created({ replicas: 0, revisionHistoryLimit: 0, strategy: { type: 'Recreate' } });
    assert.equal(specOf(o).replicas, 0);
    assert.equal(specOf(o).revisionHistoryLimit, 0);
    assert.deepEqual(specOf(o).strategy, { type: 'Recreate' });
    const partial = created({ strategy: { rollingUpdate: { maxSurge: 2 } } });
    assert.deepEqual(specOf(partial).strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' } });
  });
});

describe('deployments: validation (reference behaviour)', () => {
  const bad: [string, Obj, string, string][] = [
    ['selector required', { selector: undefined }, 'spec.selector', 'Required value'],
    ['empty selector', { selector: {} }, 'spec.selector', 'empty selector is invalid for deployment'],
    ['selector must match template labels', { selector: { matchLabels: { app: 'db' } } }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['bad selector operator', { selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] } }, 'spec.selector.matchExpressions[0].operator', 'not a valid selector operator'],
    ['In without values', { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }, 'spec.selector.matchExpressions[0].values', "must be specified when `operator` is 'In' or 'NotIn'"],
    ['negative replicas', { replicas: -1 }, 'spec.replicas', 'must be greater than or equal to 0'],
    ['non-integer replicas', { replicas: 'three' }, 'spec.replicas', 'must be an integer'],
    ['unknown strategy type', { strategy: { type: 'BlueGreen' } }, 'spec.strategy', 'supported values: "Recreate", "RollingUpdate"'],
    ['rollingUpdate with Recreate', { strategy: { type: 'Recreate', rollingUpdate: {} } }, 'spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"],
    ['bad percent', { strategy: { rollingUpdate: { maxSurge: '25' } } }, 'spec.strategy.rollingUpdate.maxSurge', 'a valid percent string'],
    ['negative maxSurge', { strategy: { rollingUpdate: { maxSurge: -1 } } }, 'spec.strategy.rollingUpdate.maxSurge', 'must be greater than or equal to 0'],
    ['both limits zero', { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } }, 'spec.strategy.rollingUpdate.maxUnavailable', 'may not be 0 when `maxSurge` is 0'],
    ['maxUnavailable over 100%', { strategy: { rollingUpdate: { maxUnavailable: '150%' } } }, 'spec.strategy.rollingUpdate.maxUnavailable', 'must not be greater than 100%'],
    ['progress deadline not above minReadySeconds', { minReadySeconds: 600 }, 'spec.progressDeadlineSeconds', 'must be greater than minReadySeconds'],
    ['negative revisionHistoryLimit', { revisionHistoryLimit: -2 }, 'spec.revisionHistoryLimit', 'must be greater than or equal to 0'],
    ['container without image', { template: template({ app: 'web' }, { containers: [{ name: 'web' }] }) }, 'spec.template.spec.containers[0].image', 'Required value'],
    ['restartPolicy must be Always', { template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) }, 'spec.template.spec.restartPolicy', 'supported values: "Always"'],
    ['no activeDeadlineSeconds', { template: template({ app: 'web' }, { activeDeadlineSeconds: 10 }) }, 'spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'],
    ['no ephemeral containers', { template: template({ app: 'web' }, { ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] }) }, 'spec.template.spec.ephemeralContainers', 'ephemeral containers not allowed in pod template'],
  ];
  for (const [title, spec, field, message] of bad) {
    it(`reference behaviour: ${title} is rejected at ${field}`, () => {
      const found = errs(spec).find((e) => e.field === field);
      assert.ok(found, `no error at ${field}: ${JSON.stringify(errs(spec))}`);
      assert.ok(found.message.includes(message), found.message);
    });
  }

  it('reference behaviour: a missing selector also fails the template match', () => {
    assert.deepEqual(fields(errs({ selector: undefined })), ['spec.selector', 'spec.template.metadata.labels']);
  });

  const good: [string, Obj][] = [
    ['matchExpressions selector', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] } }],
    ['integer limits', { strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }],
    ['100% maxUnavailable', { strategy: { rollingUpdate: { maxUnavailable: '100%' } } }],
    ['Recreate', { strategy: { type: 'Recreate' } }],
    ['zero replicas', { replicas: 0 }],
  ];
  for (const [title, spec] of good) {
    it(`reference behaviour: ${title} is accepted`, () => assert.deepEqual(errs(spec), []));
  }
});

describe('deployments: updates (reference behaviour)', () => {
  it('reference behaviour: the selector is immutable on update', () => {
    const old = created();
    const changed = deployment({ selector: { matchLabels: { app: 'web', tier: 'fe' } }, template: template({ app: 'web', tier: 'fe' }) });
    s.prepareForUpdate?.(changed, old);
    const e = s.validateUpdate?.(changed, old) ?? [];
    assert.deepEqual(fields(e), ['spec.selector']);
    assert.match(e[0]?.message ?? '', /field is immutable/);
    const same = deployment({ selector: { matchLabels: { app: 'web' }, matchExpressions: [] } });
    s.prepareForUpdate?.(same, old);
    assert.deepEqual(s.validateUpdate?.(same, old), [], 'an empty list equals a missing one');
  });

  it('reference behaviour: defaults apply on update and status is kept', () => {
    const old = created();
    (old as Obj).status = { replicas: 3 };
    const next = deployment({ replicas: 3 });
    next.status = { replicas: 99 };
    s.prepareForUpdate?.(next, old);
    assert.deepEqual(specOf(next).strategy, specOf(old).strategy);
    assert.deepEqual(next.status, { replicas: 3 });
  });

  it('reference behaviour: an annotation change bumps the generation', () => {
    const old = created();
    old.metadata = { ...old.metadata, generation: 4 };
    const next = deployment();
    next.metadata = { ...next.metadata, generation: 4, annotations: { note: 'x' } };
    s.prepareForUpdate?.(next, old);
    assert.equal(next.metadata?.generation, 5);
    const unchanged = deployment();
    unchanged.metadata = { ...unchanged.metadata, generation: 4 };
    s.prepareForUpdate?.(unchanged, old);
    assert.equal(unchanged.metadata?.generation, 4);
  });
});

describe('deployments: table and scale (reference behaviour)', () => {
  it('reference behaviour: columns READY, UP-TO-DATE, AVAILABLE, wide CONTAINERS, IMAGES, SELECTOR', () => {
    assert.deepEqual(
      deployments.tableColumns.map((c) => [c.name, c.priority]),
      [['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]],
    );
    const o = created({ replicas: 3, template: template({ app: 'web' }, { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }] }) });
    o.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 };
    assert.equal(cell('Ready', o), '2/3');
    assert.equal(cell('Up-to-date', o), 3);
    assert.equal(cell('Available', o), 1);
    assert.equal(cell('Containers', o), 'a,b');
    assert.equal(cell('Images', o), 'a:1,b:2');
    assert.equal(cell('Selector', o), 'app=web');
    assert.equal(cell('Ready', created()), '0/1', 'a fresh deployment reads 0 ready of 1');
  });

  it('reference behaviour: scale reads spec.replicas, status.replicas and the selector string', () => {
    const scale = deployments.scale;
    assert.ok(scale);
    assert.equal(scale.specReplicasPath, 'spec.replicas');
    assert.equal(scale.statusReplicasPath, 'status.replicas');
    const o = created({ selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, template: template({ app: 'web', tier: 'a' }) });
    assert.equal(scale.selector(o), 'app=web,tier in (a,b)');
  });
});
