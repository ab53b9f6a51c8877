import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { CONDITIONS_ANNOTATION, CURRENT_METRICS_ANNOTATION, METRICS_ANNOTATION } from './convert.js';
import { applyHpaV1Defaults, applyHpaV2Defaults } from './defaults.js';
import { hpaV1, hpaV2, HPA_STORAGE_KEY } from './index.js';
import { formatTargets, hpaColumns } from './table.js';
import { validateHpa } from './validation.js';

type Obj = Record<string, any>;
const pairs = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const ref = { kind: 'Deployment', name: 'web' };
const hpa = (spec: Obj, status?: Obj): ApiObject => ({ metadata: { name: 'web' }, spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec }, ...(status ? { status } : {}) });
const resource = (name: string, target: Obj) => ({ type: 'Resource', resource: { name, target } });

describe('HorizontalPodAutoscaler defaults (reference behaviour)', () => {
  it('v2: minReplicas 1 and 80% CPU when no metric is named; no behavior unless given', () => {
    const o = hpa({});
    applyHpaV2Defaults(o);
    const spec = o.spec as Obj;
    assert.equal(spec.minReplicas, 1);
    assert.deepEqual(spec.metrics, [resource('cpu', { type: 'Utilization', averageUtilization: 80 })]);
    assert.equal(spec.behavior, undefined);
  });

  it('v2: a given behavior is completed rule by rule; the scale-down window is left to the controller', () => {
    const o = hpa({ behavior: { scaleDown: { selectPolicy: 'Min' } } });
    applyHpaV2Defaults(o);
    assert.deepEqual((o.spec as Obj).behavior, {
      scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
    });
  });

  it('v2: explicit values stay', () => {
    const behavior = { scaleUp: { stabilizationWindowSeconds: 30, selectPolicy: 'Disabled', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    const o = hpa({ minReplicas: 3, metrics: [resource('memory', { type: 'AverageValue', averageValue: '1Gi' })], behavior: structuredClone(behavior) });
    applyHpaV2Defaults(o);
    const spec = o.spec as Obj;
    assert.equal(spec.minReplicas, 3);
    assert.equal(spec.metrics.length, 1);
    assert.deepEqual(spec.behavior.scaleUp, behavior.scaleUp);
  });

  it('v1: only minReplicas (the CPU target is implied by the conversion)', () => {
    const o = hpa({});
    applyHpaV1Defaults(o);
    assert.deepEqual(o.spec, { scaleTargetRef: ref, maxReplicas: 5, minReplicas: 1 });
  });
});

describe('HorizontalPodAutoscaler validation (reference behaviour)', () => {
  const cases: [string, ApiObject, string[]][] = [
    ['a valid autoscaler', hpa({ minReplicas: 1, metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 50 })] }), []],
    ['scaleTargetRef kind and name are required', { spec: { maxReplicas: 1 } }, ['FieldValueRequired spec.scaleTargetRef.kind', 'FieldValueRequired spec.scaleTargetRef.name']],
    ['a target name that is not a path segment', hpa({ scaleTargetRef: { kind: 'Deployment', name: 'a/b' } }), ['FieldValueInvalid spec.scaleTargetRef.name']],
    ['maxReplicas must be at least 1', hpa({ maxReplicas: 0 }), ['FieldValueInvalid spec.maxReplicas']],
    ['minReplicas must be at least 1', hpa({ minReplicas: 0 }), ['FieldValueInvalid spec.minReplicas']],
    ['maxReplicas below minReplicas', hpa({ minReplicas: 6 }), ['FieldValueInvalid spec.maxReplicas']],
    ['a metric of unknown type', hpa({ metrics: [{ type: 'Magic' }] }), ['FieldValueNotSupported spec.metrics[0].type']],
    ['a metric without its source', hpa({ metrics: [{ type: 'Pods' }] }), ['FieldValueRequired spec.metrics[0].pods']],
    ['a metric with two sources', hpa({ metrics: [{ ...resource('cpu', { type: 'Utilization', averageUtilization: 5 }), pods: { metric: { name: 'x' }, target: { type: 'AverageValue', averageValue: '1' } } }] }), ['FieldValueForbidden spec.metrics[0].pods']],
    ['a resource target needs a utilization or a value', hpa({ metrics: [resource('cpu', { type: 'Utilization' })] }), ['FieldValueRequired spec.metrics[0].resource.target.averageUtilization']],
    ['utilization must be positive', hpa({ metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 0 })] }), ['FieldValueInvalid spec.metrics[0].resource.target.averageUtilization']],
    ['an unknown resource name', hpa({ metrics: [resource('gpu', { type: 'AverageValue', averageValue: '1' })] }), ['FieldValueInvalid spec.metrics[0].resource.name']],
    ['an unknown target type', hpa({ metrics: [resource('cpu', { type: 'Most', averageUtilization: 5 })] }), ['FieldValueInvalid spec.metrics[0].resource.target.type']],
    ['a pods metric needs an average value', hpa({ metrics: [{ type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue' } } }] }), ['FieldValueRequired spec.metrics[0].pods.target.averageValue']],
    ['an external metric may not set both values', hpa({ metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1', averageValue: '2' } } }] }), ['FieldValueForbidden spec.metrics[0].external.target.value']],
    ['a quantity must be positive', hpa({ metrics: [resource('memory', { type: 'AverageValue', averageValue: '0' })] }), ['FieldValueInvalid spec.metrics[0].resource.target.averageValue']],
    ['behavior rules', hpa({ behavior: { scaleUp: { stabilizationWindowSeconds: 4000, selectPolicy: 'Any', policies: [{ type: 'Nodes', value: 0, periodSeconds: 2000 }] }, scaleDown: { policies: [] } } }), [
      'FieldValueInvalid spec.behavior.scaleUp.stabilizationWindowSeconds',
      'FieldValueNotSupported spec.behavior.scaleUp.selectPolicy',
      'FieldValueNotSupported spec.behavior.scaleUp.policies[0].type',
      'FieldValueInvalid spec.behavior.scaleUp.policies[0].value',
      'FieldValueInvalid spec.behavior.scaleUp.policies[0].periodSeconds',
      'FieldValueRequired spec.behavior.scaleDown.policies',
    ]],
  ];
  for (const [title, o, want] of cases) {
    it(title, () => assert.deepEqual(pairs(validateHpa(o)), want));
  }

  it('the v1 view is validated as the reference does, on its v2 form', () => {
    assert.deepEqual(pairs(hpaV1.strategy.validate(hpa({ targetCPUUtilizationPercentage: 0 }))), ['FieldValueInvalid spec.metrics[0].resource.target.averageUtilization']);
    assert.deepEqual(pairs(hpaV1.strategy.validate(hpa({ targetCPUUtilizationPercentage: 50 }))), []);
  });
});

describe('HorizontalPodAutoscaler views (reference behaviour)', () => {
  it('both versions share one storage; v2 is the stored form', () => {
    assert.equal(hpaV1.storageKey, HPA_STORAGE_KEY);
    assert.equal(hpaV2.storageKey, HPA_STORAGE_KEY);
    assert.equal(hpaV2.toStorage, undefined);
    assert.equal(hpaV1.toStorage?.(hpa({})).apiVersion, 'autoscaling/v2');
    assert.deepEqual([hpaV1.shortNames, hpaV1.categories], [['hpa'], ['all']]);
  });

  it('v1 create drops status and the status annotations a client sent', () => {
    const o = hpa({}, { currentReplicas: 3 });
    o.metadata = { name: 'web', annotations: { [CURRENT_METRICS_ANNOTATION]: '[]', [METRICS_ANNOTATION]: '[]', other: 'x' } };
    hpaV1.strategy.prepareForCreate?.(o);
    assert.equal(o.status, undefined);
    assert.deepEqual(o.metadata?.annotations, { [METRICS_ANNOTATION]: '[]', other: 'x' });
    assert.equal((o.spec as Obj).minReplicas, 1);
  });

  it('v1 update keeps the stored status with its annotations; a v1 status write keeps the stored spec', () => {
    const old = hpa({ minReplicas: 1 }, { currentReplicas: 2, desiredReplicas: 2 });
    old.metadata = { name: 'web', annotations: { [CONDITIONS_ANNOTATION]: '[{"type":"AbleToScale","status":"True"}]', [METRICS_ANNOTATION]: '[1]' } };
    const next = hpa({ minReplicas: 2 }, { currentReplicas: 9 });
    next.metadata = { name: 'web', annotations: { [METRICS_ANNOTATION]: '[2]' } };
    hpaV1.strategy.prepareForUpdate?.(next, old);
    assert.deepEqual(next.status, old.status);
    assert.deepEqual(next.metadata?.annotations, { [METRICS_ANNOTATION]: '[2]', [CONDITIONS_ANNOTATION]: old.metadata.annotations?.[CONDITIONS_ANNOTATION] });

    const statusWrite = hpa({ minReplicas: 3 }, { currentReplicas: 4, desiredReplicas: 4 });
    statusWrite.metadata = { name: 'web', annotations: { [METRICS_ANNOTATION]: '[3]' } };
    hpaV1.strategy.prepareForStatusUpdate?.(statusWrite, old);
    assert.deepEqual(statusWrite.spec, old.spec);
    assert.deepEqual(statusWrite.status, { currentReplicas: 4, desiredReplicas: 4 });
    assert.deepEqual(statusWrite.metadata?.annotations, { [METRICS_ANNOTATION]: '[1]' });
  });
});

describe('HorizontalPodAutoscaler table (reference behaviour)', () => {
  it('TARGETS shows current/target per metric, two at most', () => {
    const cases: [Obj, Obj | undefined, string][] = [
      [{ metrics: [] }, undefined, '<none>'],
      [{ metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 80 })] }, undefined, 'cpu: <unknown>/80%'],
      [
        { metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 80 })] },
        { currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 35 } } }] },
        'cpu: 35%/80%',
      ],
      [{ metrics: [resource('memory', { type: 'AverageValue', averageValue: '1Gi' })] }, undefined, 'memory: <unknown>/1Gi'],
      [{ metrics: [{ type: 'Pods', pods: { target: { averageValue: '10' } } }] }, { currentMetrics: [{ type: 'Pods', pods: { current: { averageValue: '7' } } }] }, '7/10'],
      [{ metrics: [{ type: 'External', external: { target: { averageValue: '30' } } }] }, undefined, '<unknown>/30 (avg)'],
      [{ metrics: [{ type: 'Object', object: { target: { value: '2k' } } }] }, undefined, '<unknown>/2k'],
      [
        { metrics: [resource('cpu', { averageUtilization: 1 }), resource('memory', { averageValue: '1' }), { type: 'Pods', pods: {} }, { type: 'Pods', pods: {} }] },
        undefined,
        'cpu: <unknown>/1%, memory: <unknown>/1 + 2 more...',
      ],
    ];
    for (const [spec, status, want] of cases) assert.equal(formatTargets({ spec, ...(status ? { status } : {}) }), want);
  });

  it('REFERENCE, MINPODS, MAXPODS, REPLICAS, in the v1 view too', () => {
    const o = hpa({ minReplicas: 2 }, { currentReplicas: 3 });
    const row = (cols: typeof hpaColumns, obj: ApiObject) => cols.map((c) => c.value(obj));
    assert.deepEqual(row(hpaV2.tableColumns, o), ['Deployment/web', '<none>', '2', 5, 3]);
    assert.deepEqual(row(hpaV1.tableColumns, hpa({ targetCPUUtilizationPercentage: 50 })), ['Deployment/web', 'cpu: <unknown>/50%', '1', 5, 0]);
    assert.deepEqual(row(hpaV2.tableColumns, { spec: { scaleTargetRef: ref } }), ['Deployment/web', '<none>', '<unset>', 0, 0]);
  });
});
