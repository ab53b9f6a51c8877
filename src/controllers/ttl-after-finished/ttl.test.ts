import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../client/index.js';
import { expiresAt, needsCleanup } from './ttl.js';

const job = (ttl: number | undefined, conditions: unknown[], status: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'j', namespace: 'ns', ...meta },
  spec: ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl },
  status: { conditions, ...status },
});
const T = '2030-01-01T00:00:00Z';
const at = Date.parse(T);

describe('ttl-after-finished timing', () => {
  it('reference behaviour: only finished Jobs with a TTL that are not being deleted need cleanup', () => {
    const cases: [string, KubeObject, boolean][] = [
      ['complete', job(10, [{ type: 'Complete', status: 'True', lastTransitionTime: T }]), true],
      ['failed', job(0, [{ type: 'Failed', status: 'True', lastTransitionTime: T }]), true],
      ['no ttl', job(undefined, [{ type: 'Complete', status: 'True', lastTransitionTime: T }]), false],
      ['running', job(10, [{ type: 'Suspended', status: 'True' }]), false],
      ['condition false', job(10, [{ type: 'Complete', status: 'False' }]), false],
      ['being deleted', job(10, [{ type: 'Complete', status: 'True' }], {}, { deletionTimestamp: T }), false],
    ];
    for (const [title, j, want] of cases) assert.equal(needsCleanup(j), want, title);
  });

  it('reference behaviour: expiry is the finish time (condition, else completionTime) plus the TTL', () => {
    assert.equal(expiresAt(job(10, [{ type: 'Complete', status: 'True', lastTransitionTime: T }])), at + 10_000);
    assert.equal(expiresAt(job(5, [{ type: 'Complete', status: 'True' }], { completionTime: T })), at + 5_000);
    assert.equal(expiresAt(job(5, [])), undefined);
    assert.throws(() => expiresAt(job(5, [{ type: 'Failed', status: 'True' }])), /cannot tell when Job ns\/j finished/);
  });
});
