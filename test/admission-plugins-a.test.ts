import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ADMISSION_CONFIG_GROUP,
  LABEL_HOSTNAME,
  NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION,
  NAMESPACE_NODE_SELECTOR_ANNOTATION,
  NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION,
  POD_TOLERATION_RESTRICTION_CONFIG_GROUP,
  TAINT_NODE_NOT_READY,
} from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const container = (resources?: object) => ({ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) });
const pod = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [container()], ...spec } });
const namespace = (name: string, annotations: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, annotations } });
const toleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoSchedule' });
const keysOf = (tolerations: { key?: string }[] | undefined) => (tolerations ?? []).map((t) => t.key ?? '*');

describe('admission plugins, set A, in a running server (spec 1.6, 2.12)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-adm-a-'));
    writeFileSync(join(dir, 'node-selector.yaml'), 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: pool=general\n  picky: pool=general,disk=ssd\n');
    writeFileSync(
      join(dir, 'admission.yaml'),
      [
        `apiVersion: ${ADMISSION_CONFIG_GROUP}/v1`,
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodNodeSelector',
        '  path: node-selector.yaml',
        '- name: PodTolerationRestriction',
        '  configuration:',
        `    apiVersion: ${POD_TOLERATION_RESTRICTION_CONFIG_GROUP}/v1alpha1`,
        '    kind: Configuration',
        '    default: [{key: cluster-default, operator: Exists, effect: NoSchedule}]',
        '',
      ].join('\n'),
    );
    server = await startServer({
      port: 0,
      storage: { type: 'memory' },
      dataDir: join(dir, 'data'),
      enableAdmissionPlugins: [
        'NamespaceAutoProvision',
        'LimitPodHardAntiAffinityTopology',
        'PodNodeSelector',
        'PodTolerationRestriction',
        'ExtendedResourceToleration',
        'DenyServiceExternalIPs',
      ],
      admissionControlConfigFile: join(dir, 'admission.yaml'),
    });
    call = client(server);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour (TaintNodesByCondition, on by default): a new node is tainted not-ready NoSchedule', async () => {
    const r = await call('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }] } } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.taints, [{ key: 'gpu', effect: 'NoSchedule' }, { key: TAINT_NODE_NOT_READY, effect: 'NoSchedule' }]);
  });

  it('reference behaviour (NamespaceAutoProvision): a create in a missing namespace creates it; a dry run does not', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } };
    const created = await call('POST', '/api/v1/namespaces/auto-made/configmaps', { body: cm });
    assert.equal(created.status, 201, created.text);
    const ns = await call('GET', '/api/v1/namespaces/auto-made');
    assert.equal(ns.status, 200, ns.text);
    assert.equal(ns.json.status.phase, 'Active');
    const dry = await call('POST', '/api/v1/namespaces/dry-made/configmaps?dryRun=All', { body: cm });
    assert.equal(dry.status, 404, dry.text);
    assert.equal(dry.json.message, 'namespaces "dry-made" not found');
    assert.equal((await call('GET', '/api/v1/namespaces/dry-made')).status, 404);
    const bad = await call('POST', '/api/v1/namespaces/Not_A_Name/configmaps', { body: cm });
    assert.equal(bad.status, 403, bad.text);
    assert.match(bad.json.message, /^configmaps "c" is forbidden: Namespace "Not_A_Name" is invalid: metadata\.name/);
  });

  it('reference behaviour (LimitPodHardAntiAffinityTopology): required anti-affinity must use the host name key', async () => {
    const anti = (topologyKey: string) => ({
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } }, topologyKey }] } },
    });
    const zone = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('spread-zone', anti('topology/zone')) });
    assert.equal(zone.status, 403, zone.text);
    assert.equal(zone.json.message, `pods "spread-zone" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology/zone but only key ${LABEL_HOSTNAME} is allowed`);
    const host = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('spread-host', anti(LABEL_HOSTNAME)) });
    assert.equal(host.status, 201, host.text);
  });

  it('reference behaviour (PodNodeSelector): namespace annotation or cluster default merged into the pod; conflicts and whitelist are 403', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { body: namespace('gpus', { [NAMESPACE_NODE_SELECTOR_ANNOTATION]: 'hw=gpu' }) })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces', { body: namespace('picky') })).status, 201);
    const merged = await call('POST', '/api/v1/namespaces/gpus/pods', { body: pod('p1', { nodeSelector: { zone: 'a' } }) });
    assert.equal(merged.status, 201, merged.text);
    assert.deepEqual(merged.json.spec.nodeSelector, { hw: 'gpu', zone: 'a' });
    const conflict = await call('POST', '/api/v1/namespaces/gpus/pods', { body: pod('p2', { nodeSelector: { hw: 'cpu' } }) });
    assert.equal(conflict.status, 403, conflict.text);
    assert.equal(conflict.json.message, 'pods "p2" is forbidden: pod node label selector conflicts with its namespace node label selector');
    const dflt = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('p3') });
    assert.equal(dflt.status, 201, dflt.text);
    assert.deepEqual(dflt.json.spec.nodeSelector, { pool: 'general' });
    const listed = await call('POST', '/api/v1/namespaces/picky/pods', { body: pod('p4', { nodeSelector: { disk: 'ssd' } }) });
    assert.equal(listed.status, 201, listed.text);
    const unlisted = await call('POST', '/api/v1/namespaces/picky/pods', { body: pod('p5', { nodeSelector: { disk: 'hdd' } }) });
    assert.equal(unlisted.status, 403, unlisted.text);
    assert.equal(unlisted.json.message, 'pods "p5" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  });

  it('reference behaviour (PodTolerationRestriction): namespace or cluster defaults are added; tolerations outside the namespace whitelist are 403', async () => {
    const whitelist = [toleration('team'), toleration('cluster-default'), { operator: 'Exists', effect: 'NoExecute' }];
    const annotations = { [NAMESPACE_DEFAULT_TOLERATIONS_ANNOTATION]: JSON.stringify([toleration('team')]), [NAMESPACE_TOLERATIONS_WHITELIST_ANNOTATION]: JSON.stringify(whitelist) };
    assert.equal((await call('POST', '/api/v1/namespaces', { body: namespace('team-a', annotations) })).status, 201);
    const teamPod = await call('POST', '/api/v1/namespaces/team-a/pods', { body: pod('t1') });
    assert.equal(teamPod.status, 201, teamPod.text);
    assert.ok(keysOf(teamPod.json.spec.tolerations).includes('team'), teamPod.text);
    const outside = await call('POST', '/api/v1/namespaces/team-a/pods', { body: pod('t2', { tolerations: [toleration('secret-nodes')] }) });
    assert.equal(outside.status, 403, outside.text);
    assert.equal(outside.json.message, 'pods "t2" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
    const clusterPod = await call('POST', '/api/v1/namespaces/default/pods', { body: pod('t3', { tolerations: [toleration('anything')] }) });
    assert.equal(clusterPod.status, 201, clusterPod.text);
    assert.ok(keysOf(clusterPod.json.spec.tolerations).includes('cluster-default'), clusterPod.text);
    assert.ok(keysOf(clusterPod.json.spec.tolerations).includes('anything'), clusterPod.text);
  });

  it('reference behaviour (ExtendedResourceToleration): a pod requesting an extended resource tolerates its taint', async () => {
    const gpu = { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '1' } };
    const r = await call('POST', '/api/v1/namespaces/default/pods', { body: { ...pod('gpu-user'), spec: { containers: [container(gpu)] } } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.tolerations.filter((t: { key?: string }) => t.key === 'example.com/gpu'), [toleration('example.com/gpu')]);
  });

  it('reference behaviour (DenyServiceExternalIPs): external IPs on a create or added by an update are 403', async () => {
    const svc = (name: string, externalIPs?: string[]) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...(externalIPs ? { externalIPs } : {}) } });
    const denied = await call('POST', '/api/v1/namespaces/default/services', { body: svc('with-ips', ['192.0.2.10']) });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.json.message, 'services "with-ips" is forbidden: Use of external IPs is denied by admission control');
    const plain = await call('POST', '/api/v1/namespaces/default/services', { body: svc('plain') });
    assert.equal(plain.status, 201, plain.text);
    const add = await call('PATCH', '/api/v1/namespaces/default/services/plain', {
      raw: JSON.stringify({ spec: { externalIPs: ['192.0.2.11'] } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(add.status, 403, add.text);
    assert.equal((await call('GET', '/api/v1/namespaces/default/services/plain')).json.spec.externalIPs, undefined);
  });
});

describe('NamespaceExists instead of NamespaceLifecycle (spec 1.6)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, enableAdmissionPlugins: ['NamespaceExists'], disableAdmissionPlugins: ['NamespaceLifecycle'] });
    call = client(server);
  });
  after(() => server?.close());

  it('reference behaviour (NamespaceExists): writes in a missing namespace are 404 for the namespace; an existing one is fine', async () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const missing = await call('POST', '/api/v1/namespaces/nowhere/configmaps', { body: cm });
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.json.message, 'namespaces "nowhere" not found');
    assert.equal((await call('POST', '/api/v1/namespaces', { body: namespace('somewhere') })).status, 201);
    assert.equal((await call('POST', '/api/v1/namespaces/somewhere/configmaps', { body: cm })).status, 201);
  });
});

describe('set A plugin configuration errors stop the start (spec 2.12)', () => {
  it('spec 2.12: a bad PodNodeSelector or PodTolerationRestriction configuration, or one given to a plugin that takes none, names the plugin and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-adm-a-bad-'));
    const doc = (name: string, configuration: string) => `apiVersion: ${ADMISSION_CONFIG_GROUP}/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ${name}\n  configuration: ${configuration}\n`;
    const table: [string, string, RegExp][] = [
      ['PodNodeSelector', '{podNodeSelectorPluginConfig: {team: "a"}}', /admission plugin PodNodeSelector: podNodeSelectorPluginConfig\.team: invalid selector: \[a\]/],
      ['PodTolerationRestriction', `{apiVersion: ${POD_TOLERATION_RESTRICTION_CONFIG_GROUP}/v1alpha1, kind: Configuration, whitelist: [{key: a, operator: Sometimes}]}`,
        /admission plugin PodTolerationRestriction: whitelist\[0\]\.operator: Unsupported value: "Sometimes"/],
      ['NamespaceAutoProvision', '{x: 1}', /admission plugin NamespaceAutoProvision: plugin NamespaceAutoProvision takes no configuration/],
    ];
    try {
      for (const [name, configuration, want] of table) {
        const file = join(dir, `${name}.yaml`);
        writeFileSync(file, doc(name, configuration));
        await assert.rejects(startServer({ port: 0, storage: { type: 'memory' }, dataDir: join(dir, 'data'), enableAdmissionPlugins: [name], admissionControlConfigFile: file }), want);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
