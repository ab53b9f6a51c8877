import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { daemonsets } from './index.js';

type Obj = Record<string, unknown>;
const s = daemonsets.strategy;
const template = (labels: Obj = { app: 'agent' }, spec: Obj = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'agent:1' }], ...spec } });
const daemonSet = (spec: Obj = {}): ApiObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'default' },
  spec: { selector: { matchLabels: { app: 'agent' } }, template: template(), ...spec },
});
const created = (spec?: Obj) => {
  const o = daemonSet(spec);
  s.prepareForCreate?.(o);
  return o;
};
const errs = (spec: Obj) => s.validate(created(spec));
const cell = (name: string, o: ApiObject) => daemonsets.tableColumns.find((c) => c.name === name)?.value(o);

describe('daemonsets (reference behaviour)', () => {
  it('reference behaviour: ds short name, no scale, defaults and initial status', () => {
    assert.deepEqual(daemonsets.shortNames, ['ds']);
    assert.deepEqual(daemonsets.categories, ['all']);
    assert.equal(daemonsets.scale, undefined);
    const o = created();
    const spec = o.spec as Obj;
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.replicas, undefined);
    assert.deepEqual(o.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    assert.deepEqual(s.validate(o), []);
    assert.deepEqual((created({ updateStrategy: { type: 'OnDelete' } }).spec as Obj).updateStrategy, { type: 'OnDelete' });
  });

  const bad: [string, Obj, string, string][] = [
    ['selector required', { selector: undefined }, 'spec.selector', 'Required value'],
    ['empty selector', { selector: {} }, 'spec.selector', 'empty selector is invalid for daemonset'],
    ['template labels must match', { template: template({ app: 'x' }) }, 'spec.template.metadata.labels', '`selector` does not match template `labels`'],
    ['bad update strategy', { updateStrategy: { type: 'Surge' } }, 'spec.updateStrategy', 'supported values: "RollingUpdate", "OnDelete"'],
    ['both limits set', { updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } }, 'spec.updateStrategy.rollingUpdate.maxSurge', 'may not be set when maxUnavailable is non-zero'],
    ['both limits zero', { updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } }, 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0 when maxSurge is 0'],
    ['maxSurge over 100%', { updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '101%' } } }, 'spec.updateStrategy.rollingUpdate.maxSurge', 'must not be greater than 100%'],
    ['bad percent', { updateStrategy: { rollingUpdate: { maxUnavailable: 'x%' } } }, 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'a valid percent string'],
    ['restartPolicy must be Always', { template: template({ app: 'agent' }, { restartPolicy: 'OnFailure' }) }, 'spec.template.spec.restartPolicy', 'supported values: "Always"'],
    ['no activeDeadlineSeconds', { template: template({ app: 'agent' }, { activeDeadlineSeconds: 3 }) }, 'spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'],
    ['container name required', { template: template({ app: 'agent' }, { containers: [{ image: 'x' }] }) }, 'spec.template.spec.containers[0].name', 'Required value'],
    ['negative revisionHistoryLimit', { revisionHistoryLimit: -1 }, 'spec.revisionHistoryLimit', 'must be greater than or equal to 0'],
  ];
  for (const [title, spec, field, message] of bad) {
    it(`reference behaviour: ${title} is rejected at ${field}`, () => {
      const found = errs(spec).find((e) => e.field === field && e.message.includes(message));
      assert.ok(found, JSON.stringify(errs(spec)));
    });
  }

  it('reference behaviour: surge-only rollouts are valid', () => {
    assert.deepEqual(errs({ updateStrategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '10%' } } }), []);
  });

  it('reference behaviour: the selector is immutable on update', () => {
    const old = created();
    const next = daemonSet({ selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['agent'] }] } });
    s.prepareForUpdate?.(next, old);
    assert.deepEqual(s.validateUpdate?.(next, old).map((e) => e.field), ['spec.selector']);
  });

  it('reference behaviour: table DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR, wide CONTAINERS IMAGES SELECTOR', () => {
    assert.deepEqual(
      daemonsets.tableColumns.map((c) => [c.name, c.priority]),
      [['Desired', 0], ['Current', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Node Selector', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]],
    );
    const o = created({ template: template({ app: 'agent' }, { nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } }) });
    o.status = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 1, numberAvailable: 2 };
    assert.deepEqual(
      ['Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Selector'].map((n) => cell(n, o)),
      [3, 3, 2, 1, 2, 'disk=ssd,kubernetes.io/os=linux', 'app=agent'],
    );
    assert.equal(cell('Node Selector', created()), '<none>');
  });
});
