import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCHEDULING_GROUP } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { globalDefaultClass, PriorityPlugin } from './priority.js';

const PC_RESOURCE = { group: SCHEDULING_GROUP, version: 'v1', resource: 'priorityclasses' };
const pc = (name: string, value: number, extra: Record<string, unknown> = {}): ApiObject => ({
  apiVersion: `${SCHEDULING_GROUP}/v1`,
  kind: 'PriorityClass',
  metadata: { name },
  value,
  preemptionPolicy: 'PreemptLowerPriority',
  ...extra,
});
const withDefault = fixedObjects({ [`${SCHEDULING_GROUP}/priorityclasses`]: [pc('high', 1000, { preemptionPolicy: 'Never' }), pc('base', 10, { globalDefault: true })] });
const noDefault = fixedObjects({ [`${SCHEDULING_GROUP}/priorityclasses`]: [pc('high', 1000)] });
const pod = (spec: Record<string, unknown>, operation: 'CREATE' | 'UPDATE' = 'CREATE', oldSpec?: Record<string, unknown>): AdmissionRequest =>
  admissionRequest({
    operation,
    name: 'p',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
    ...(oldSpec ? { oldObject: { metadata: { name: 'p' }, spec: oldSpec } } : {}),
  });
const classWrite = (obj: ApiObject, operation: 'CREATE' | 'UPDATE' = 'CREATE') =>
  admissionRequest({ operation, namespace: '', name: obj.metadata?.name as string, resource: PC_RESOURCE, kind: { group: SCHEDULING_GROUP, version: 'v1', kind: 'PriorityClass' }, object: obj });

admissionPluginContract('Priority', {
  make: () => new PriorityPlugin(withDefault),
  cases: [
    { title: 'a pod naming a class', request: () => pod({ priorityClassName: 'high' }) },
    { title: 'a pod naming no class', request: () => pod({}) },
    { title: 'a pod naming a missing class', request: () => pod({ priorityClassName: 'nope' }) },
    { title: 'a second default class', request: () => classWrite(pc('other', 5, { globalDefault: true })) },
  ],
});

async function admitted(req: AdmissionRequest, plugin: PriorityPlugin): Promise<string> {
  try {
    await plugin.admit(req);
    await plugin.validate(req);
    const s = req.object?.spec as Record<string, unknown> | undefined;
    return s ? `${String(s.priorityClassName ?? '')} ${String(s.priority)} ${String(s.preemptionPolicy)}` : 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (Priority): pods get priority and preemption policy from their class, the default class, or 0', async () => {
  const p = new PriorityPlugin(withDefault);
  const table: [string, AdmissionRequest, PriorityPlugin, string][] = [
    ['named class', pod({ priorityClassName: 'high' }), p, 'high 1000 Never'],
    ['no class, a global default exists', pod({}), p, 'base 10 PreemptLowerPriority'],
    ['no class, no default', pod({}), new PriorityPlugin(noDefault), ' 0 PreemptLowerPriority'],
    ['the same priority stated', pod({ priorityClassName: 'high', priority: 1000 }), p, 'high 1000 Never'],
    ['a missing class', pod({ priorityClassName: 'nope' }), p, '403 pods "p" is forbidden: no PriorityClass with name nope was found'],
    ['another priority stated', pod({ priorityClassName: 'high', priority: 5 }), p,
      '403 pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name'],
    ['another preemption policy stated', pod({ priorityClassName: 'high', preemptionPolicy: 'PreemptLowerPriority' }), p,
      '403 pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name'],
    ['update keeps the resolved values', pod({ priorityClassName: 'high' }, 'UPDATE', { priorityClassName: 'high', priority: 1000, preemptionPolicy: 'Never' }), p, 'high 1000 Never'],
  ];
  for (const [what, req, plugin, want] of table) assert.equal(await admitted(req, plugin), want, what);
});

test('reference behaviour (Priority): one global default PriorityClass; the default itself may be rewritten', async () => {
  const p = new PriorityPlugin(withDefault);
  const table: [string, AdmissionRequest, string][] = [
    ['a plain class', classWrite(pc('plain', 1)), 'allowed'],
    ['a second default', classWrite(pc('second', 3, { globalDefault: true })), '403 priorityclasses.' + SCHEDULING_GROUP + ' "second" is forbidden: PriorityClass base is already marked as default. Only one default can exist'],
    ['promoting another class', classWrite(pc('high', 1000, { globalDefault: true }), 'UPDATE'), '403 priorityclasses.' + SCHEDULING_GROUP + ' "high" is forbidden: PriorityClass base is already marked as default. Only one default can exist'],
    ['rewriting the default', classWrite(pc('base', 10, { globalDefault: true, description: 'new' }), 'UPDATE'), 'allowed'],
    ['a default when none exists', classWrite(pc('first', 3, { globalDefault: true })), 'allowed'],
  ];
  for (const [what, req, want] of table) {
    const plugin = what === 'a default when none exists' ? new PriorityPlugin(noDefault) : p;
    assert.equal(await admitted(req, plugin), want, what);
  }
});

test('reference behaviour (Priority): after a race left two defaults, the one of lowest value is the default', () => {
  assert.equal(globalDefaultClass([pc('b', 9, { globalDefault: true }), pc('a', 3, { globalDefault: true }), pc('c', 1)])?.metadata?.name, 'a');
  assert.equal(globalDefaultClass([pc('c', 1)]), undefined);
});
