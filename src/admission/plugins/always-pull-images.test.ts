import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest } from '../testing/contract.js';
import type { AdmissionRequest } from '../types.js';
import { AlwaysPullImagesPlugin, onlyKnownImages } from './always-pull-images.js';

type Obj = Record<string, unknown>;
const POD = { group: '', version: 'v1', resource: 'pods' };
const spec = (image = 'app:1', policy = 'IfNotPresent'): Obj => ({
  initContainers: [{ name: 'init', image: 'init:1', imagePullPolicy: policy }],
  containers: [{ name: 'c', image, imagePullPolicy: policy }],
  ephemeralContainers: [{ name: 'debug', image: 'busybox:1', imagePullPolicy: 'Never' }],
});
const podWrite = (s: Obj, over: Partial<AdmissionRequest> = {}): AdmissionRequest =>
  admissionRequest({ operation: 'CREATE', name: 'p', resource: POD, kind: { group: '', version: 'v1', kind: 'Pod' }, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: s }, ...over });
const policies = (req: AdmissionRequest) =>
  ['initContainers', 'containers', 'ephemeralContainers'].map((l) => ((req.object?.spec as Obj)[l] as Obj[])[0]!.imagePullPolicy);

admissionPluginContract('AlwaysPullImages', {
  make: () => new AlwaysPullImagesPlugin(),
  cases: [
    { title: 'a new pod', request: () => podWrite(spec()) },
    { title: 'an update with a new image', request: () => podWrite(spec('app:2'), { operation: 'UPDATE', oldObject: { metadata: { name: 'p' }, spec: spec() } }) },
  ],
});

test('reference behaviour (AlwaysPullImages): every container, init and ephemeral ones included, pulls Always on create', () => {
  const req = podWrite(spec());
  new AlwaysPullImagesPlugin().admit(req);
  assert.deepEqual(policies(req), ['Always', 'Always', 'Always']);
});

test('reference behaviour (AlwaysPullImages): updates change the policy only when they bring an image the pod did not have', () => {
  const p = new AlwaysPullImagesPlugin();
  const same = podWrite(spec(), { operation: 'UPDATE', oldObject: { metadata: { name: 'p' }, spec: spec() } });
  p.admit(same);
  p.validate(same);
  assert.deepEqual(policies(same), ['IfNotPresent', 'IfNotPresent', 'Never']);
  const fresh = podWrite(spec('app:2'), { operation: 'UPDATE', oldObject: { metadata: { name: 'p' }, spec: spec() } });
  p.admit(fresh);
  assert.deepEqual(policies(fresh), ['Always', 'Always', 'Always']);
  const table: [string, Obj, Obj, boolean][] = [
    ['same images', spec(), spec(), true],
    ['an image moved between containers', { containers: [{ image: 'init:1' }] }, spec(), true],
    ['a changed tag', spec('app:2'), spec(), false],
  ];
  for (const [what, now, before, want] of table) assert.equal(onlyKnownImages(now, before), want, what);
});

test('reference behaviour (AlwaysPullImages): the validating stage refuses a policy other than Always with each field named (403)', () => {
  const req = podWrite(spec());
  const e = (() => {
    try {
      new AlwaysPullImagesPlugin().validate(req);
    } catch (err) {
      return err;
    }
    return undefined;
  })();
  assert.ok(e instanceof StatusError);
  assert.equal(e.code, 403);
  assert.equal(
    e.message,
    'pods "p" is forbidden: [spec.initContainers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
      'spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always", ' +
      'spec.ephemeralContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always"]',
  );
  const one = podWrite({ containers: [{ name: 'c', image: 'x' }] });
  assert.throws(() => new AlwaysPullImagesPlugin().validate(one), { message: 'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "": supported values: "Always"' });
  const ok = podWrite(spec('app:1', 'Always'));
  ((ok.object?.spec as Obj).ephemeralContainers as Obj[])[0]!.imagePullPolicy = 'Always';
  assert.doesNotThrow(() => new AlwaysPullImagesPlugin().validate(ok));
  // Subresource writes are not the plugin's.
  assert.doesNotThrow(() => new AlwaysPullImagesPlugin().validate(podWrite(spec(), { subResource: 'ephemeralcontainers', operation: 'UPDATE' })));
});
