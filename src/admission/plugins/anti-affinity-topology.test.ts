import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LABEL_HOSTNAME } from '../../api/naming.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionOperation, AdmissionRequest } from '../types.js';
import { LimitPodHardAntiAffinityTopologyPlugin } from './anti-affinity-topology.js';

const term = (topologyKey?: string) => ({ labelSelector: { matchLabels: { app: 'a' } }, ...(topologyKey === undefined ? {} : { topologyKey }) });
const pod = (antiAffinity: Record<string, unknown> | undefined, operation: AdmissionOperation = 'CREATE', subResource = ''): AdmissionRequest =>
  admissionRequest({
    operation,
    name: 'p',
    subResource,
    kind: { group: '', version: 'v1', kind: 'Pod' },
    resource: { group: '', version: 'v1', resource: 'pods' },
    object: { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i' }], ...(antiAffinity ? { affinity: { podAntiAffinity: antiAffinity } } : {}) } },
  });
const required = (...terms: unknown[]) => ({ requiredDuringSchedulingIgnoredDuringExecution: terms });

admissionPluginContract('LimitPodHardAntiAffinityTopology', {
  make: () => new LimitPodHardAntiAffinityTopologyPlugin(),
  cases: [
    { title: 'a pod spreading across hosts', request: () => pod(required(term(LABEL_HOSTNAME))) },
    { title: 'a pod spreading across zones', request: () => pod(required(term('zone'))) },
  ],
});

async function outcome(req: AdmissionRequest): Promise<string> {
  try {
    new LimitPodHardAntiAffinityTopologyPlugin().validate(req);
    return 'allowed';
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

test('reference behaviour (LimitPodHardAntiAffinityTopology): required anti-affinity terms must use the host name topology key', async () => {
  const refused = (key: string) => `403 pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${LABEL_HOSTNAME} is allowed`;
  const table: [string, AdmissionRequest, string][] = [
    ['no affinity', pod(undefined), 'allowed'],
    ['host name key', pod(required(term(LABEL_HOSTNAME), term(LABEL_HOSTNAME))), 'allowed'],
    ['another key', pod(required(term(LABEL_HOSTNAME), term('topology/zone'))), refused('topology/zone')],
    ['no key', pod(required(term())), refused('')],
    ['another key, on update', pod(required(term('rack')), 'UPDATE'), refused('rack')],
    ['preferred terms are not limited', pod({ preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: term('rack') }] }), 'allowed'],
    ['a subresource is not checked', pod(required(term('rack')), 'UPDATE', 'status'), 'allowed'],
  ];
  for (const [what, req, want] of table) assert.equal(await outcome(req), want, what);
});
