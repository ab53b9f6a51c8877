/**
 * The pod admission plugins in a running server (spec 1.6): ServiceAccount, DefaultTolerationSeconds,
 * RuntimeClass (all on by default) and AlwaysPullImages (enabled by flag), through HTTPS and real kubectl.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  ENFORCE_MOUNTABLE_SECRETS_ANNOTATION,
  MIRROR_POD_ANNOTATION,
  NODE_GROUP,
  ROOT_CA_CONFIGMAP,
  SA_TOKEN_MOUNT_PATH,
  SA_TOKEN_VOLUME_PREFIX,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_UNREACHABLE,
} from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const PODS = '/api/v1/namespaces/default/pods';
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const pod = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], ...spec },
});
const TOKEN_VOLUME_NAME = new RegExp(`^${SA_TOKEN_VOLUME_PREFIX.replace(/[.]/g, '\\.')}[bcdfghjklmnpqrstvwxz2456789]{5}$`);
const notReady = { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable = { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

describe('pod admission plugins with the default set (spec 1.6)', () => {
  let server: RunningServer;
  let dir: string;
  let call: ReturnType<typeof client>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-admission-pods-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (body: unknown, want = 201) => {
    const r = await call('POST', PODS, { body });
    assert.equal(r.status, want, r.text);
    return r.json;
  };

  it('reference behaviour (ServiceAccount): a pod gets `default` and the projected token volume, read-only in every container', async () => {
    const p = await create(pod('web', { initContainers: [{ name: 'init', image: 'busybox:1.36' }] }));
    assert.equal(p.spec.serviceAccountName, 'default');
    assert.equal(p.spec.serviceAccount, 'default');
    assert.equal(p.spec.volumes.length, 1);
    const vol = p.spec.volumes[0];
    assert.match(vol.name, TOKEN_VOLUME_NAME);
    assert.deepEqual(vol.projected, {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    });
    const mount = { name: vol.name, readOnly: true, mountPath: SA_TOKEN_MOUNT_PATH };
    assert.deepEqual(p.spec.containers[0].volumeMounts, [mount]);
    assert.deepEqual(p.spec.initContainers[0].volumeMounts, [mount]);
    // The stored pod is what the response showed.
    assert.deepEqual((await call('GET', `${PODS}/web`)).json.spec.volumes, p.spec.volumes);
  });

  it('reference behaviour (ServiceAccount): a missing account is 403 and nothing is stored; an account\'s settings apply, the pod\'s win', async () => {
    const r = await call('POST', PODS, { body: pod('lost', { serviceAccountName: 'ghost' }) });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'pods "lost" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
    assert.equal((await call('GET', `${PODS}/lost`)).status, 404);

    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] };
    assert.equal((await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: sa })).status, 201);
    const quiet = await create(pod('quiet', { serviceAccountName: 'robot' }));
    assert.equal(quiet.spec.volumes, undefined);
    assert.equal(quiet.spec.containers[0].volumeMounts, undefined);
    assert.deepEqual(quiet.spec.imagePullSecrets, [{ name: 'registry' }]);
    const loud = await create(pod('loud', { serviceAccountName: 'robot', automountServiceAccountToken: true, imagePullSecrets: [{ name: 'own' }] }));
    assert.match(loud.spec.volumes[0].name, TOKEN_VOLUME_NAME);
    assert.deepEqual(loud.spec.imagePullSecrets, [{ name: 'own' }]);
  });

  it('reference behaviour (ServiceAccount): updates cannot change the account; an unchanged PUT passes', async () => {
    const cur = (await call('GET', `${PODS}/quiet`)).json;
    const changed = await call('PUT', `${PODS}/quiet`, { body: { ...cur, spec: { ...cur.spec, serviceAccountName: 'default', serviceAccount: 'default' } } });
    assert.equal(changed.status, 422, changed.text);
    assert.match(changed.json.message, /pod updates may not change fields/);
    assert.equal((await call('GET', `${PODS}/quiet`)).json.spec.serviceAccountName, 'robot');
    const same = await call('PUT', `${PODS}/quiet`, { body: cur });
    assert.equal(same.status, 200, same.text);
  });

  it('reference behaviour (ServiceAccount): mirror pods keep their spec and may not reference an account or secrets', async () => {
    const mirror = { [MIRROR_POD_ANNOTATION]: 'static' };
    const plain = await create(pod('static-a', {}, mirror));
    assert.equal(plain.spec.serviceAccountName, undefined);
    assert.equal(plain.spec.volumes, undefined);
    const named = await call('POST', PODS, { body: pod('static-b', { serviceAccountName: 'robot' }, mirror) });
    assert.equal(named.status, 403, named.text);
    assert.equal(named.json.message, 'pods "static-b" is forbidden: a mirror pod may not reference service accounts');
    const secret = await call('POST', PODS, { body: pod('static-c', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }, mirror) });
    assert.equal(secret.status, 403, secret.text);
    assert.equal(secret.json.message, 'pods "static-c" is forbidden: a mirror pod may not reference secrets');
  });

  it('reference behaviour (ServiceAccount): an account enforcing mountable secrets limits pods and added ephemeral containers', async () => {
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'strict', annotations: { [ENFORCE_MOUNTABLE_SECRETS_ANNOTATION]: 'true' } }, secrets: [{ name: 'allowed' }] };
    assert.equal((await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: sa })).status, 201);
    const bad = await call('POST', PODS, { body: pod('leaky', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'other' } }] }) });
    assert.equal(bad.status, 403, bad.text);
    assert.equal(bad.json.message, 'pods "leaky" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
    await create(pod('tight', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'allowed' } }] }));
    const debug = (secret: string) => ({ spec: { ephemeralContainers: [{ name: `dbg-${secret}`, image: 'busybox', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }] }] } });
    const refused = await call('PATCH', `${PODS}/tight/ephemeralcontainers`, { raw: JSON.stringify(debug('other')), headers: SMP });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json.message, 'pods "tight" is forbidden: ephemeral container dbg-other with envVar E referencing secret.secretName="other" is not allowed because service account strict does not reference that secret');
    const allowed = await call('PATCH', `${PODS}/tight/ephemeralcontainers`, { raw: JSON.stringify(debug('allowed')), headers: SMP });
    assert.equal(allowed.status, 200, allowed.text);
  });

  it('reference behaviour (DefaultTolerationSeconds): pods tolerate not-ready and unreachable nodes for 300 s unless they say otherwise', async () => {
    const p = await create(pod('tolerant'));
    assert.deepEqual(p.spec.tolerations, [notReady, unreachable]);
    const own = { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 };
    const custom = await create(pod('impatient', { tolerations: [own] }));
    assert.deepEqual(custom.spec.tolerations, [own, unreachable]);
  });

  it('reference behaviour (RuntimeClass): the class gives overhead, node selector and tolerations; unknown classes, conflicts and stray overheads are 403', async () => {
    const rc = {
      apiVersion: `${NODE_GROUP}/v1`,
      kind: 'RuntimeClass',
      metadata: { name: 'kata' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'kata' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    };
    assert.equal((await call('POST', `/apis/${NODE_GROUP}/v1/runtimeclasses`, { body: rc })).status, 201);
    const p = await create(pod('sandboxed', { runtimeClassName: 'kata', nodeSelector: { disk: 'ssd' } }));
    assert.deepEqual(p.spec.overhead, { cpu: '250m', memory: '120Mi' });
    assert.deepEqual(p.spec.nodeSelector, { disk: 'ssd', sandbox: 'kata' });
    assert.deepEqual(p.spec.tolerations, [notReady, unreachable, { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }]);
    const table: [string, Record<string, unknown>, string][] = [
      ['nowhere', { runtimeClassName: 'gone' }, 'pod rejected: RuntimeClass "gone" not found'],
      ['clash', { runtimeClassName: 'kata', nodeSelector: { sandbox: 'gvisor' } }, 'conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = gvisor'],
      ['heavy', { runtimeClassName: 'kata', overhead: { cpu: '1' } }, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"],
      ['stray', { overhead: { cpu: '1' } }, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead'],
    ];
    for (const [name, spec, why] of table) {
      const r = await call('POST', PODS, { body: pod(name, spec) });
      assert.equal(r.status, 403, `${name}: ${r.text}`);
      assert.equal(r.json.message, `pods "${name}" is forbidden: ${why}`);
      assert.equal((await call('GET', `${PODS}/${name}`)).status, 404);
    }
  });

  it('reference behaviour: an account or class name of the wrong type is a 422 naming the field, not replaced or looked up', async () => {
    for (const field of ['serviceAccountName', 'runtimeClassName']) {
      const r = await call('POST', PODS, { body: pod('typo', { [field]: 7 }) });
      assert.equal(r.status, 422, r.text);
      assert.ok(r.json.details.causes.some((c: { field: string }) => c.field === `spec.${field}`), r.text);
      assert.equal((await call('GET', `${PODS}/typo`)).status, 404);
    }
  });

  it('reference behaviour (AlwaysPullImages): off by default, the pull policy stays as defaulted', async () => {
    const p = await create(pod('pinned'));
    assert.equal(p.spec.containers[0].imagePullPolicy, 'IfNotPresent');
  });

  it('reference behaviour (ServiceAccount): real kubectl shows the account and mount of a new pod, and the denial for a missing account', async () => {
    const k = kubectl(server.kubeconfigPath!);
    assert.match(await k(['run', 'kc', '--image=busybox:1.36']), /pod\/kc created/);
    const p = parse(await k(['get', 'pod', 'kc', '-o', 'yaml']));
    assert.equal(p.spec.serviceAccountName, 'default');
    assert.equal(p.spec.containers[0].volumeMounts[0].mountPath, SA_TOKEN_MOUNT_PATH);
    await assert.rejects(
      k(['run', 'kc-lost', '--image=busybox:1.36', '--overrides={"spec":{"serviceAccountName":"ghost"}}']),
      /pods "kc-lost" is forbidden: error looking up service account default\/ghost: serviceaccount "ghost" not found/,
    );
  });
});

describe('pod admission plugins chosen by flag (spec 1.6, 2.12)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      enableAdmissionPlugins: ['AlwaysPullImages'],
      disableAdmissionPlugins: ['ServiceAccount', 'DefaultTolerationSeconds'],
    });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour (AlwaysPullImages): every container pulls Always on create and on an update that brings a new image', async () => {
    const body = pod('pull', { initContainers: [{ name: 'init', image: 'busybox:1.36', imagePullPolicy: 'Never' }] });
    const r = await call('POST', PODS, { body });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.containers[0].imagePullPolicy, 'Always');
    assert.equal(r.json.spec.initContainers[0].imagePullPolicy, 'Always');
    const upd = await call('PATCH', `${PODS}/pull`, { raw: JSON.stringify({ spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] } }), headers: SMP });
    assert.equal(upd.status, 200, upd.text);
    assert.equal(upd.json.spec.containers[0].image, 'busybox:1.37');
    assert.equal(upd.json.spec.containers[0].imagePullPolicy, 'Always');
  });

  it('reference behaviour: with ServiceAccount and DefaultTolerationSeconds disabled a pod gets no account, token volume or tolerations', async () => {
    const r = await call('POST', PODS, { body: pod('bare') });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.serviceAccountName, undefined);
    assert.equal(r.json.spec.volumes, undefined);
    assert.equal(r.json.spec.tolerations, undefined);
  });
});
