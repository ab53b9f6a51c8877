import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TAINT_NODE_OUT_OF_SERVICE } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import { isTerminated, terminatedOverThreshold, terminatingOnOutOfServiceNodes, unscheduledTerminating } from './select.js';

const pod = (name: string, phase: string, created: string, extra: { reason?: string; nodeName?: string; deleting?: boolean } = {}): KubeObject => ({
  metadata: { name, namespace: 'ns', creationTimestamp: created, ...(extra.deleting ? { deletionTimestamp: created } : {}) },
  spec: extra.nodeName ? { nodeName: extra.nodeName } : {},
  status: { phase, ...(extra.reason ? { reason: extra.reason } : {}) },
});
const names = (l: KubeObject[]) => l.map((p) => p.metadata.name);

describe('pod GC selection', () => {
  it('reference behaviour: every phase but Pending, Running and Unknown counts as terminated', () => {
    const cases: [string, boolean][] = [['Succeeded', true], ['Failed', true], ['', true], ['Pending', false], ['Running', false], ['Unknown', false]];
    for (const [phase, want] of cases) assert.equal(isTerminated(pod('p', phase, '2030-01-01T00:00:00Z')), want, phase);
  });

  it('reference behaviour: over the threshold, evicted pods go first, then the oldest, then by name; 0 means no limit', () => {
    const pods = [
      pod('new', 'Succeeded', '2030-01-01T00:00:03Z'),
      pod('old', 'Failed', '2030-01-01T00:00:01Z'),
      pod('b', 'Succeeded', '2030-01-01T00:00:02Z'),
      pod('a', 'Succeeded', '2030-01-01T00:00:02Z'),
      pod('evicted', 'Failed', '2030-01-01T00:00:09Z', { reason: 'Evicted' }),
      pod('running', 'Running', '2030-01-01T00:00:00Z'),
    ];
    assert.deepEqual(names(terminatedOverThreshold(pods, 2)), ['evicted', 'old', 'a']);
    assert.deepEqual(names(terminatedOverThreshold(pods, 5)), []);
    assert.deepEqual(names(terminatedOverThreshold(pods, 0)), []);
  });

  it('reference behaviour: terminating pods that were never scheduled, or sit on a not-ready out-of-service node, are collected', () => {
    const pods = [
      pod('unscheduled', 'Pending', '2030-01-01T00:00:00Z', { deleting: true }),
      pod('scheduled', 'Running', '2030-01-01T00:00:00Z', { deleting: true, nodeName: 'n1' }),
      pod('live', 'Pending', '2030-01-01T00:00:00Z'),
      pod('oos', 'Running', '2030-01-01T00:00:00Z', { deleting: true, nodeName: 'n2' }),
    ];
    assert.deepEqual(names(unscheduledTerminating(pods)), ['unscheduled']);
    const taint = { spec: { taints: [{ key: TAINT_NODE_OUT_OF_SERVICE, effect: 'NoExecute' }] } };
    const nodes: Record<string, KubeObject> = {
      n1: { metadata: { name: 'n1' }, ...taint, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      n2: { metadata: { name: 'n2' }, ...taint, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    };
    assert.deepEqual(names(terminatingOnOutOfServiceNodes(pods, (n) => nodes[n])), ['oos']);
  });
});
