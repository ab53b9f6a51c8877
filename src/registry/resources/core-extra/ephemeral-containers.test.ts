import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIRROR_POD_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { keepAllButEphemeralContainers, podEphemeralContainersView, validateEphemeralContainersUpdate } from './ephemeral-containers.js';

type Obj = Record<string, unknown>;
const debug = (extra: Obj = {}): Obj => ({ name: 'debug', image: 'busybox', ...extra });
const pod = (ephemeralContainers?: Obj[], meta: Obj = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { app: 'a' }, ...meta },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...(ephemeralContainers ? { ephemeralContainers } : {}) },
});
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.type]);

describe('pods/ephemeralcontainers: what a write may change', () => {
  it('reference behaviour: only spec.ephemeralContainers is taken from the request', () => {
    const old = pod();
    const body = pod([debug()], { labels: { app: 'changed' } });
    (body.spec as Obj).containers = [{ name: 'app', image: 'nginx:2' }];
    keepAllButEphemeralContainers(body, old);
    assert.deepEqual(body.metadata?.labels, { app: 'a' });
    assert.equal(((body.spec as Obj).containers as Obj[])[0]?.image, 'nginx');
    const added = ((body.spec as Obj).ephemeralContainers as Obj[])[0] as Obj;
    assert.equal(added.name, 'debug');
    assert.equal(added.terminationMessagePolicy, 'File', 'defaults apply to the new entry');
  });

  it('reference behaviour: the view shares the pods storage and adds the subresource', () => {
    assert.equal(podEphemeralContainersView.storageKey, 'core/pods');
    assert.ok(podEphemeralContainersView.subresources.includes('ephemeralcontainers'));
  });

  const cases: { name: string; old: Obj[] | undefined; now: Obj[] | undefined; want: [string, string][]; meta?: Obj }[] = [
    { name: 'an entry may be added', old: undefined, now: [debug()], want: [] },
    { name: 'entries are kept', old: [debug()], now: [debug(), debug({ name: 'd2' })], want: [] },
    { name: 'no removal', old: [debug()], now: [], want: [['spec.ephemeralContainers', 'FieldValueForbidden']] },
    { name: 'no change', old: [debug()], now: [debug({ image: 'other' })], want: [['spec.ephemeralContainers[debug]', 'FieldValueForbidden']] },
    { name: 'no ports', old: undefined, now: [debug({ ports: [{ containerPort: 80 }] })], want: [['spec.ephemeralContainers[0].ports', 'FieldValueForbidden']] },
    { name: 'no probes', old: undefined, now: [debug({ readinessProbe: { exec: { command: ['x'] } } })], want: [['spec.ephemeralContainers[0].readinessProbe', 'FieldValueForbidden']] },
    { name: 'empty resources are fine', old: undefined, now: [debug({ resources: {} })], want: [] },
    { name: 'no resources', old: undefined, now: [debug({ resources: { limits: { cpu: '1' } } })], want: [['spec.ephemeralContainers[0].resources', 'FieldValueForbidden']] },
    { name: 'no subPath', old: undefined, now: [debug({ volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] })], want: [['spec.ephemeralContainers[0].volumeMounts[0].subPath', 'FieldValueForbidden']] },
    { name: 'target must exist', old: undefined, now: [debug({ targetContainerName: 'nope' })], want: [['spec.ephemeralContainers[0].targetContainerName', 'FieldValueNotFound']] },
    { name: 'static pods have none', old: undefined, now: [debug()], meta: { annotations: { [MIRROR_POD_ANNOTATION]: 'x' } }, want: [['', 'FieldValueForbidden']] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => {
      assert.deepEqual(pairs(validateEphemeralContainersUpdate(pod(c.now), pod(c.old, c.meta ?? {}))), c.want);
    });
  }
});
