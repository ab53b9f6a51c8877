import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolveClientConfig, parseRequestTimeout, type ClientConfigFlags } from './resolve.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('resolving flags and kubeconfig into a connection (reference client behaviour)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-kres-'));
  const file = join(dir, 'config');
  writeFileSync(join(dir, 'ca.crt'), 'FILE-CA');
  writeFileSync(join(dir, 'flag-ca.crt'), 'FLAG-CA');
  writeFileSync(join(dir, 'token'), 'file-token\n');
  writeFileSync(
    file,
    `current-context: main
clusters:
- name: prod
  cluster: {server: "https://prod:6443/", certificate-authority-data: ${b64('DATA-CA')}, proxy-url: "http://proxy:3128", disable-compression: true}
- name: stage
  cluster: {server: "stage.local:6443", certificate-authority: ca.crt, tls-server-name: api.stage}
- name: noserver
  cluster: {}
- name: both-ca
  cluster: {server: "https://x", certificate-authority: ca.crt, certificate-authority-data: ${b64('x')}}
- name: insecure-ca
  cluster: {server: "https://x", certificate-authority: ca.crt, insecure-skip-tls-verify: true}
- name: badproxy
  cluster: {server: "https://x", proxy-url: "ftp://p"}
- name: ftp
  cluster: {server: "ftp://x"}
users:
- name: alice
  user: {token: alice-token, as: bob, as-groups: [g], as-uid: "9", as-user-extra: {k: [v]}}
- name: filer
  user: {tokenFile: token}
- name: basic
  user: {username: a, password: b}
- name: provider
  user: {auth-provider: {name: oidc}}
- name: halfcert
  user: {client-certificate-data: ${b64('C')}}
- name: certboth
  user: {client-certificate-data: ${b64('C')}, client-certificate: c.crt, client-key-data: ${b64('K')}}
- name: cert
  user: {client-certificate-data: ${b64('C')}, client-key-data: ${b64('K')}}
- name: groupsonly
  user: {as-groups: [g]}
- name: execv1
  user: {exec: {command: x, apiVersion: client.authentication.orch.io/v1}}
- name: execbad
  user: {exec: {command: x, apiVersion: client.authentication.k8s.io/v1beta1}}
- name: exectoken
  user: {token: t, exec: {command: x, apiVersion: client.authentication.orch.io/v1beta1}}
contexts:
- name: main
  context: {cluster: prod, user: alice, namespace: team-a}
- name: staging
  context: {cluster: stage, user: filer}
- name: dangling
  context: {cluster: ghost, user: alice}
- name: lost-user
  context: {cluster: prod, user: ghost}
`,
  );
  const resolve = (flags: ClientConfigFlags = {}) => resolveClientConfig({ kubeconfig: file, ...flags }, {}, { cwd: dir });

  it('reference behaviour: the current context gives server, CA, namespace, token and impersonation', async () => {
    const r = resolve();
    assert.equal(r.contextName, 'main');
    assert.equal(r.clusterName, 'prod');
    assert.equal(r.userName, 'alice');
    assert.equal(r.connection.server, 'https://prod:6443');
    assert.equal(r.connection.caPem, 'DATA-CA');
    assert.equal(r.namespace, 'team-a');
    assert.equal(r.namespaceExplicit, true);
    assert.equal(r.proxyUrl, 'http://proxy:3128');
    assert.equal(r.disableCompression, true);
    assert.deepEqual(await r.connection.credentials.get(), { token: 'alice-token' });
    assert.deepEqual(r.impersonate, { user: 'bob', uid: '9', groups: ['g'], extra: { k: ['v'] } });
    assert.equal(r.connection.requestTimeoutMs, undefined);
  });

  it('reference behaviour: a CA file relative to the kubeconfig, a server without scheme, and a token file', async () => {
    const r = resolve({ context: 'staging' });
    assert.equal(r.connection.server, 'https://stage.local:6443');
    assert.equal(r.connection.caPem, 'FILE-CA');
    assert.equal(r.connection.tlsServerName, 'api.stage');
    assert.equal(r.namespace, 'default');
    assert.equal(r.namespaceExplicit, false);
    assert.deepEqual(await r.connection.credentials.get(), { token: 'file-token' });
  });

  // Each flag, what it changes.
  const overrides: [string, ClientConfigFlags, (r: ReturnType<typeof resolve>) => unknown, unknown][] = [
    ['--context', { context: 'staging' }, (r) => r.clusterName, 'stage'],
    ['--cluster', { cluster: 'stage' }, (r) => [r.clusterName, r.connection.server, r.userName], ['stage', 'https://stage.local:6443', 'alice']],
    ['--user', { user: 'cert' }, (r) => r.userName, 'cert'],
    ['--namespace', { namespace: 'other' }, (r) => [r.namespace, r.namespaceExplicit], ['other', true]],
    ['--server', { server: 'https://elsewhere:1' }, (r) => [r.connection.server, r.connection.caPem], ['https://elsewhere:1', 'DATA-CA']],
    ['--certificate-authority (relative to the working directory, replaces CA data)', { certificateAuthority: 'flag-ca.crt' }, (r) => r.connection.caPem, 'FLAG-CA'],
    ['--insecure-skip-tls-verify (drops the file CA)', { insecureSkipTlsVerify: true }, (r) => [r.connection.insecureSkipTlsVerify, r.connection.caPem], [true, undefined]],
    ['--tls-server-name', { tlsServerName: 'sni.example' }, (r) => r.connection.tlsServerName, 'sni.example'],
    ['--request-timeout as a Go duration', { requestTimeout: '1m30s' }, (r) => r.connection.requestTimeoutMs, 90_000],
    ['--request-timeout as seconds', { requestTimeout: '5' }, (r) => r.connection.requestTimeoutMs, 5000],
    ['--as, --as-group, --as-uid', { as: 'carol', asGroups: ['x', 'y'], asUid: '1' }, (r) => r.impersonate, { user: 'carol', uid: '1', groups: ['x', 'y'], extra: { k: ['v'] } }],
  ];
  for (const [flag, flags, pick, want] of overrides) {
    it(`reference behaviour: ${flag} overrides the configuration`, () => {
      assert.deepEqual(pick(resolve(flags)), want);
    });
  }

  it('reference behaviour: --token replaces the user\'s token and an exec plugin', async () => {
    assert.deepEqual(await resolve({ token: 'flag-token' }).connection.credentials.get(), { token: 'flag-token' });
    assert.deepEqual(await resolve({ user: 'execv1', token: 'flag-token' }).connection.credentials.get(), { token: 'flag-token' });
    assert.deepEqual(await resolve({ user: 'cert', token: 'flag-token' }).connection.credentials.get(), { token: 'flag-token', certPem: 'C', keyPem: 'K' });
  });

  it('reference behaviour: flags alone reach a server with no kubeconfig at all', async () => {
    const r = resolveClientConfig({ server: 'http://127.0.0.1:8080', token: 't' }, { HOME: join(dir, 'nohome') });
    assert.equal(r.connection.server, 'http://127.0.0.1:8080');
    assert.equal(r.contextName, '');
    assert.deepEqual(await r.connection.credentials.get(), { token: 't' });
  });

  const errors: [string, ClientConfigFlags, RegExp][] = [
    ['unknown --context', { context: 'x' }, /^Error: context "x" does not exist$/],
    ['unknown --cluster', { cluster: 'x' }, /^Error: cluster "x" does not exist$/],
    ['unknown --user', { user: 'x' }, /^Error: user "x" does not exist$/],
    ['context names a missing cluster', { context: 'dangling' }, /cluster "ghost" was not found for context "dangling"/],
    ['context names a missing user', { context: 'lost-user' }, /user "ghost" was not found for context "lost-user"/],
    ['cluster without server', { cluster: 'noserver' }, /invalid configuration: no server found for cluster "noserver"/],
    ['CA file and data both', { cluster: 'both-ca' }, /cluster "both-ca": certificate-authority and certificate-authority-data are both given/],
    ['CA with insecure', { cluster: 'insecure-ca' }, /cluster "insecure-ca": a certificate authority cannot be used with insecure-skip-tls-verify/],
    ['CA flag with insecure flag', { certificateAuthority: 'flag-ca.crt', insecureSkipTlsVerify: true }, /cannot be used with insecure-skip-tls-verify/],
    ['missing CA file', { certificateAuthority: 'nope.crt' }, /certificate-authority: cannot read .*nope\.crt/],
    ['bad proxy-url', { cluster: 'badproxy' }, /proxy-url "ftp:\/\/p" must be an http/],
    ['server scheme', { cluster: 'ftp' }, /server "ftp:\/\/x" must use https:\/\/ or http:\/\//],
    ['basic auth', { user: 'basic' }, /user "basic": username\/password \(basic authentication\) is not accepted/],
    ['auth-provider', { user: 'provider' }, /user "provider": auth-provider "oidc" is not supported by this client/],
    ['certificate without key', { user: 'halfcert' }, /user "halfcert": client-key or client-key-data must also be given/],
    ['certificate file and data', { user: 'certboth' }, /client-certificate and client-certificate-data are both given/],
    ['impersonation groups without user', { user: 'groupsonly' }, /needs a user to impersonate/],
    ['v1 exec without interactiveMode', { user: 'execv1' }, /user "execv1": exec\.interactiveMode: must be given with client\.authentication\.orch\.io\/v1/],
    ['exec apiVersion of another family', { user: 'execbad' }, /exec\.apiVersion: "client\.authentication\.k8s\.io\/v1beta1" is not supported/],
    ['exec with a token', { user: 'exectoken' }, /exec cannot be combined with token/],
    ['bad --request-timeout', { requestTimeout: '5 minutes' }, /--request-timeout: invalid value "5 minutes"/],
    ['negative --request-timeout', { requestTimeout: '-1s' }, /--request-timeout: invalid value/],
  ];
  for (const [name, flags, re] of errors) {
    it(`reference behaviour: ${name} is a clear error`, () => {
      assert.throws(() => resolve(flags), re);
    });
  }

  it('reference behaviour: an empty configuration says no configuration has been provided', () => {
    assert.throws(() => resolveClientConfig({}, { HOME: join(dir, 'nohome') }), /invalid configuration: no configuration has been provided/);
  });

  it('reference behaviour: a token file that cannot be read is an error naming it', () => {
    const f = join(dir, 'gone-token.yaml');
    writeFileSync(f, 'clusters:\n- name: c\n  cluster: {server: "https://x"}\nusers:\n- name: u\n  user: {tokenFile: missing-token}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n');
    assert.throws(() => resolveClientConfig({ kubeconfig: f }, {}), /user "u": tokenFile: cannot read .*missing-token/);
  });

  it('reference behaviour: request timeouts parse like kubectl --request-timeout', () => {
    assert.deepEqual(['0', '10', '2m', '1h', '500ms'].map(parseRequestTimeout), [0, 10_000, 120_000, 3_600_000, 500]);
  });
});
