import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { controllerrevisions, podtemplates, replicationcontrollers } from './index.js';

type Obj = Record<string, unknown>;
const podTemplate = (labels: Obj = { app: 'web' }, spec: Obj = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec } });

describe('replicationcontrollers (reference behaviour)', () => {
  const s = replicationcontrollers.strategy;
  const rc = (spec: Obj = {}, meta: Obj = {}): ApiObject => ({
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'default', ...meta },
    spec: { template: podTemplate(), ...spec },
  });
  const created = (spec?: Obj, meta?: Obj) => {
    const o = rc(spec, meta);
    s.prepareForCreate?.(o);
    return o;
  };
  const errs = (spec: Obj) => s.validate(created(spec));

  it('reference behaviour: core group, rc short name, replicas 1, selector and labels from the template', () => {
    assert.equal(replicationcontrollers.group, '');
    assert.deepEqual(replicationcontrollers.shortNames, ['rc']);
    assert.deepEqual(replicationcontrollers.categories, ['all']);
    const o = created();
    assert.equal((o.spec as Obj).replicas, 1);
    assert.deepEqual((o.spec as Obj).selector, { app: 'web' });
    assert.deepEqual(o.metadata?.labels, { app: 'web' });
    assert.deepEqual(o.status, { replicas: 0 });
    assert.deepEqual(s.validate(o), []);
  });

  it('reference behaviour: given selector and labels are kept', () => {
    const o = created({ selector: { app: 'web' }, template: podTemplate({ app: 'web', v: '1' }) }, { labels: { team: 'a' } });
    assert.deepEqual((o.spec as Obj).selector, { app: 'web' });
    assert.deepEqual(o.metadata?.labels, { team: 'a' });
    assert.deepEqual(s.validate(o), []);
  });

  const bad: [string, Obj, string, string][] = [
    ['selector that does not match', { selector: { app: 'db' } }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['no selector and no template labels', { template: podTemplate({}) }, 'spec.selector', 'Required value'],
    ['template required', { template: undefined, selector: { app: 'web' } }, 'spec.template', 'Required value'],
    ['negative replicas', { replicas: -1 }, 'spec.replicas', 'must be greater than or equal to 0'],
    ['restartPolicy Always only', { template: podTemplate({ app: 'web' }, { restartPolicy: 'Never' }) }, 'spec.template.spec.restartPolicy', 'supported values: "Always"'],
    ['no activeDeadlineSeconds', { template: podTemplate({ app: 'web' }, { activeDeadlineSeconds: 1 }) }, 'spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'],
    ['bad selector key', { selector: { 'bad key': 'x' } }, 'spec.selector', 'Invalid value'],
    ['selector that is not a map (not replaced by the template labels)', { selector: 'app=web' }, 'spec.selector', 'must be an object'],
  ];
  for (const [title, spec, field, message] of bad) {
    it(`reference behaviour: ${title} is rejected at ${field}`, () => {
      const found = errs(spec).find((e) => e.field === field && e.message.includes(message));
      assert.ok(found, JSON.stringify(errs(spec)));
    });
  }

  it('reference behaviour: the selector may change; table and scale use the plain map', () => {
    assert.equal(s.validateUpdate, undefined);
    assert.deepEqual(replicationcontrollers.tableColumns.map((c) => [c.name, c.priority]), [['Desired', 0], ['Current', 0], ['Ready', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]]);
    const o = created({ selector: { b: '2', app: 'web' }, template: podTemplate({ app: 'web', b: '2' }) });
    o.status = { replicas: 1, readyReplicas: 1 };
    assert.deepEqual(replicationcontrollers.tableColumns.map((c) => c.value(o)), [1, 1, 1, 'web', 'nginx', 'app=web,b=2']);
    assert.equal(replicationcontrollers.scale?.selector(o), 'app=web,b=2');
  });
});

describe('podtemplates (reference behaviour)', () => {
  const s = podtemplates.strategy;
  const pt = (template: unknown = podTemplate()): ApiObject => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 't', namespace: 'default' }, template });
  const created = (template?: unknown) => {
    const o = pt(template);
    s.prepareForCreate?.(o);
    return o;
  };

  it('reference behaviour: pod defaults apply and any restart policy is valid', () => {
    const o = created(podTemplate({ app: 'web' }, { restartPolicy: 'Never' }));
    assert.equal(((o.template as Obj).spec as Obj).dnsPolicy, 'ClusterFirst');
    assert.deepEqual(s.validate(o), []);
    assert.deepEqual(s.validate(created()), []);
  });

  it('reference behaviour: template pod rules apply at template.*', () => {
    assert.ok(s.validate(created(podTemplate({}, { containers: [{ name: 'x' }] }))).some((e) => e.field === 'template.spec.containers[0].image'));
    assert.ok(s.validate(created(podTemplate({}, { ephemeralContainers: [{ name: 'd', image: 'busybox' }] }))).some((e) => e.field === 'template.spec.ephemeralContainers'));
  });

  it('reference behaviour: the generation follows template changes', () => {
    assert.equal(s.tracksGeneration, true);
    const old = created();
    old.metadata = { ...old.metadata, generation: 1 };
    const same = pt();
    same.metadata = { ...same.metadata, generation: 1 };
    s.prepareForUpdate?.(same, old);
    assert.equal(same.metadata?.generation, 1);
    const changed = pt(podTemplate({ app: 'web' }, { containers: [{ name: 'web', image: 'nginx:2' }] }));
    changed.metadata = { ...changed.metadata, generation: 1 };
    s.prepareForUpdate?.(changed, old);
    assert.equal(changed.metadata?.generation, 2);
  });

  it('reference behaviour: table CONTAINERS, IMAGES, POD LABELS', () => {
    assert.deepEqual(podtemplates.tableColumns.map((c) => [c.name, c.priority]), [['Containers', 0], ['Images', 0], ['Pod Labels', 0]]);
    assert.deepEqual(podtemplates.tableColumns.map((c) => c.value(created())), ['web', 'nginx', 'app=web']);
  });
});

describe('controllerrevisions (reference behaviour)', () => {
  const s = controllerrevisions.strategy;
  const cr = (extra: Obj = {}): ApiObject => ({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'web-7d9f', namespace: 'default' },
    data: { spec: { template: {} } },
    revision: 2,
    ...extra,
  });

  it('reference behaviour: data is mandatory and revision may not be negative', () => {
    assert.deepEqual(s.validate(cr()), []);
    assert.deepEqual(s.validate(cr({ data: undefined })).map((e) => [e.field, e.message]), [['data', 'Required value: data is mandatory']]);
    assert.deepEqual(s.validate(cr({ revision: -1 })).map((e) => e.field), ['revision']);
    assert.deepEqual(s.validate(cr({ revision: 'one' })).map((e) => e.field), ['revision']);
  });

  it('reference behaviour: a missing revision decodes as 0', () => {
    const o = cr({ revision: undefined });
    s.prepareForCreate?.(o);
    assert.equal(o.revision, 0);
  });

  it('reference behaviour: data is immutable, labels may change', () => {
    assert.deepEqual(s.validateUpdate?.(cr({ data: { spec: { x: 1 } } }), cr()).map((e) => [e.field, e.message.endsWith('field is immutable')]), [['data', true]]);
    assert.deepEqual(s.validateUpdate?.(cr({ metadata: { name: 'web-7d9f', labels: { a: 'b' } } }), cr()), []);
  });

  it('reference behaviour: table CONTROLLER and REVISION', () => {
    assert.deepEqual(controllerrevisions.tableColumns.map((c) => c.name), ['Controller', 'Revision']);
    const owned = cr();
    owned.metadata = { ...owned.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] };
    assert.deepEqual(controllerrevisions.tableColumns.map((c) => c.value(owned)), ['statefulset.apps/web', 2]);
    assert.equal(controllerrevisions.tableColumns[0]?.value(cr()), '<none>');
  });
});
