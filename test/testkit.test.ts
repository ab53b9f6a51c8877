import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type TestServer } from '../src/index.js';
import { applyOrder, isEstablished, loadManifests } from '../src/testing/fixtures.js';
import { GROUP_SUFFIX } from '../src/api/naming.js';
import { client } from './helpers/client.js';
import { openWatch } from './helpers/testkit-watch.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'orch-testkit-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cm = (name: string, ns = 'default', data: Record<string, string> = { v: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data });

describe('test kit: kubeconfig forms (reference behaviour: a kubeconfig any client loads)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ users: [{ name: 'alice', groups: ['team-a'] }] });
  });
  after(() => server.close());

  it('gives the admin kubeconfig as an object and YAML text with the server, CA and token', () => {
    const clusters = server.kubeconfig.clusters as { cluster: { server: string; 'certificate-authority-data': string } }[];
    assert.equal(clusters[0]?.cluster.server, server.url);
    assert.equal(Buffer.from(clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(), server.caCertPem);
    const users = server.kubeconfig.users as { user: { token: string } }[];
    assert.equal(users[0]?.user.token, server.adminToken);
    assert.match(server.kubeconfigYaml, /current-context: /);
  });

  it('writeKubeconfig() writes a private temp file (or the given path) that kubectl-style loaders read', () => {
    const path = server.writeKubeconfig();
    assert.equal(readFileSync(path, 'utf8'), server.kubeconfigYaml);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const chosen = join(tempDir(), 'kc.yaml');
    assert.equal(server.writeKubeconfig(chosen), chosen);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(chosen);
    assert.equal(kc.getCurrentCluster()?.server, server.url);
  });

  it('kubeConfig() is a ready client-node KubeConfig: CoreV1Api lists the namespaces', async () => {
    const kc = await server.kubeConfig();
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const list = await api.listNamespace();
    assert.ok(list.items.some((n) => n.metadata?.name === 'default'));
  });

  it('kubeconfigFor(user) carries that user token; an unknown user is a clear error', async () => {
    const text = server.kubeconfigFor('alice');
    assert.match(text, new RegExp(server.tokens.alice!));
    assert.throws(() => server.kubeconfigFor('bob'), /no user bob on this server/);
  });
});

describe('test kit: extra users (spec 5.3 static tokens) and RBAC', () => {
  it('each user authenticates with its token and groups; RBAC decides what it may do', async () => {
    const server = await startServer({ users: [{ name: 'alice', groups: ['team-a'] }, { name: 'root', groups: ['system:masters'] }] });
    try {
      const asAlice = client({ ...server, adminToken: server.tokens.alice! });
      const asRoot = client({ ...server, adminToken: server.tokens.root! });
      assert.equal((await asAlice('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
      assert.equal((await asRoot('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
      const rbac = (await client(server)('GET', '/apis')).json.groups.find((g: { name: string }) => g.name.startsWith('rbac.')).preferredVersion.groupVersion;
      await server.apply([
        { apiVersion: rbac, kind: 'Role', metadata: { name: 'read-cm', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] },
        { apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'team-a-read', namespace: 'default' }, roleRef: { apiGroup: rbac.split('/')[0], kind: 'Role', name: 'read-cm' }, subjects: [{ kind: 'Group', name: 'team-a', apiGroup: rbac.split('/')[0] }] },
      ]);
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await asAlice('GET', '/api/v1/namespaces/default/configmaps')).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(status, 200);
      const seen = server.requests().filter((r) => r.user === 'alice').map((r) => r.status);
      assert.equal(seen[0], 403);
      assert.equal(seen.at(-1), 200);
    } finally {
      await server.close();
    }
  });

  it('bad users fail the start with the field named', async () => {
    await assert.rejects(startServer({ users: [{ name: '' }] }), /users\[0\]\.name: required/);
    await assert.rejects(startServer({ users: [{ name: 'a' }, { name: 'a' }] }), /users\[1\]\.name: a is given twice/);
    await assert.rejects(startServer({ users: [{ name: 'a', groups: ['x,y'] }] }), /users\[0\]\.groups\[0\]/);
  });
});

describe('test kit: fixtures (server-side apply, reference behaviour of kubectl apply -f)', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ controllers: [] });
  });
  after(() => server.close());

  it('loads a file, a folder (sorted), multi-document YAML text and objects; namespaces before their contents', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'folder', 'b.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: fx}\ndata: {from: folder}\n');
    writeFileSync(join(dir, 'folder', 'a.json'), JSON.stringify(cm('a', 'fx')));
    writeFileSync(join(dir, 'folder', 'ignored.txt'), 'not a manifest');
    writeFileSync(join(dir, 'one.yaml'), '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: fx}\n---\n# trailing empty document\n');
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: fx}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: fx}\n';
    const applied = await server.apply([join(dir, 'folder'), join(dir, 'one.yaml'), text, cm('e', 'fx')]);
    assert.deepEqual(
      applied.map((o) => (o.metadata as { name: string }).name),
      ['fx', 'a', 'b', 'c', 'd', 'e'],
    );
    const list = await client(server)('GET', '/api/v1/namespaces/fx/configmaps');
    assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).filter((n: string) => n !== 'kube-root-ca.crt').sort(), ['a', 'b', 'c', 'd', 'e']);
    const managers = (applied[1]!.metadata as { managedFields: { manager: string; operation: string }[] }).managedFields;
    assert.deepEqual(managers.map((m) => [m.manager, m.operation]), [['orch-testkit', 'Apply']]);
  });

  it('applying again is server-side apply: changed fields are updated, force takes ownership', async () => {
    await server.apply(cm('again', 'default', { v: '1' }));
    await client(server)('PATCH', '/api/v1/namespaces/default/configmaps/again?fieldManager=someone', { raw: '{"data":{"v":"x"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    const [o] = await server.apply(cm('again', 'default', { v: '2' }));
    assert.deepEqual((o as { data: unknown }).data, { v: '2' });
  });

  it('errors name the file, the document and the server message', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `${'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok1}\n'}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n`);
    await assert.rejects(server.apply(file), (e: Error) => e.message.includes(`${file}, document 2`) && /ConfigMap Bad_Name: the server answered 422/.test(e.message));
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\nkind: [unclosed\n');
    await assert.rejects(server.apply(file), new RegExp(`${file.replace(/[.]/g, '\\.')}, document 2: not valid YAML`));
    await assert.rejects(server.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), /<object>, document 1: metadata\.name is required/);
    await assert.rejects(server.apply({ apiVersion: 'nope.example.com/v1', kind: 'Thing', metadata: { name: 't' } }), /document 1: the server does not serve kind Thing in nope\.example\.com\/v1/);
    await assert.rejects(server.apply(join(dir, 'missing.yaml')), /missing\.yaml: no such file or folder/);
  });
});

describe('test kit: fixture ordering and CRD readiness (pure)', () => {
  it('orders CRDs, then namespaces, then the rest, keeping input order within each', () => {
    const m = loadManifests([cm('x', 'n1'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } }, { apiVersion: 'apiextensions.example/v1', kind: 'CustomResourceDefinition', metadata: { name: 'c.example' } }, cm('y', 'n1')]);
    assert.deepEqual(applyOrder(m).map((x) => x.object.kind), ['CustomResourceDefinition', 'Namespace', 'ConfigMap', 'ConfigMap']);
  });
  it('expands List kinds into their items', () => {
    assert.equal(loadManifests({ apiVersion: 'v1', kind: 'List', items: [cm('a'), cm('b')] }).length, 2);
  });
  it('reads Established from status.conditions', () => {
    const table: [unknown, boolean][] = [
      [{ status: { conditions: [{ type: 'Established', status: 'True' }] } }, true],
      [{ status: { conditions: [{ type: 'Established', status: 'False' }] } }, false],
      [{ status: { conditions: [{ type: 'NamesAccepted', status: 'True' }] } }, false],
      [{ status: {} }, false],
      [undefined, false],
    ];
    for (const [crd, want] of table) assert.equal(isEstablished(crd), want);
  });
});

describe('test kit: snapshot and reset', () => {
  it('returns the store to the state right after start, ends open watches cleanly, and caches agree', async () => {
    const server = await startServer({ controllers: [] });
    try {
      const call = client(server);
      const before = (await call('GET', '/api/v1/namespaces')).json.items.length;
      await server.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } }, cm('a', 'gone'), cm('b')]);
      assert.equal((await call('DELETE', '/api/v1/namespaces/default/services/kubernetes')).status, 200);
      const list = (await call('GET', '/api/v1/namespaces/default/configmaps')).json;
      const watch = openWatch(server, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
      await watch.opened;
      const t0 = Date.now();
      await server.reset();
      const ended = await watch.ended;
      assert.equal(ended.clean, true);
      assert.ok(Date.now() - t0 < 2000);
      assert.equal((await call('GET', '/api/v1/namespaces')).json.items.length, before);
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/b')).status, 404);
      assert.equal((await call('GET', '/api/v1/namespaces/default/services/kubernetes')).status, 200);
      assert.equal((await call('GET', '/api/v1/namespaces/gone')).status, 404);
    } finally {
      await server.close();
    }
  });

  it('reset() after snapshot() returns to the snapshot, repeatedly', async () => {
    const server = await startServer({ controllers: [] });
    try {
      const call = client(server);
      await server.apply(cm('kept'));
      await server.snapshot();
      for (let round = 0; round < 3; round++) {
        await server.apply([cm('temp'), cm('kept', 'default', { v: `changed-${round}` })]);
        await server.reset();
        assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/temp')).status, 404);
        assert.deepEqual((await call('GET', '/api/v1/namespaces/default/configmaps/kept')).json.data, { v: '1' });
      }
    } finally {
      await server.close();
    }
  });
});

describe('test kit: CRDs in fixtures and at start (spec: CRDs Established before their instances)', () => {
  const crd = {
    apiVersion: `apiextensions.${GROUP_SUFFIX}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
    },
  };
  const widget = (name: string) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 3 } });

  it('apply(): a CRD listed after its instances is applied first, waited for, then the instances', async () => {
    const server = await startServer({ controllers: [] });
    try {
      const out = await server.apply([widget('w1'), crd]);
      assert.deepEqual(out.map((o) => o.kind), ['CustomResourceDefinition', 'Widget']);
      assert.equal((await client(server)('GET', '/apis/example.com/v1/namespaces/default/widgets/w1')).json.spec.size, 3);
    } finally {
      await server.close();
    }
  });

  it('startServer({ crds }) serves the kinds once it resolves; reset() keeps them; a non-CRD is refused', async () => {
    const server = await startServer({ crds: [crd] });
    try {
      await server.apply(widget('w2'));
      await server.reset();
      const call = client(server);
      assert.equal((await call('GET', '/apis/example.com/v1/namespaces/default/widgets/w2')).status, 404);
      assert.equal((await call('POST', '/apis/example.com/v1/namespaces/default/widgets', { body: widget('w3') })).status, 201);
    } finally {
      await server.close();
    }
    await assert.rejects(startServer({ crds: [cm('x')] }), /crds: <object>, document 1: kind ConfigMap is not CustomResourceDefinition/);
  });
});
