import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BATCH_LABEL_PREFIX, META_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { METRICS_ANNOTATION } from '../src/registry/resources/autoscaling/convert.js';
import { client } from './helpers/client.js';

const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs';
const HPA_V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const HPA_V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

const podTemplate = { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox:1.36' }] } };

describe('batch, autoscaling and policy types over HTTP (reference behaviour)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('a minimal Job gets the Job defaults and a selector generated from its uid', async () => {
    const r = await call('POST', JOBS, { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: podTemplate } } });
    assert.equal(r.status, 201, r.text);
    const job = r.json;
    const uid = job.metadata.uid;
    assert.ok(typeof uid === 'string' && uid.length > 0);
    assert.equal(job.spec.completions, 1);
    assert.equal(job.spec.parallelism, 1);
    assert.equal(job.spec.backoffLimit, 6);
    assert.equal(job.spec.completionMode, 'NonIndexed');
    assert.equal(job.spec.suspend, false);
    assert.equal(job.spec.manualSelector, false);
    assert.equal(job.spec.podReplacementPolicy, 'TerminatingOrFailed');
    assert.deepEqual(job.spec.selector, { matchLabels: { [`${BATCH_LABEL_PREFIX}controller-uid`]: uid } });
    const expectedLabels = {
      'controller-uid': uid,
      'job-name': 'pi',
      [`${BATCH_LABEL_PREFIX}controller-uid`]: uid,
      [`${BATCH_LABEL_PREFIX}job-name`]: 'pi',
    };
    assert.deepEqual(job.spec.template.metadata.labels, expectedLabels);
    assert.deepEqual(job.metadata.labels, expectedLabels, 'the job takes its template labels');
    assert.equal(job.spec.template.spec.dnsPolicy, 'ClusterFirst', 'pod template defaults apply');
    assert.equal(job.status, undefined);
  });

  it('the Job table shows STATUS, COMPLETIONS and DURATION', async () => {
    const r = await call('GET', JOBS, { headers: { accept: `application/json;as=Table;v=v1;g=${META_GROUP}` } });
    assert.equal(r.json.kind, 'Table', r.text);
    const names = r.json.columnDefinitions.map((c: { name: string }) => c.name);
    assert.deepEqual(names.slice(0, 4), ['Name', 'Status', 'Completions', 'Duration']);
    const row = r.json.rows.find((x: { cells: unknown[] }) => x.cells[0] === 'pi');
    assert.deepEqual(row.cells.slice(0, 4), ['pi', 'Running', '0/1', '']);
  });

  it('changing the pod template of a Job is 422 naming spec.template', async () => {
    const got = await call('GET', `${JOBS}/pi`);
    assert.equal(got.status, 200, got.text);
    const changed = structuredClone(got.json);
    changed.spec.template.spec.containers[0].image = 'busybox:1.37';
    const r = await call('PUT', `${JOBS}/pi`, { body: changed });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    const causes = r.json.details.causes.map((c: { field: string }) => c.field);
    assert.deepEqual(causes, ['spec.template']);
    assert.match(r.json.message, /field is immutable/);
  });

  it('a Job whose pods would restart Always is 422 naming spec.template.spec.restartPolicy', async () => {
    const r = await call('POST', JOBS, {
      body: { metadata: { name: 'always' }, spec: { template: { spec: { containers: [{ name: 'w', image: 'busybox' }] } } } },
    });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes.map((c: { field: string }) => c.field), ['spec.template.spec.restartPolicy']);
  });

  it('a CronJob with a bad schedule is 422 naming spec.schedule', async () => {
    const body = { metadata: { name: 'nightly' }, spec: { schedule: '61 * * * *', jobTemplate: { spec: { template: podTemplate } } } };
    const r = await call('POST', CRONJOBS, { body });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes.map((c: { field: string }) => c.field), ['spec.schedule']);
    assert.match(r.json.message, /end of range \(61\) above maximum \(59\)/);
    const good = await call('POST', CRONJOBS, { body: { ...body, spec: { ...body.spec, schedule: '@daily' } } });
    assert.equal(good.status, 201, good.text);
    assert.equal(good.json.spec.concurrencyPolicy, 'Allow');
    assert.equal(good.json.spec.successfulJobsHistoryLimit, 3);
    assert.equal(good.json.spec.failedJobsHistoryLimit, 1);
    assert.equal(good.json.spec.suspend, false);
  });

  it('an HPA created as autoscaling/v2 reads back as v1 with its CPU target and the rest in annotations', async () => {
    const r = await call('POST', HPA_V2, {
      body: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 5,
          metrics: [
            { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
            { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '200Mi' } } },
          ],
        },
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.minReplicas, 1);
    const v1 = await call('GET', `${HPA_V1}/web`);
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.json.apiVersion, 'autoscaling/v1');
    assert.equal(v1.json.spec.targetCPUUtilizationPercentage, 60);
    assert.equal(v1.json.spec.maxReplicas, 5);
    assert.equal(v1.json.metadata.resourceVersion, r.json.metadata.resourceVersion, 'one stored object');
    const others = JSON.parse(v1.json.metadata.annotations[METRICS_ANNOTATION]);
    assert.deepEqual(others, [{ type: 'Resource', resource: { name: 'memory', targetAverageValue: '200Mi' } }]);
    // A v1 update that keeps the annotation keeps the memory metric.
    v1.json.spec.targetCPUUtilizationPercentage = 70;
    const put = await call('PUT', `${HPA_V1}/web`, { body: v1.json });
    assert.equal(put.status, 200, put.text);
    const v2 = await call('GET', `${HPA_V2}/web`);
    assert.deepEqual(v2.json.spec.metrics, [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '200Mi' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
    ]);
    assert.equal(v2.json.metadata.annotations, undefined, 'the round-trip annotations are not stored');
  });

  it('an HPA created as autoscaling/v1 reads back as v2 with an explicit CPU metric', async () => {
    const r = await call('POST', HPA_V1, {
      body: { metadata: { name: 'api' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'api' }, maxReplicas: 3 } },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.apiVersion, 'autoscaling/v1');
    assert.equal(r.json.spec.targetCPUUtilizationPercentage, 80);
    const v2 = await call('GET', `${HPA_V2}/api`);
    assert.equal(v2.status, 200, v2.text);
    assert.equal(v2.json.apiVersion, 'autoscaling/v2');
    assert.equal(v2.json.spec.minReplicas, 1);
    assert.deepEqual(v2.json.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    const list = await call('GET', HPA_V1);
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['api', 'web']);
  });

  it('an HPA without a target name or with maxReplicas below minReplicas is 422', async () => {
    const r = await call('POST', HPA_V2, { body: { metadata: { name: 'bad' }, spec: { scaleTargetRef: { kind: 'Deployment' }, minReplicas: 4, maxReplicas: 2 } } });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.json.details.causes.map((c: { field: string }) => c.field).sort(), ['spec.maxReplicas', 'spec.scaleTargetRef.name']);
  });

  it('a PodDisruptionBudget with both minAvailable and maxUnavailable is 422; one of them is fine', async () => {
    const bad = await call('POST', PDBS, { body: { metadata: { name: 'both' }, spec: { minAvailable: 1, maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } } } });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(bad.json.details.causes.map((c: { field: string }) => c.field), ['spec']);
    const good = await call('POST', PDBS, { body: { metadata: { name: 'web' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } } } });
    assert.equal(good.status, 201, good.text);
  });
});
