import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import {
  BEHAVIOR_ANNOTATION,
  behaviorFromAnnotation,
  CONDITIONS_ANNOTATION,
  CURRENT_METRICS_ANNOTATION,
  hpaV1ToV2,
  hpaV2ToV1,
  METRICS_ANNOTATION,
} from './convert.js';
import { hpaV1ToStorage } from './index.js';

type Obj = Record<string, any>;
const meta = { name: 'web', namespace: 'default', uid: 'u', labels: { app: 'web' } };
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const cpu = (n: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: n } } });

/** A v2 object using every metric source, behavior, and a full status. */
const richV2 = (): ApiObject => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: structuredClone(meta),
  spec: {
    scaleTargetRef: ref,
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      { type: 'Pods', pods: { metric: { name: 'rps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
      { type: 'Object', object: { describedObject: { apiVersion: 'networking.example/v1', kind: 'Ingress', name: 'main' }, target: { type: 'Value', value: '2k' }, metric: { name: 'hits' } } },
      { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
      { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 }, container: 'app' } },
      cpu(60),
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }] },
      scaleDown: { selectPolicy: 'Min', policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
    },
  },
  status: {
    observedGeneration: 3,
    lastScaleTime: '2024-01-01T00:00:00Z',
    currentReplicas: 3,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 55 } } },
      { type: 'Pods', pods: { metric: { name: 'rps' }, current: { averageValue: '12' } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
  },
});

describe('HorizontalPodAutoscaler v2 -> v1 (reference behaviour)', () => {
  it('the first CPU utilization metric becomes targetCPUUtilizationPercentage, the others an annotation', () => {
    const v1 = hpaV2ToV1(richV2());
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 60 });
    const others = JSON.parse(v1.metadata?.annotations?.[METRICS_ANNOTATION] as string);
    assert.deepEqual(others, [
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '500Mi' } },
      { type: 'Pods', pods: { metricName: 'rps', targetAverageValue: '10', selector: { matchLabels: { a: 'b' } } } },
      { type: 'Object', object: { target: { kind: 'Ingress', name: 'main', apiVersion: 'networking.example/v1' }, metricName: 'hits', targetValue: '2k' } },
      { type: 'External', external: { metricName: 'queue', targetAverageValue: '30' } },
      { type: 'ContainerResource', containerResource: { name: 'cpu', targetAverageUtilization: 70, container: 'app' } },
    ]);
    assert.deepEqual(v1.metadata?.labels, meta.labels);
  });

  it('status: counts, the last CPU utilization, and current metrics and conditions as annotations', () => {
    const v1 = hpaV2ToV1(richV2());
    assert.deepEqual(v1.status, { observedGeneration: 3, lastScaleTime: '2024-01-01T00:00:00Z', currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 55 });
    const a = v1.metadata?.annotations as Record<string, string>;
    assert.deepEqual(JSON.parse(a[CURRENT_METRICS_ANNOTATION] as string), [
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 55, currentAverageValue: '120m' } },
      { type: 'Pods', pods: { metricName: 'rps', currentAverageValue: '12' } },
    ]);
    assert.deepEqual(JSON.parse(a[CONDITIONS_ANNOTATION] as string), richV2().status && (richV2().status as Obj).conditions);
  });

  it('behavior travels with the reference internal field names', () => {
    const v1 = hpaV2ToV1(richV2());
    assert.equal(
      v1.metadata?.annotations?.[BEHAVIOR_ANNOTATION],
      '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},' +
        '"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
    );
  });

  it('an object without status or extra metrics has no annotations', () => {
    const v1 = hpaV2ToV1({ metadata: { name: 'x' }, spec: { scaleTargetRef: ref, maxReplicas: 2, metrics: [cpu(50)] } });
    assert.equal(v1.metadata?.annotations, undefined);
    assert.equal(v1.status, undefined);
  });
});

describe('HorizontalPodAutoscaler v1 -> v2 (reference behaviour)', () => {
  it('a v1 object without a target means 80% CPU', () => {
    const v2 = hpaV1ToV2({ metadata: { name: 'x' }, spec: { scaleTargetRef: ref, maxReplicas: 3 } });
    assert.deepEqual((v2.spec as Obj).metrics, [cpu(80)]);
  });

  it('annotation metrics come first and the CPU target last; the annotations are consumed', () => {
    const v1: ApiObject = {
      metadata: { name: 'x', annotations: { keep: 'me', [METRICS_ANNOTATION]: '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"1Gi"}}]' } },
      spec: { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    };
    const v2 = hpaV1ToV2(v1);
    assert.deepEqual((v2.spec as Obj).metrics, [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }, cpu(50)]);
    assert.deepEqual(v2.metadata?.annotations, { keep: 'me' });
  });

  it('broken annotations are ignored', () => {
    const v1: ApiObject = { metadata: { name: 'x', annotations: { [METRICS_ANNOTATION]: 'not json', [BEHAVIOR_ANNOTATION]: '{' } }, spec: { scaleTargetRef: ref, maxReplicas: 3 } };
    const v2 = hpaV1ToV2(v1);
    assert.deepEqual((v2.spec as Obj).metrics, [cpu(80)]);
    assert.equal((v2.spec as Obj).behavior, undefined);
    assert.equal(v2.metadata?.annotations, undefined);
  });

  it('behavior annotations are read without regard to the case of field names', () => {
    assert.deepEqual(behaviorFromAnnotation('{"scaleDown":{"stabilizationWindowSeconds":30,"policies":[{"type":"Pods","value":1,"periodSeconds":60}]}}'), {
      scaleDown: { stabilizationWindowSeconds: 30, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
    });
    assert.equal(behaviorFromAnnotation('{"ScaleUp":null,"ScaleDown":null}'), undefined);
  });
});

describe('HorizontalPodAutoscaler round trips (reference behaviour)', () => {
  it('v2 -> v1 -> v2 keeps every field (metrics reordered with CPU last, as the reference does)', () => {
    const original = richV2();
    const back = hpaV1ToStorage(hpaV2ToV1(original));
    const spec = back.spec as Obj;
    const originalSpec = original.spec as Obj;
    assert.deepEqual(spec.scaleTargetRef, originalSpec.scaleTargetRef);
    assert.deepEqual([spec.minReplicas, spec.maxReplicas], [2, 10]);
    assert.deepEqual(spec.metrics, [...originalSpec.metrics.slice(0, 5), cpu(60)]);
    assert.deepEqual(spec.behavior, originalSpec.behavior);
    assert.deepEqual(back.status, original.status);
    assert.deepEqual(back.metadata, original.metadata);
  });

  it('v1 -> v2 -> v1 is exact', () => {
    const v1: ApiObject = {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x', annotations: { note: 'n' } },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 65 },
      status: { observedGeneration: 1, currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 40 },
    };
    const back = hpaV2ToV1(hpaV1ToStorage(v1));
    assert.deepEqual(back.spec, v1.spec);
    assert.deepEqual(back.status, v1.status);
    assert.deepEqual(back.metadata?.annotations?.note, 'n');
  });

  it('v1 -> v2 -> v1 keeps what the annotations carried', () => {
    const v1 = hpaV2ToV1(richV2());
    const again = hpaV2ToV1(hpaV1ToStorage(v1));
    const a = again.metadata?.annotations as Record<string, string>;
    const b = v1.metadata?.annotations as Record<string, string>;
    for (const k of [BEHAVIOR_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, METRICS_ANNOTATION]) assert.deepEqual(JSON.parse(a[k] as string), JSON.parse(b[k] as string), k);
    assert.deepEqual(again.spec, v1.spec);
    assert.deepEqual(again.status, v1.status);
  });
});
