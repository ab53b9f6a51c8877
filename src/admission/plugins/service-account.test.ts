import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENFORCE_MOUNTABLE_SECRETS_ANNOTATION, MIRROR_POD_ANNOTATION, ROOT_CA_CONFIGMAP, SA_TOKEN_MOUNT_PATH, SA_TOKEN_VOLUME_PREFIX } from '../../api/naming.js';
import type { ApiObject } from '../../api/types.js';
import { StatusError } from '../../errors/index.js';
import { admissionPluginContract, admissionRequest, fixedObjects } from '../testing/contract.js';
import type { AdmissionRequest, ObjectReader } from '../types.js';
import { podSecretNames } from './service-account-secrets.js';
import { mountToken, randomSuffix, ServiceAccountPlugin, shouldAutomount, tokenVolume } from './service-account.js';

type Obj = Record<string, unknown>;
const VOLUME = `${SA_TOKEN_VOLUME_PREFIX}abcde`;
const MOUNT = { name: VOLUME, readOnly: true, mountPath: SA_TOKEN_MOUNT_PATH };
const sa = (name: string, extra: Obj = {}, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) }, ...extra,
});
const accounts = [
  sa('builder', { imagePullSecrets: [{ name: 'registry' }] }),
  sa('quiet', { automountServiceAccountToken: false }),
  sa('strict', { secrets: [{ name: 'allowed' }], imagePullSecrets: [{ name: 'pull' }] }, { [ENFORCE_MOUNTABLE_SECRETS_ANNOTATION]: 'true' }),
];
const reader = (withPeek = true, list = accounts) => fixedObjects({ '/serviceaccounts': list }, withPeek);
const plugin = (objects: ObjectReader = reader(), assumeDefaultAccount = true) => new ServiceAccountPlugin(objects, { assumeDefaultAccount, suffix: () => 'abcde' });
const podWrite = (spec: Obj, over: Partial<AdmissionRequest> = {}, annotations?: Record<string, string>): AdmissionRequest =>
  admissionRequest({
    operation: 'CREATE',
    name: 'p',
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: { group: '', version: 'v1', kind: 'Pod' },
    object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
    ...over,
  });

async function outcome(req: AdmissionRequest, p = plugin()): Promise<Obj | string> {
  try {
    await p.admit(req);
    await p.validate(req);
    return req.object?.spec as Obj;
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return `${e.code} ${e.message}`;
  }
}

admissionPluginContract('ServiceAccount', {
  make: () => plugin(),
  cases: [
    { title: 'a pod naming no account', request: () => podWrite({}) },
    { title: 'a pod naming a missing account', request: () => podWrite({ serviceAccountName: 'ghost' }) },
    { title: 'a mirror pod naming an account', request: () => podWrite({ serviceAccountName: 'builder' }, {}, { [MIRROR_POD_ANNOTATION]: 'x' }) },
    { title: 'a pod of an enforcing account reading another secret', request: () => podWrite({ serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }) },
  ],
});

test('reference behaviour (ServiceAccount): a pod gets `default`, a token volume mounted read-only in every container and init container', async () => {
  const spec = await outcome(podWrite({ initContainers: [{ name: 'i', image: 'i' }], ephemeralContainers: undefined }));
  assert.equal(typeof spec, 'object', String(spec));
  const s = spec as Obj;
  assert.equal(s.serviceAccountName, 'default');
  assert.equal(s.serviceAccount, 'default');
  assert.deepEqual(s.volumes, [tokenVolume(VOLUME)]);
  assert.deepEqual((s.containers as Obj[])[0]!.volumeMounts, [MOUNT]);
  assert.deepEqual((s.initContainers as Obj[])[0]!.volumeMounts, [MOUNT]);
  assert.equal(s.imagePullSecrets, undefined);
});

test('reference behaviour (ServiceAccount): the projected volume holds the token (3607 s), the root CA ConfigMap and the namespace', () => {
  assert.deepEqual(tokenVolume('v'), {
    name: 'v',
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  });
  assert.match(randomSuffix(), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

test('reference behaviour (ServiceAccount): automount follows the pod, then the account, then defaults to true', () => {
  const table: [string, Obj, Obj, boolean][] = [
    ['neither says', {}, {}, true],
    ['the account says no', {}, { automountServiceAccountToken: false }, false],
    ['the pod says yes over the account', { automountServiceAccountToken: true }, { automountServiceAccountToken: false }, true],
    ['the pod says no', { automountServiceAccountToken: false }, {}, false],
  ];
  for (const [what, spec, account, want] of table) assert.equal(shouldAutomount(account as ApiObject, spec), want, what);
});

test('reference behaviour (ServiceAccount): existing mounts at the path and an existing token volume are respected', () => {
  const spec: Obj = {
    containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: SA_TOKEN_MOUNT_PATH }] }, { name: 'b' }],
    volumes: [{ name: `${SA_TOKEN_VOLUME_PREFIX}zzzzz`, emptyDir: {} }],
  };
  mountToken(spec, () => 'abcde');
  assert.deepEqual((spec.containers as Obj[])[0]!.volumeMounts, [{ name: 'mine', mountPath: SA_TOKEN_MOUNT_PATH }]);
  assert.deepEqual((spec.containers as Obj[])[1]!.volumeMounts, [{ name: `${SA_TOKEN_VOLUME_PREFIX}zzzzz`, readOnly: true, mountPath: SA_TOKEN_MOUNT_PATH }]);
  assert.equal((spec.volumes as Obj[]).length, 1);
  const allMounted: Obj = { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: SA_TOKEN_MOUNT_PATH }] }] };
  mountToken(allMounted, () => 'abcde');
  assert.equal(allMounted.volumes, undefined, 'no volume when no container needs it');
});

test('reference behaviour (ServiceAccount): accounts, pull secrets, automount and missing accounts on create', async () => {
  const table: [string, () => AdmissionRequest, (r: Obj | string) => unknown, unknown][] = [
    ['the account\'s pull secrets are copied', () => podWrite({ serviceAccountName: 'builder' }), (r) => (r as Obj).imagePullSecrets, [{ name: 'registry' }]],
    ['the pod\'s own pull secrets are kept', () => podWrite({ serviceAccountName: 'builder', imagePullSecrets: [{ name: 'own' }] }), (r) => (r as Obj).imagePullSecrets, [{ name: 'own' }]],
    ['an account without automount mounts nothing', () => podWrite({ serviceAccountName: 'quiet' }), (r) => (r as Obj).volumes, undefined],
    ['a missing account is 403', () => podWrite({ serviceAccountName: 'ghost' }), (r) => r,
      '403 pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found'],
  ];
  for (const [what, req, pick, want] of table) {
    assert.deepEqual(pick(await outcome(req())), want, what);
    assert.deepEqual(pick(await outcome(req(), plugin(reader(false)))), want, `${what} (no peek)`);
  }
});

test('reference behaviour (ServiceAccount): a missing `default` account is assumed only while no controller creates it', async () => {
  const assumed = await outcome(podWrite({}), plugin(reader(true, [])));
  assert.equal((assumed as Obj).serviceAccountName, 'default');
  assert.equal(((assumed as Obj).volumes as Obj[]).length, 1);
  assert.equal(await outcome(podWrite({}), plugin(reader(true, []), false)),
    '403 pods "p" is forbidden: error looking up service account default/default: serviceaccount "default" not found');
  // A stored default account's settings win over the assumption.
  const quietDefault = await outcome(podWrite({}), plugin(reader(true, [sa('default', { automountServiceAccountToken: false })])));
  assert.equal((quietDefault as Obj).volumes, undefined);
});

test('reference behaviour (ServiceAccount): mirror pods are not changed and may not reference accounts, secrets or token projections', async () => {
  const mirror = (spec: Obj) => podWrite(spec, {}, { [MIRROR_POD_ANNOTATION]: 'hash' });
  const plain = await outcome(mirror({}));
  assert.equal((plain as Obj).serviceAccountName, undefined);
  assert.equal((plain as Obj).volumes, undefined);
  const table: [string, Obj, string][] = [
    ['an account', { serviceAccountName: 'builder' }, 'a mirror pod may not reference service accounts'],
    ['a secret volume', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }, 'a mirror pod may not reference secrets'],
    ['a secret in the environment', { containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }] }, 'a mirror pod may not reference secrets'],
    ['a token projection', { volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, 'a mirror pod may not use ServiceAccountToken volume projections'],
  ];
  for (const [what, spec, why] of table) assert.equal(await outcome(mirror(spec)), `403 pods "p" is forbidden: ${why}`, what);
});

test('reference behaviour (ServiceAccount): an account enforcing mountable secrets limits volumes, environments and pull secrets', async () => {
  const strict = (spec: Obj) => podWrite({ serviceAccountName: 'strict', automountServiceAccountToken: false, imagePullSecrets: [{ name: 'pull' }], ...spec });
  const table: [string, Obj, string | undefined][] = [
    ['listed secrets', { volumes: [{ name: 'a', secret: { secretName: 'allowed' } }] }, undefined],
    ['a volume of another secret', { volumes: [{ name: 'a', secret: { secretName: 'other' } }] },
      'volume with secret.secretName="other" is not allowed because service account strict does not reference that secret'],
    ['an environment variable of another secret', { containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] },
      'container c with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'],
    ['an init container\'s', { initContainers: [{ name: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] },
      'init container i with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'],
    ['another pull secret', { imagePullSecrets: [{ name: 'pull' }, { name: 'else' }] },
      'imagePullSecrets[1].name="else" is not allowed because service account strict does not reference that imagePullSecret'],
  ];
  for (const [what, spec, why] of table) {
    const got = await outcome(strict(spec));
    assert.equal(typeof got === 'string' ? got : 'admitted', why === undefined ? 'admitted' : `403 pods "p" is forbidden: ${why}`, what);
  }
});

test('reference behaviour (ServiceAccount): adding ephemeral containers needs the account to exist and allow their secrets; other updates pass', async () => {
  const eph = (spec: Obj) => podWrite(spec, { operation: 'UPDATE', subResource: 'ephemeralcontainers' });
  const env = (secret: string) => ({ ephemeralContainers: [{ name: 'dbg', image: 'b', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }] }] });
  const table: [string, AdmissionRequest, string | undefined][] = [
    ['no account', eph({}), 'no service account specified for pod default/p'],
    ['a missing account', eph({ serviceAccountName: 'ghost' }), 'error looking up service account default/ghost: serviceaccount "ghost" not found'],
    ['an allowed secret', eph({ serviceAccountName: 'strict', ...env('allowed') }), undefined],
    ['another secret', eph({ serviceAccountName: 'strict', ...env('other') }),
      'ephemeral container dbg with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret'],
    ['a plain update is not checked', podWrite({ serviceAccountName: 'ghost' }, { operation: 'UPDATE' }), undefined],
  ];
  for (const [what, req, why] of table) {
    const p = plugin();
    let got: string | undefined;
    try {
      await p.admit(req);
      await p.validate(req);
    } catch (e) {
      assert.ok(e instanceof StatusError);
      got = e.message;
    }
    assert.equal(got, why === undefined ? undefined : `pods "p" is forbidden: ${why}`, what);
  }
});

test('reference behaviour (ServiceAccount): every secret a pod references is found', () => {
  const spec: Obj = {
    imagePullSecrets: [{ name: 'pull' }],
    containers: [{ envFrom: [{ secretRef: { name: 'from' } }], env: [{ valueFrom: { secretKeyRef: { name: 'key' } } }] }],
    volumes: [
      { secret: { secretName: 'vol' } },
      { azureFile: { secretName: 'azure' } },
      { csi: { nodePublishSecretRef: { name: 'csi' } } },
      { rbd: { secretRef: { name: 'rbd' } } },
      { projected: { sources: [{ secret: { name: 'proj' } }] } },
    ],
  };
  assert.deepEqual(podSecretNames(spec), ['pull', 'from', 'key', 'vol', 'azure', 'csi', 'rbd', 'proj']);
});
