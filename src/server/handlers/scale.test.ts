import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScaleRules } from '../../registry/types.js';
import { scaleOf, validateScale } from './scale.js';

const rules: ScaleRules = { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', selector: () => 'app=web' };
const parent = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2024-01-02T03:04:05Z', labels: { a: 'b' } },
  spec: { replicas: 3 },
  status: { replicas: 2 },
};

describe('scale subresource (autoscaling/v1 Scale, reference behaviour)', () => {
  it('the Scale of an object carries its identity, desired and observed replicas and selector', () => {
    assert.deepEqual(scaleOf(parent, rules), {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'ns', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2024-01-02T03:04:05Z' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web' },
    });
  });

  it('zero desired replicas are omitted like the reference omits an empty int; a missing status reads 0', () => {
    const s = scaleOf({ ...parent, spec: { replicas: 0 }, status: {} }, { ...rules, selector: () => undefined });
    assert.deepEqual([s.spec, s.status], [{}, { replicas: 0 }]);
  });

  const cases: [string, unknown, string[]][] = [
    ['no replicas', { spec: {} }, []],
    ['zero', { spec: { replicas: 0 } }, []],
    ['negative', { spec: { replicas: -1 } }, ['spec.replicas: must be greater than or equal to 0']],
    ['fraction', { spec: { replicas: 1.5 } }, ['spec.replicas: must be an integer']],
    ['string', { spec: { replicas: '2' } }, ['spec.replicas: must be an integer']],
    ['over int32', { spec: { replicas: 2 ** 31 } }, ['spec.replicas: must be an integer']],
  ];
  for (const [name, scale, want] of cases) {
    it(`validation: ${name}`, () => {
      assert.deepEqual(
        validateScale(scale).map((e) => `${e.field}: ${e.message.replace(/^Invalid value: .*?: /, '')}`),
        want,
      );
    });
  }
});
