import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APF_AUTOUPDATE_ANNOTATION, SYSTEM_NAMESPACE } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { referenceType } from '../reference.js';
import { flowcontrolBootstrapObjects } from './bootstrap.js';
import { FLOWCONTROL_GROUP, V1_API_VERSION } from './convert.js';
import { defaultFlowSchema, defaultPriorityLevel } from './defaults.js';
import { flowcontrolBootstrap, flowcontrolTypes } from './index.js';
import { validateFlowSchema } from './validate-flowschema.js';
import { validatePriorityLevel } from './validate-prioritylevel.js';

const names = (objs: ApiObject[], kind: string) => objs.filter((o) => o.kind === kind).map((o) => o.metadata?.name);
const all = flowcontrolBootstrap(flowcontrolTypes);

test('reference behaviour: bootstrap holds the mandatory and suggested priority levels and flow schemas', () => {
  assert.deepEqual(names(all, 'PriorityLevelConfiguration'), ['exempt', 'catch-all', 'system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default']);
  assert.deepEqual(names(all, 'FlowSchema'), [
    'exempt',
    'catch-all',
    'system-nodes',
    'system-node-high',
    'probes',
    'system-leader-election',
    'endpoint-controller',
    'workload-leader-election',
    'kube-controller-manager',
    'kube-scheduler',
    'kube-system-service-accounts',
    'service-accounts',
    'global-default',
  ]);
  for (const o of all) {
    assert.equal(o.apiVersion, V1_API_VERSION);
    assert.deepEqual(o.metadata?.annotations, { [APF_AUTOUPDATE_ANNOTATION]: 'true' }, String(o.metadata?.name));
  }
});

test('reference behaviour: every bootstrap object is valid and already in its defaulted form', () => {
  for (const o of all) {
    const defaulted = structuredClone(o);
    if (o.kind === 'FlowSchema') defaultFlowSchema(defaulted);
    else defaultPriorityLevel(defaulted, 'v1');
    assert.deepEqual(defaulted, o, String(o.metadata?.name));
    assert.deepEqual(o.kind === 'FlowSchema' ? validateFlowSchema(o) : validatePriorityLevel(o), [], String(o.metadata?.name));
  }
});

test('reference behaviour: every FlowSchema names a bootstrap priority level, and system service accounts live in the system namespace', () => {
  const levels = new Set(names(all, 'PriorityLevelConfiguration'));
  for (const fs of all.filter((o) => o.kind === 'FlowSchema')) {
    const spec = fs.spec as { priorityLevelConfiguration: { name: string }; rules: { subjects: { serviceAccount?: { namespace: string } }[] }[] };
    assert.ok(levels.has(spec.priorityLevelConfiguration.name), String(fs.metadata?.name));
    for (const s of spec.rules.flatMap((r) => r.subjects)) if (s.serviceAccount) assert.equal(s.serviceAccount.namespace, SYSTEM_NAMESPACE);
  }
  const probes = all.find((o) => o.kind === 'FlowSchema' && o.metadata?.name === 'probes');
  assert.deepEqual(probes?.spec, {
    priorityLevelConfiguration: { name: 'exempt' },
    matchingPrecedence: 2,
    rules: [
      {
        subjects: [
          { kind: 'Group', group: { name: 'system:unauthenticated' } },
          { kind: 'Group', group: { name: 'system:authenticated' } },
        ],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
      },
    ],
  });
});

test('reference behaviour: bootstrap objects only for served kinds, and each call returns fresh copies', () => {
  const onlyLevels = [referenceType(FLOWCONTROL_GROUP, 'v1', 'prioritylevelconfigurations')];
  assert.deepEqual(new Set(flowcontrolBootstrapObjects(onlyLevels).map((o) => o.kind)), new Set(['PriorityLevelConfiguration']));
  assert.deepEqual(flowcontrolBootstrapObjects([]), []);
  const first = flowcontrolBootstrap(flowcontrolTypes);
  (first[0]!.metadata as Record<string, unknown>).name = 'changed';
  assert.equal(flowcontrolBootstrap(flowcontrolTypes)[0]!.metadata?.name, 'exempt');
});
