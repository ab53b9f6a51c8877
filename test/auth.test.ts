import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectH2, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { ensureServingCerts, issueClientCert } from '../src/server/tls.js';
import { kubeconfigYaml } from '../src/server/kubeconfig.js';
import { client, type RequestOptions } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const RBAC = 'rbac.authorization.orch.io';
const b64 = (s: string) => Buffer.from(s).toString('base64');
type Cert = { certPem: string; keyPem: string };

describe('authentication, RBAC, impersonation and reviews over HTTPS (spec 5.1-5.8, 2.7-2.9, 4.8)', () => {
  let dir: string;
  let server: RunningServer;
  let call: (method: string, path: string, opts?: RequestOptions) => ReturnType<ReturnType<typeof client>>;
  let as: (who: Cert | string | null) => (method: string, path: string, opts?: RequestOptions) => ReturnType<ReturnType<typeof client>>;
  const certs: Record<string, Cert> = {};

  const waitFor = async (what: string, f: () => Promise<boolean>) => {
    const deadline = Date.now() + 5000;
    while (!(await f())) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const bindCluster = (name: string, role: string, subject: object) =>
    call('POST', `/apis/${RBAC}/v1/clusterrolebindings`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects: [subject] },
    });
  const whoami = async (req: ReturnType<typeof as>) => {
    const r = await req('POST', '/apis/authentication.orch.io/v1/selfsubjectreviews', { body: { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' } });
    return r.status === 201 ? r.json.status.userInfo : { status: r.status };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-auth-'));
    const clientCA = await ensureServingCerts(join(dir, 'client-ca'), { hosts: [] });
    const proxyCA = await ensureServingCerts(join(dir, 'proxy-ca'), { hosts: [] });
    const foreignCA = await ensureServingCerts(join(dir, 'foreign-ca'), { hosts: [] });
    writeFileSync(join(dir, 'client-ca.crt'), clientCA.caCertPem);
    writeFileSync(join(dir, 'proxy-ca.crt'), proxyCA.caCertPem);
    writeFileSync(join(dir, 'tokens.csv'), 'tok-carol,carol,uid-carol,ops\n');
    certs.alice = await issueClientCert(clientCA, { commonName: 'alice', organizations: ['devs', 'qa'] });
    certs.mallory = await issueClientCert(foreignCA, { commonName: 'mallory', organizations: ['system:masters'] });
    certs.proxy = await issueClientCert(proxyCA, { commonName: 'front-proxy' });
    certs.expired = await issueClientCert(clientCA, { commonName: 'old' }, -1);
    server = await startServer({
      port: 0,
      dataDir: join(dir, 'data'),
      storage: { type: 'memory' },
      clientCAFile: join(dir, 'client-ca.crt'),
      requestHeader: { clientCAFile: join(dir, 'proxy-ca.crt'), allowedNames: ['front-proxy'] },
      tokenAuthFile: join(dir, 'tokens.csv'),
      enableBootstrapTokenAuth: true,
    });
    const c = client(server);
    call = c;
    as = (who) => (method, path, opts = {}) =>
      typeof who === 'string' ? c(method, path, { ...opts, token: who }) : who === null ? c(method, path, { ...opts, token: null }) : c(method, path, { ...opts, token: null, cert: who });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the 200/401/403 matrix for resource and non-resource URLs (spec 5.1, 5.7, 5.8)', async () => {
    const anon = as(null);
    assert.equal((await anon('GET', '/healthz')).status, 200, 'public-info-viewer lets anyone read health');
    assert.equal((await anon('GET', '/version')).status, 200);
    assert.equal((await anon('GET', '/api')).status, 403, 'discovery is for authenticated users');
    assert.equal((await anon('GET', '/api/v1/namespaces')).status, 403);
    assert.equal((await as('wrong-token')('GET', '/healthz')).status, 401, 'present but wrong credentials are 401, even where anonymous is allowed');
    const carol = as('tok-carol');
    assert.equal((await carol('GET', '/api')).status, 200);
    const denied = await carol('GET', '/api/v1/namespaces/default/pods');
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'pods is forbidden: User "carol" cannot list resource "pods" in API group "" in the namespace "default"');
    assert.equal((await carol('GET', '/metrics')).status, 403);
    assert.equal((await call('GET', '/api/v1/namespaces')).status, 200, 'system:masters');
  });

  it('client certificates: CN is the user, each O a group; foreign or expired certificates are 401 (spec 5.2)', async () => {
    assert.deepEqual(await whoami(as(certs.alice!)), { username: 'alice', groups: ['devs', 'qa', 'system:authenticated'] });
    assert.equal((await as(certs.mallory!)('GET', '/api/v1/namespaces')).status, 401);
    assert.equal((await as(certs.expired!)('GET', '/api/v1/namespaces')).status, 401);
    assert.equal((await bindCluster('qa-view', 'view', { kind: 'Group', apiGroup: RBAC, name: 'qa' })).status, 201);
    await waitFor('the binding to take effect', async () => (await as(certs.alice!)('GET', '/api/v1/namespaces/default/configmaps')).status === 200);
  });

  it('spec 5.2: over HTTP/2 every request on a connection authenticates as its client certificate, and a connection without one does not', async () => {
    const review = { apiVersion: 'authentication.orch.io/v1', kind: 'SelfSubjectReview' };
    const ask = (session: ClientHttp2Session) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const s = session.request({ ':method': 'POST', ':path': '/apis/authentication.orch.io/v1/selfsubjectreviews', 'content-type': 'application/json' });
        let status = 0;
        let body = '';
        s.on('response', (h) => (status = Number(h[':status'])));
        s.on('data', (c: Buffer) => (body += c.toString()));
        s.on('end', () => resolve({ status, body }));
        s.on('error', reject);
        s.end(JSON.stringify(review));
      });
    const withCert = connectH2(server.url, { ca: server.caCertPem, cert: certs.alice!.certPem, key: certs.alice!.keyPem });
    const without = connectH2(server.url, { ca: server.caCertPem });
    try {
      for (const r of await Promise.all([ask(withCert), ask(withCert), ask(withCert)])) {
        assert.equal(r.status, 201, r.body);
        assert.equal(JSON.parse(r.body).status.userInfo.username, 'alice');
      }
      for (const r of await Promise.all([ask(without), ask(without)])) {
        assert.equal(r.status, 403, r.body);
        assert.match(JSON.parse(r.body).message, /User "system:anonymous" cannot create/);
      }
      assert.equal(JSON.parse((await ask(withCert)).body).status.userInfo.username, 'alice', 'still alice after the other connection');
    } finally {
      withCert.close();
      without.close();
    }
  });

  it('authenticating proxy headers are trusted only with the proxy certificate (spec 5.1)', async () => {
    const headers = { 'x-remote-user': 'bob', 'x-remote-group': ['g1', 'g2'], 'x-remote-extra-scopes': 'read' };
    const viaProxy = await whoami((m, p, o = {}) => as(certs.proxy!)(m, p, { ...o, headers }));
    assert.equal(viaProxy.username, 'bob');
    assert.deepEqual(viaProxy.groups, ['g1', 'g2', 'system:authenticated']);
    assert.deepEqual(viaProxy.extra, { scopes: ['read'] });
    const spoofed = await whoami((m, p, o = {}) => as('tok-carol')(m, p, { ...o, headers }));
    assert.equal(spoofed.username, 'carol', 'headers from anyone else are ignored');
  });

  it('bootstrap tokens authenticate while valid; bad token secrets are 422 at creation (spec 2.9, 3.5, 5.4)', async () => {
    const secret = (id: string, extra: Record<string, string> = {}) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'orch-system' },
      type: 'bootstrap.orch.io/token',
      data: { 'token-id': b64(id), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-authentication': b64('true'), 'auth-extra-groups': b64('system:bootstrappers:workers'), ...extra },
    });
    assert.equal((await call('POST', '/api/v1/namespaces/orch-system/secrets', { body: secret('abcdef') })).status, 201);
    const user = await whoami(as('abcdef.0123456789abcdef'));
    assert.equal(user.username, 'system:bootstrap:abcdef');
    assert.deepEqual([...user.groups].sort(), ['system:authenticated', 'system:bootstrappers', 'system:bootstrappers:workers']);
    assert.equal((await as('abcdef.ffffffffffffffff')('GET', '/api')).status, 401, 'wrong secret');
    await call('POST', '/api/v1/namespaces/orch-system/secrets', { body: secret('expird', { expiration: b64('2001-01-01T00:00:00Z') }) });
    assert.equal((await as('expird.0123456789abcdef')('GET', '/api')).status, 401, 'expired');
    const bad = await call('POST', '/api/v1/namespaces/orch-system/secrets', { body: secret('badid1', { 'token-id': b64('BAD'), 'auth-extra-groups': b64('system:masters') }) });
    assert.equal(bad.status, 422, bad.text);
    const fields = bad.json.details.causes.map((c: any) => c.field);
    assert.ok(fields.includes('data[token-id]') && fields.includes('data[auth-extra-groups]'), JSON.stringify(fields));
  });

  it('service account tokens from TokenRequest; a deleted account\'s token stops working (spec 5.4)', async () => {
    await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
    const tr = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } });
    assert.equal(tr.status, 201, tr.text);
    const token = tr.json.status.token as string;
    const user = await whoami(as(token));
    assert.equal(user.username, 'system:serviceaccount:default:robot');
    assert.ok(user.groups.includes('system:serviceaccounts:default'));
    const review = await call('POST', '/apis/authentication.orch.io/v1/tokenreviews', { body: { apiVersion: 'authentication.orch.io/v1', kind: 'TokenReview', spec: { token } } });
    assert.equal(review.json.status.authenticated, true);
    assert.equal((await call('POST', '/api/v1/namespaces/default/serviceaccounts/nobody/token', { body: { kind: 'TokenRequest', spec: {} } })).status, 404);
    await call('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot');
    await waitFor('the token to be refused', async () => (await as(token)('GET', '/api')).status === 401);
  });

  it('impersonation needs the impersonate verb and then runs as the impersonated user (spec 5.7)', async () => {
    const asCarol = await call('GET', '/api/v1/namespaces', { headers: { 'impersonate-user': 'carol' } });
    assert.equal(asCarol.status, 403);
    assert.match(asCarol.json.message, /User "carol"/);
    const r = await as('tok-carol')('GET', '/api/v1/namespaces', { headers: { 'impersonate-user': 'admin-wannabe', 'impersonate-group': 'system:masters' } });
    assert.equal(r.status, 403);
    assert.match(r.json.message, /impersonate/);
    const groupsOnly = await call('GET', '/api/v1/namespaces', { headers: { 'impersonate-group': 'x' } });
    assert.equal(groupsOnly.status, 400);
  });

  it('access reviews answer allowed/denied; a LocalSubjectAccessReview must name its own namespace (spec 2.8, 4.8)', async () => {
    const sar = await call('POST', '/apis/authorization.orch.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.orch.io/v1', kind: 'SubjectAccessReview', spec: { user: 'carol', groups: ['ops'], resourceAttributes: { verb: 'list', resource: 'pods', namespace: 'default' } } },
    });
    assert.equal(sar.status, 201, sar.text);
    assert.equal(sar.json.status.allowed, false);
    const ssar = await as(certs.alice!)('POST', '/apis/authorization.orch.io/v1/selfsubjectaccessreviews', {
      body: { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } } },
    });
    assert.equal(ssar.json.status.allowed, true, ssar.text);
    const lsar = await call('POST', '/apis/authorization.orch.io/v1/namespaces/default/localsubjectaccessreviews', {
      body: { apiVersion: 'authorization.orch.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'carol', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'other' } } },
    });
    assert.equal(lsar.status, 422);
    const ssrr = await as(certs.alice!)('POST', '/apis/authorization.orch.io/v1/selfsubjectrulesreviews', {
      body: { apiVersion: 'authorization.orch.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
    });
    assert.equal(ssrr.status, 201, ssrr.text);
    assert.ok(ssrr.json.status.resourceRules.some((r: any) => r.resources?.includes('configmaps') && r.verbs.includes('list')));
  });

  it('escalation prevention: roles need the permissions they grant, bindings need the role\'s permissions or bind (spec 5.8)', async () => {
    await call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } } });
    await call('POST', `/apis/${RBAC}/v1/namespaces/team/roles`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'role-admin' }, rules: [{ apiGroups: [RBAC], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'update', 'delete'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] },
    });
    await call('POST', `/apis/${RBAC}/v1/namespaces/team/rolebindings`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'carol-role-admin' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'role-admin' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }] },
    });
    const carol = as('tok-carol');
    const role = (name: string, rules: object[]) => carol('POST', `/apis/${RBAC}/v1/namespaces/team/roles`, { body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules } });
    await waitFor('carol can manage roles', async () => (await carol('GET', `/apis/${RBAC}/v1/namespaces/team/roles`)).status === 200);
    assert.equal((await role('cm-reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])).status, 201);
    const escalate = await role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    assert.equal(escalate.status, 403, escalate.text);
    assert.match(escalate.json.message, /attempting to grant RBAC permissions not currently held/);
    const bindAdmin = await carol('POST', `/apis/${RBAC}/v1/namespaces/team/rolebindings`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'grab' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'carol' }] },
    });
    assert.equal(bindAdmin.status, 403, bindAdmin.text);
    const changeRef = await call('PUT', `/apis/${RBAC}/v1/namespaces/team/rolebindings/carol-role-admin`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'carol-role-admin' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [] },
    });
    assert.equal(changeRef.status, 422, 'roleRef is immutable (spec 2.7)');
  });

  it('real kubectl with a client-certificate kubeconfig and with a token kubeconfig (spec 5.2, 5.3)', async () => {
    const certConfig = join(dir, 'alice.kubeconfig');
    writeFileSync(certConfig, kubeconfigYaml({ server: server.url, caCertPem: server.caCertPem, user: 'alice', clientCertPem: certs.alice!.certPem, clientKeyPem: certs.alice!.keyPem }));
    const tokenConfig = join(dir, 'carol.kubeconfig');
    writeFileSync(tokenConfig, kubeconfigYaml({ server: server.url, caCertPem: server.caCertPem, user: 'carol', token: 'tok-carol' }));
    const alice = kubectl(certConfig);
    assert.equal(JSON.parse(await alice(['get', 'configmaps', '-n', 'default', '-o', 'json'])).kind, 'List');
    // (`kubectl auth can-i` posts to the reference's own authorization group, which orch serves under its own name.)
    await assert.rejects(alice(['get', 'secrets', '-n', 'default']), /forbidden: User "alice" cannot list resource "secrets"/);
    await assert.rejects(kubectl(tokenConfig)(['get', 'pods', '-n', 'default']), /forbidden: User "carol" cannot list resource "pods"/);
  });

  it('default roles carry the bootstrapping label, and aggregation fills view from labelled ClusterRoles (spec 2.7, 5.8)', async () => {
    const admin = await call('GET', `/apis/${RBAC}/v1/clusterroles/cluster-admin`);
    assert.equal(admin.json.metadata.labels['orch.io/bootstrapping'], 'rbac-defaults');
    await call('POST', `/apis/${RBAC}/v1/clusterroles`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { [`${RBAC}/aggregate-to-view`]: 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] }] },
    });
    await waitFor('view to aggregate widgets', async () => {
      const view = await call('GET', `/apis/${RBAC}/v1/clusterroles/view`);
      return view.json.rules.some((r: any) => r.resources?.includes('widgets'));
    });
  });
});
