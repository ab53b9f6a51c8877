import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AUTHENTICATION_GROUP, COORDINATION_GROUP, GROUP_SUFFIX, MIRROR_POD_ANNOTATION, NODE_LEASE_NAMESPACE, RBAC_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type RequestOptions, type Response } from './helpers/client.js';

type Call = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

describe('NodeRestriction admission in a whole server (reference behaviour)', () => {
  let dir: string;
  let server: RunningServer;
  let admin: Call;
  let n1: Call;

  const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...extra },
    spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], ...spec },
  });
  const expect403 = (r: Response, fragment: string) => {
    assert.equal(r.status, 403, r.text);
    assert.ok(String(r.json?.message).includes(fragment), r.json?.message);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-noderestriction-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-n1,system:node:n1,uid-n1,system:nodes\n');
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'memory' },
      tokenAuthFile: join(dir, 'tokens.csv'),
      enableAdmissionPlugins: ['NodeRestriction'],
      // Pods here run without service accounts; that plugin is not what is under test.
      disableAdmissionPlugins: ['ServiceAccount'],
    });
    const c = client(server);
    admin = c;
    n1 = (method, path, opts = {}) => c(method, path, { ...opts, token: 'tok-n1' });
    // RBAC grants the nodes everything, so only the plugin restricts them.
    const bound = await admin('POST', `/apis/${RBAC_GROUP}/v1/clusterrolebindings`, {
      body: { metadata: { name: 'nodes-all' }, roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'Group', apiGroup: RBAC_GROUP, name: 'system:nodes' }] },
    });
    assert.equal(bound.status, 201, bound.text);
    const deadline = Date.now() + 5000;
    while ((await n1('GET', '/api/v1/namespaces')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the binding never took effect');
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const p of [pod('web', 'n1'), pod('other', 'n2')]) assert.equal((await admin('POST', '/api/v1/namespaces/default/pods', { body: p })).status, 201);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: a node registers and updates only its own Node, without restricted labels', async () => {
    assert.equal((await n1('POST', '/api/v1/nodes', { body: { metadata: { name: 'n1', labels: { [`${GROUP_SUFFIX}/hostname`]: 'n1' } } } })).status, 201);
    expect403(await n1('POST', '/api/v1/nodes', { body: { metadata: { name: 'n2' } } }), 'node "n1" is not allowed to modify node "n2"');
    expect403(
      await n1('PATCH', '/api/v1/nodes/n1', { body: { metadata: { labels: { [`node-restriction.${GROUP_SUFFIX}/pool`]: 'a' } } }, headers: { 'content-type': 'application/merge-patch+json' } }),
      `is not allowed to modify labels: node-restriction.${GROUP_SUFFIX}/pool`,
    );
    const ok = await n1('PATCH', '/api/v1/nodes/n1', { body: { metadata: { labels: { 'example.com/rack': '7' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await admin('POST', '/api/v1/nodes', { body: { metadata: { name: 'n2', labels: { [`node-role.${GROUP_SUFFIX}/control-plane`]: '' } } } })).status, 201, 'other users are not restricted');
  });

  it('reference behaviour: a node creates only mirror pods bound to itself that reference no secrets', async () => {
    expect403(await n1('POST', '/api/v1/namespaces/default/pods', { body: pod('plain', 'n1') }), `pod does not have "${MIRROR_POD_ANNOTATION}" annotation`);
    const mirror = { annotations: { [MIRROR_POD_ANNOTATION]: 'hash' } };
    expect403(await n1('POST', '/api/v1/namespaces/default/pods', { body: pod('elsewhere', 'n2', mirror) }), 'node "n1" can only create pods with spec.nodeName set to itself');
    expect403(
      await n1('POST', '/api/v1/namespaces/default/pods', { body: pod('secretive', 'n1', mirror, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }) }),
      'node "n1" can not create pods that reference secrets',
    );
    const created = await n1('POST', '/api/v1/namespaces/default/pods', { body: pod('static-n1', 'n1', mirror) });
    assert.equal(created.status, 201, created.text);
  });

  it('reference behaviour: a node updates status of, evicts and deletes only pods bound to itself', async () => {
    const status = (name: string) => n1('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { body: { status: { phase: 'Running' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal((await status('web')).status, 200);
    expect403(await status('other'), 'can only update pod status for pods with spec.nodeName set to itself');
    const evict = await n1('POST', '/api/v1/namespaces/default/pods/other/eviction', { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other', namespace: 'default' } } });
    expect403(evict, 'node n1 can only evict pods with spec.nodeName set to itself');
    expect403(await n1('DELETE', '/api/v1/namespaces/default/pods/other'), 'node "n1" can only delete pods with spec.nodeName set to itself');
    assert.equal((await n1('DELETE', '/api/v1/namespaces/default/pods/web')).status, 200);
  });

  it('reference behaviour: a node writes only its own Lease in the node-lease namespace', async () => {
    const leases = `/apis/${COORDINATION_GROUP}/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
    assert.equal((await n1('POST', leases, { body: { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1' } } })).status, 201);
    expect403(await n1('POST', leases, { body: { metadata: { name: 'n2' }, spec: { holderIdentity: 'n2' } } }), 'can only access node lease with the same name as the requesting node');
  });

  it('reference behaviour: a node gets service-account tokens only bound to a pod on itself (TokenRequest passes admission)', async () => {
    assert.equal((await admin('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'app' } } })).status, 201);
    assert.equal((await admin('POST', '/api/v1/namespaces/default/pods', { body: pod('tokened', 'n1') })).status, 201);
    const uidOf = async (name: string) => (await admin('GET', `/api/v1/namespaces/default/pods/${name}`)).json.metadata.uid as string;
    const request = (podName: string, uid: string) => ({
      apiVersion: `${AUTHENTICATION_GROUP}/v1`,
      kind: 'TokenRequest',
      spec: { audiences: [], boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: podName, uid } },
    });
    const tokens = '/api/v1/namespaces/default/serviceaccounts/app/token';
    expect403(await n1('POST', tokens, { body: { spec: {} } }), 'node requested token not bound to a pod');
    expect403(await n1('POST', tokens, { body: request('other', await uidOf('other')) }), 'node requested token bound to a pod scheduled on a different node');
    const ok = await n1('POST', tokens, { body: request('tokened', await uidOf('tokened')) });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(typeof ok.json.status.token, 'string');
  });
});
