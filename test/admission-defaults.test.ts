import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DEFAULT_INGRESS_CLASS_ANNOTATION,
  DEFAULT_STORAGE_CLASS_ANNOTATION,
  LIMIT_RANGER_ANNOTATION,
  NETWORKING_GROUP,
  STORAGE_GROUP,
} from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const NS = 'bounded';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const CLAIMS = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const STORAGE_CLASSES = `/apis/${STORAGE_GROUP}/v1/storageclasses`;
const INGRESS_CLASSES = `/apis/${NETWORKING_GROUP}/v1/ingressclasses`;
const INGRESSES = `/apis/${NETWORKING_GROUP}/v1/namespaces/${NS}/ingresses`;

const pod = (name: string, resources?: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'busybox', ...(resources ? { resources } : {}) }] },
});
const claim = (name: string, storage: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...spec },
});
const defaultAnnotation = (key: string) => ({ [key]: 'true' });

describe('built-in defaulting admission plugins in a running server (spec 1.6)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-admission-defaults-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
    const limits = {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'bounds' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '1' }, min: { cpu: '100m' }, default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '200m' } },
          { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } },
        ],
      },
    };
    const r = await call('POST', `/api/v1/namespaces/${NS}/limitranges`, { body: limits });
    assert.equal(r.status, 201, r.text);
  });
  after(() => server.close());

  it('reference behaviour (LimitRanger): a pod without resources gets the container defaults, the annotation saying so, and the QoS class they give', async () => {
    const r = await call('POST', PODS, { body: pod('plain') });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.containers[0].resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '200m', memory: '128Mi' } });
    assert.equal(r.json.metadata.annotations[LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
    // The QoS class follows the resources admission gave the pod, as the reference computes it after admission.
    assert.equal(r.json.status.qosClass, 'Burstable');
  });

  it('reference behaviour (LimitRanger): a container over the max or under the min is 403 with the reference message and is not stored', async () => {
    const table: [string, Record<string, unknown>, string][] = [
      ['greedy', { limits: { cpu: '2' } }, `pods "greedy" is forbidden: maximum cpu usage per Container is 1, but limit is 2`],
      ['meagre', { requests: { cpu: '50m' }, limits: { cpu: '50m' } }, `pods "meagre" is forbidden: minimum cpu usage per Container is 100m, but request is 50m`],
    ];
    for (const [name, resources, message] of table) {
      const r = await call('POST', PODS, { body: pod(name, resources) });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.reason, 'Forbidden');
      assert.equal(r.json.message, message);
      assert.equal((await call('GET', `${PODS}/${name}`)).status, 404);
    }
  });

  it('reference behaviour (LimitRanger): kubectl shows the 403 for a pod over the bound', async () => {
    const k = kubectl(server.kubeconfigPath!);
    const manifest = JSON.stringify(pod('kubectl-greedy', { limits: { cpu: '3' } }));
    await assert.rejects(k(['create', '-n', NS, '-f', '-'], manifest), /pods "kubectl-greedy" is forbidden: maximum cpu usage per Container is 1, but limit is 3/);
  });

  it('reference behaviour (LimitRanger): claims must request storage inside the bounds on create and on resize (PATCH is an UPDATE)', async () => {
    const small = await call('POST', CLAIMS, { body: claim('small', '100Mi') });
    assert.equal(small.status, 403, small.text);
    assert.equal(small.json.message, 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 100Mi');
    // PersistentVolumeClaimResize lets a claim grow only when its class allows expansion.
    const expandable = { apiVersion: `${STORAGE_GROUP}/v1`, kind: 'StorageClass', metadata: { name: 'manual' }, provisioner: 'example.com/manual', allowVolumeExpansion: true };
    assert.equal((await call('POST', STORAGE_CLASSES, { body: expandable })).status, 201);
    const ok = await call('POST', CLAIMS, { body: claim('fits', '5Gi', { storageClassName: 'manual' }) });
    assert.equal(ok.status, 201, ok.text);
    // Only a bound claim may be resized.
    const bound = await call('PUT', `${CLAIMS}/fits/status`, { body: { ...ok.json, status: { phase: 'Bound', capacity: { storage: '5Gi' } } } });
    assert.equal(bound.status, 200, bound.text);
    const within = await call('PATCH', `${CLAIMS}/fits`, {
      raw: JSON.stringify({ spec: { resources: { requests: { storage: '8Gi' } } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(within.status, 200, within.text);
    const grow = await call('PATCH', `${CLAIMS}/fits`, {
      raw: JSON.stringify({ spec: { resources: { requests: { storage: '20Gi' } } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(grow.status, 403, grow.text);
    assert.equal(grow.json.message, 'persistentvolumeclaims "fits" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
    assert.equal((await call('GET', `${CLAIMS}/fits`)).json.spec.resources.requests.storage, '8Gi');
  });

  it('reference behaviour (DefaultStorageClass): a claim without a class gets the newest default class; an empty class stays empty', async () => {
    const none = await call('POST', CLAIMS, { body: claim('before-any-default', '2Gi') });
    assert.equal(none.status, 201, none.text);
    assert.equal(none.json.spec.storageClassName, undefined);
    const sc = (name: string, annotations: Record<string, string> = {}) => ({ apiVersion: `${STORAGE_GROUP}/v1`, kind: 'StorageClass', metadata: { name, annotations }, provisioner: 'example.com/disk' });
    assert.equal((await call('POST', STORAGE_CLASSES, { body: sc('z-older', defaultAnnotation(DEFAULT_STORAGE_CLASS_ANNOTATION)) })).status, 201);
    // Creation times have whole-second resolution: the second default must be visibly newer.
    await sleep(1100);
    assert.equal((await call('POST', STORAGE_CLASSES, { body: sc('a-newer', defaultAnnotation(DEFAULT_STORAGE_CLASS_ANNOTATION)) })).status, 201);
    assert.equal((await call('POST', STORAGE_CLASSES, { body: sc('plain') })).status, 201);
    const defaulted = await call('POST', CLAIMS, { body: claim('defaulted', '2Gi') });
    assert.equal(defaulted.status, 201, defaulted.text);
    assert.equal(defaulted.json.spec.storageClassName, 'a-newer');
    const explicit = await call('POST', CLAIMS, { body: claim('explicit', '2Gi', { storageClassName: 'plain' }) });
    assert.equal(explicit.json.spec.storageClassName, 'plain');
    const empty = await call('POST', CLAIMS, { body: claim('classless', '2Gi', { storageClassName: '' }) });
    assert.equal(empty.status, 201, empty.text);
    assert.equal(empty.json.spec.storageClassName, '');
  });

  it('reference behaviour (DefaultIngressClass): an ingress without a class gets the default IngressClass', async () => {
    const ing = (name: string, spec: Record<string, unknown> = {}) => ({
      apiVersion: `${NETWORKING_GROUP}/v1`,
      kind: 'Ingress',
      metadata: { name },
      spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
    });
    const before = await call('POST', INGRESSES, { body: ing('early') });
    assert.equal(before.status, 201, before.text);
    assert.equal(before.json.spec.ingressClassName, undefined);
    const ic = (name: string, annotations: Record<string, string> = {}) => ({ apiVersion: `${NETWORKING_GROUP}/v1`, kind: 'IngressClass', metadata: { name, annotations }, spec: { controller: 'example.com/ingress' } });
    assert.equal((await call('POST', INGRESS_CLASSES, { body: ic('edge', defaultAnnotation(DEFAULT_INGRESS_CLASS_ANNOTATION)) })).status, 201);
    assert.equal((await call('POST', INGRESS_CLASSES, { body: ic('internal') })).status, 201);
    const defaulted = await call('POST', INGRESSES, { body: ing('late') });
    assert.equal(defaulted.status, 201, defaulted.text);
    assert.equal(defaulted.json.spec.ingressClassName, 'edge');
    const explicit = await call('POST', INGRESSES, { body: ing('chosen', { ingressClassName: 'internal' }) });
    assert.equal(explicit.json.spec.ingressClassName, 'internal');
  });
});
