import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMISSION_CONFIG_GROUP, PUBLIC_NAMESPACE, SCHEDULING_GROUP, SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { failsToStart, startApiserver, stopAll, tempDir } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const PC = `/apis/${SCHEDULING_GROUP}/v1/priorityclasses`;
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});

describe('admission plugins in a running server (spec 1.6)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour (NamespaceLifecycle): default, the system and the public namespace cannot be deleted; others can', async () => {
    for (const name of ['default', SYSTEM_NAMESPACE, PUBLIC_NAMESPACE]) {
      const r = await call('DELETE', `/api/v1/namespaces/${name}`);
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      assert.equal((await call('GET', `/api/v1/namespaces/${name}`)).json.metadata.deletionTimestamp, undefined);
    }
    assert.equal((await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'mortal' } } })).status, 201);
    const del = await call('DELETE', '/api/v1/namespaces/mortal');
    assert.ok(del.status === 200 || del.status === 202, del.text);
  });

  it('reference behaviour (NamespaceLifecycle): a create in a missing namespace is 404 for the namespace, before the object is validated', async () => {
    const r = await call('POST', '/api/v1/namespaces/absent/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid' } } });
    assert.equal(r.status, 404, r.text);
    assert.equal(r.json.message, 'namespaces "absent" not found');
  });

  it('reference behaviour (Priority): a pod gets its class priority and preemption policy, or 0 without one; an unknown class is 403', async () => {
    const cls = { apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name: 'gold' }, value: 700, preemptionPolicy: 'Never' };
    assert.equal((await call('POST', PC, { body: cls })).status, 201);
    const named = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('named', { priorityClassName: 'gold' }) });
    assert.equal(named.status, 201, named.text);
    assert.equal(named.json.spec.priority, 700);
    assert.equal(named.json.spec.preemptionPolicy, 'Never');
    const plain = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('plain') });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.json.spec.priority, 0);
    assert.equal(plain.json.spec.preemptionPolicy, 'PreemptLowerPriority');
    const unknown = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('lost', { priorityClassName: 'tin' }) });
    assert.equal(unknown.status, 403, unknown.text);
    assert.equal(unknown.json.message, 'pods "lost" is forbidden: no PriorityClass with name tin was found');
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/lost')).status, 404);
    // A later update that leaves the fields out keeps what creation resolved.
    const put = await call('PUT', '/api/v1/namespaces/default/pods/named', { body: { ...named.json, spec: { ...named.json.spec, priority: undefined, preemptionPolicy: undefined } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.priority, 700);
  });

  it('reference behaviour (Priority): a pod without a class gets the global default class', async () => {
    const dflt = { apiVersion: `${SCHEDULING_GROUP}/v1`, kind: 'PriorityClass', metadata: { name: 'everyone' }, value: 42, globalDefault: true };
    assert.equal((await call('POST', PC, { body: dflt })).status, 201);
    const r = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('defaulted') });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.priorityClassName, 'everyone');
    assert.equal(r.json.spec.priority, 42);
  });
});

describe('admission flags and configuration file through the real orch-apiserver (spec 2.12)', () => {
  after(() => stopAll());
  const dir = tempDir('orch-admission-');
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const V1 = `${ADMISSION_CONFIG_GROUP}/v1`;

  it('reference behaviour: unknown and overlapping plugin names fail the start naming them', async () => {
    const table: [string[], RegExp][] = [
      [['--enable-admission-plugins=NoSuch'], /--enable-admission-plugins: plugin "NoSuch" is unknown/],
      [['--disable-admission-plugins=Nope'], /--disable-admission-plugins: plugin "Nope" is unknown/],
      [['--enable-admission-plugins=AlwaysDeny', '--disable-admission-plugins=AlwaysDeny'], /\[AlwaysDeny\] in enable-admission-plugins and disable-admission-plugins overlapped/],
    ];
    for (const [args, want] of table) assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, ...args]), want);
  });

  it('spec 2.12: a bad --admission-control-config-file fails the start with the field path', async () => {
    const doc = (plugins: string) => `apiVersion: ${V1}\nkind: AdmissionConfiguration\nplugins:\n${plugins}`;
    const table: [string, RegExp][] = [
      [write('unknown.yaml', doc('- name: Nope\n')), /plugins\[0\]\.name: Unsupported value "Nope"/],
      [write('both.yaml', doc('- name: Priority\n  path: p.yaml\n  configuration: {a: 1}\n')), /plugins\[0\]: path and configuration are mutually exclusive/],
      [write('unreadable.yaml', doc('- name: Priority\n  path: not-there.yaml\n')), /plugins\[0\]\.path: cannot read .*not-there\.yaml/],
      [write('noconfig.yaml', doc('- name: NamespaceLifecycle\n  configuration: {x: 1}\n')), /admission plugin NamespaceLifecycle: plugin NamespaceLifecycle takes no configuration/],
      [join(dir, 'missing.yaml'), /--admission-control-config-file: cannot read .*missing\.yaml/],
    ];
    for (const [file, want] of table) {
      assert.match(await failsToStart(['--storage-backend=memory', `--data-dir=${dir}`, `--admission-control-config-file=${file}`]), want);
    }
  });

  it('reference behaviour: with --enable-admission-plugins=AlwaysDeny and a valid configuration file, kubectl shows the denial', async () => {
    const config = write('ok.yaml', `apiVersion: ${V1}\nkind: AdmissionConfiguration\nplugins:\n- name: Priority\n`);
    const s = await startApiserver(['--storage-backend=memory', `--data-dir=${tempDir()}`, '--enable-admission-plugins=AlwaysDeny', `--admission-control-config-file=${config}`]);
    const k = kubectl(s.kubeconfig);
    await assert.rejects(k(['create', 'configmap', 'blocked', '--from-literal=a=b']), /configmaps "blocked" is forbidden: admission control is denying all modifications/);
    await assert.rejects(k(['get', 'configmap', 'blocked']), /not found/);
  });
});
