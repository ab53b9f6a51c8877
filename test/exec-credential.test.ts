import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLIENT_AUTHENTICATION_GROUP, EXEC_INFO_ENV } from '../src/api/naming.js';
import { ExecCredentialSource, checkExecConfig, connectionForServer, resolveClientConfig, type ClusterConnection, type ExecConfig } from '../src/client/config/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { ensureServingCerts, issueClientCert } from '../src/server/tls.js';

const V1 = `${CLIENT_AUTHENTICATION_GROUP}/v1`;
const V1BETA1 = `${CLIENT_AUTHENTICATION_GROUP}/v1beta1`;

/**
 * The plugin: counts its runs in $COUNT_FILE, keeps the ExecCredential it was given in $INFO_FILE, then
 * answers as $MODE says, in the apiVersion it was asked for unless the mode says otherwise.
 */
const PLUGIN = `#!/usr/bin/env node
const fs = require('node:fs');
const e = process.env;
const n = (fs.existsSync(e.COUNT_FILE) ? Number(fs.readFileSync(e.COUNT_FILE, 'utf8')) : 0) + 1;
fs.writeFileSync(e.COUNT_FILE, String(n));
const info = JSON.parse(e.${EXEC_INFO_ENV});
fs.writeFileSync(e.INFO_FILE, JSON.stringify({ info, stdinIsTTY: process.stdin.isTTY === true, extra: e.EXTRA ?? null, args: process.argv.slice(2) }));
const answer = (status, over = {}) => process.stdout.write(JSON.stringify({ apiVersion: info.apiVersion, kind: 'ExecCredential', status, ...over }));
const cert = () => ({ clientCertificateData: fs.readFileSync(e.CERT_FILE, 'utf8'), clientKeyData: fs.readFileSync(e.KEY_FILE, 'utf8') });
switch (e.MODE) {
  case 'token': answer(e.EXPIRES ? { token: 'tok-' + n, expirationTimestamp: e.EXPIRES } : { token: 'tok-' + n }); break;
  case 'admin': answer({ token: e.ADMIN_TOKEN }); break;
  case 'cert': answer(cert()); break;
  case 'fail': process.stderr.write('no session, please log in'); process.exit(3);
  case 'nojson': process.stdout.write('hello there'); break;
  case 'wrongversion': answer({ token: 'x' }, { apiVersion: 'client.authentication.k8s.io/v1' }); break;
  case 'wrongkind': answer({ token: 'x' }, { kind: 'Secret' }); break;
  case 'both': answer({ token: 'x', ...cert() }); break;
  case 'neither': answer({}); break;
  case 'badexpiry': answer({ token: 'x', expirationTimestamp: 'tomorrow' }); break;
  case 'sleep': setTimeout(() => answer({ token: 'late' }), 10000); break;
}
`;

describe('exec credential plugins (spec 2.10, 5.6)', () => {
  let dir: string;
  let plugin: string;
  let certFile: string;
  let keyFile: string;
  let seq = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-exec-'));
    plugin = join(dir, 'plugin.cjs');
    writeFileSync(plugin, PLUGIN);
    chmodSync(plugin, 0o755);
    const ca = await ensureServingCerts(join(dir, 'ca'), { hosts: [] });
    const c = await issueClientCert(ca, { commonName: 'exec-user' });
    certFile = join(dir, 'c.crt');
    keyFile = join(dir, 'c.key');
    writeFileSync(certFile, c.certPem);
    writeFileSync(keyFile, c.keyPem);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A fresh plugin configuration with its own count and info files. */
  const setup = (mode: string, over: ExecConfig = {}, extraEnv: Record<string, string> = {}) => {
    const id = ++seq;
    const count = join(dir, `count-${id}`);
    const info = join(dir, `info-${id}`);
    const env = Object.entries({ MODE: mode, COUNT_FILE: count, INFO_FILE: info, CERT_FILE: certFile, KEY_FILE: keyFile, ...extraEnv }).map(([name, value]) => ({ name, value }));
    const exec: ExecConfig = { command: plugin, apiVersion: V1, interactiveMode: 'Never', env, ...over };
    return {
      exec,
      runs: () => Number(readFileSync(count, 'utf8')),
      seen: () => JSON.parse(readFileSync(info, 'utf8')) as { info: { apiVersion: string; kind: string; spec: Record<string, unknown> }; stdinIsTTY: boolean; extra: string | null; args: string[] },
    };
  };
  const source = (exec: ExecConfig, opts: Partial<ConstructorParameters<typeof ExecCredentialSource>[1]> = {}) =>
    new ExecCredentialSource(checkExecConfig(exec, 'user "u"'), { userName: 'u', stdinIsTerminal: false, ...opts });

  for (const version of [V1, V1BETA1]) {
    it(`spec 2.10: ${version}: the token is cached until expirationTimestamp, then the plugin runs again`, async () => {
      let now = Date.parse('2030-01-01T00:00:00Z');
      const p = setup('token', { apiVersion: version }, { EXPIRES: '2030-01-01T00:10:00Z' });
      const src = source(p.exec, { now: () => now });
      assert.deepEqual(await src.get(), { token: 'tok-1' });
      now += 9 * 60_000;
      assert.deepEqual(await src.get(), { token: 'tok-1' });
      assert.equal(p.runs(), 1);
      now += 2 * 60_000;
      assert.deepEqual(await src.get(), { token: 'tok-2' });
      assert.equal(p.runs(), 2);
      assert.equal(p.seen().info.apiVersion, version);
      assert.equal(p.seen().info.kind, 'ExecCredential');
    });
  }

  it('spec 2.10: without expirationTimestamp the answer is kept until invalidate (a 401), which causes one new run', async () => {
    const p = setup('token');
    const src = source(p.exec);
    const first = await src.get();
    assert.deepEqual(await src.get(), { token: 'tok-1' });
    src.invalidate(first);
    const results = await Promise.all([src.get(), src.get(), src.get()]);
    assert.deepEqual(results, [{ token: 'tok-2' }, { token: 'tok-2' }, { token: 'tok-2' }]);
    src.invalidate(first); // a late 401 for the old token does not run the plugin again
    assert.deepEqual(await src.get(), { token: 'tok-2' });
    assert.equal(p.runs(), 2);
  });

  it('spec 2.10: concurrent callers share one run', async () => {
    const p = setup('token');
    const src = source(p.exec);
    const all = await Promise.all(Array.from({ length: 8 }, () => src.get()));
    assert.ok(all.every((c) => c.token === 'tok-1'));
    assert.equal(p.runs(), 1);
  });

  it('spec 2.10: a client certificate and key answer; args and env reach the plugin', async () => {
    const p = setup('cert', { args: ['--a', 'b'] }, { EXTRA: 'yes' });
    const creds = await source(p.exec).get();
    assert.equal(creds.certPem, readFileSync(certFile, 'utf8'));
    assert.equal(creds.keyPem, readFileSync(keyFile, 'utf8'));
    assert.equal(creds.token, undefined);
    assert.deepEqual([p.seen().args, p.seen().extra], [['--a', 'b'], 'yes']);
  });

  it(`spec 2.10: ${EXEC_INFO_ENV} holds spec.interactive and, only with provideClusterInfo, spec.cluster with every field and the extension config`, async () => {
    const kubeconfig = join(dir, 'kc-info');
    const without = setup('token');
    const withInfo = setup('token', { provideClusterInfo: true });
    const user = (name: string, exec: ExecConfig) => `- name: ${name}\n  user:\n    exec: ${JSON.stringify(exec)}\n`;
    writeFileSync(
      kubeconfig,
      `clusters:
- name: c
  cluster:
    server: https://api.example:6443
    tls-server-name: api.internal
    certificate-authority-data: ${Buffer.from('CA-PEM').toString('base64')}
    proxy-url: http://proxy:3128
    disable-compression: true
    extensions:
    - name: ${CLIENT_AUTHENTICATION_GROUP}/exec
      extension: {audience: orch-prod}
    - name: other
      extension: {ignored: true}
users:
${user('plain', without.exec)}${user('info', withInfo.exec)}contexts:
- name: plain
  context: {cluster: c, user: plain}
- name: info
  context: {cluster: c, user: info}
`,
    );
    await resolveClientConfig({ kubeconfig, context: 'plain' }, process.env, { stdinIsTerminal: false }).connection.credentials.get();
    assert.deepEqual(without.seen().info.spec, { interactive: false });
    await resolveClientConfig({ kubeconfig, context: 'info' }, process.env, { stdinIsTerminal: false }).connection.credentials.get();
    assert.deepEqual(withInfo.seen().info.spec, {
      interactive: false,
      cluster: {
        server: 'https://api.example:6443',
        'tls-server-name': 'api.internal',
        'certificate-authority-data': Buffer.from('CA-PEM').toString('base64'),
        'proxy-url': 'http://proxy:3128',
        'disable-compression': true,
        config: { audience: 'orch-prod' },
      },
    });
    const insecure = setup('token', { provideClusterInfo: true });
    writeFileSync(kubeconfig, `clusters:\n- name: c\n  cluster: {server: "https://h:1", insecure-skip-tls-verify: true}\nusers:\n${user('u', insecure.exec)}contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`);
    await resolveClientConfig({ kubeconfig }, process.env, { stdinIsTerminal: false }).connection.credentials.get();
    assert.deepEqual(insecure.seen().info.spec.cluster, { server: 'https://h:1', 'insecure-skip-tls-verify': true });
  });

  const interactive: [string, boolean, boolean][] = [
    ['Never', true, false],
    ['Never', false, false],
    ['IfAvailable', true, true],
    ['IfAvailable', false, false],
    ['Always', true, true],
  ];
  for (const [mode, terminal, want] of interactive) {
    it(`spec 2.10: interactiveMode ${mode} with${terminal ? '' : 'out'} a terminal gives spec.interactive=${want}`, async () => {
      const p = setup('token', { interactiveMode: mode });
      await source(p.exec, { stdinIsTerminal: terminal, promptOutput: process.stdout }).get();
      assert.equal(p.seen().info.spec.interactive, want);
    });
  }

  it('spec 2.10: v1beta1 without interactiveMode means IfAvailable; v1 requires it', async () => {
    const p = setup('token', { apiVersion: V1BETA1, interactiveMode: '' });
    await source(p.exec, { stdinIsTerminal: true, promptOutput: process.stdout }).get();
    assert.equal(p.seen().info.spec.interactive, true);
    assert.throws(() => checkExecConfig({ command: 'x', apiVersion: V1 }, 'user "u"'), /user "u": exec\.interactiveMode: must be given/);
    assert.throws(() => checkExecConfig({ command: 'x', apiVersion: V1, interactiveMode: 'Sometimes' }, 'user "u"'), /"Sometimes" is not one of Never, IfAvailable, Always/);
    assert.throws(() => checkExecConfig({ apiVersion: V1 }, 'user "u"'), /exec\.command: must be given/);
    assert.throws(() => checkExecConfig({ command: 'x' }, 'user "u"'), /exec\.apiVersion: must be given/);
  });

  const failures: [string, string, ExecConfig, Record<string, string>, RegExp][] = [
    ['Always without a terminal', 'token', { interactiveMode: 'Always' }, {}, /exec plugin ".*plugin\.cjs" of user "u": needs a terminal \(interactiveMode Always\)/],
    ['non-zero exit, with its stderr', 'fail', {}, {}, /exec plugin ".*plugin\.cjs" of user "u": exited with code 3: no session, please log in/],
    ['no JSON', 'nojson', {}, {}, /of user "u": did not print an ExecCredential in JSON$/],
    ['another apiVersion', 'wrongversion', {}, {}, /answered apiVersion "client\.authentication\.k8s\.io\/v1", but it is configured for client\.authentication\.orch\.io\/v1/],
    ['another kind', 'wrongkind', {}, {}, /answered kind "Secret", not ExecCredential/],
    ['token and certificate both', 'both', {}, {}, /answered both a token and a client certificate/],
    ['neither token nor certificate', 'neither', {}, {}, /answered neither status\.token nor status\.clientCertificateData/],
    ['a bad expirationTimestamp', 'badexpiry', {}, {}, /status\.expirationTimestamp that is not an RFC 3339 time/],
    ['missing command, with the install hint', 'token', { command: join('/nonexistent', 'orch-login'), installHint: 'Install orch-login from the team wiki.' }, {}, /exec plugin "\/nonexistent\/orch-login" of user "u": executable "\/nonexistent\/orch-login" was not found[^]*\nInstall orch-login from the team wiki\.$/],
    ['missing command on PATH', 'token', { command: 'orch-no-such-plugin' }, {}, /executable "orch-no-such-plugin" was not found/],
    ['timeout', 'sleep', {}, {}, /of user "u": gave no answer within 0\.3s and was stopped/],
  ];
  for (const [name, mode, over, env, re] of failures) {
    it(`spec 2.10: a plugin failure is a clear error naming it (${name})`, async () => {
      const p = setup(mode, over, env);
      const src = source(p.exec, { timeoutMs: 300 });
      await assert.rejects(async () => src.get(), (e: Error) => {
        assert.match(e.message, re);
        assert.doesNotMatch(e.message, /tok-|BEGIN/, 'no secret in the message');
        return true;
      });
    });
  }

  it('spec 2.10: a failed run is not cached; the next call runs the plugin again', async () => {
    const p = setup('fail');
    const src = source(p.exec);
    await assert.rejects(async () => src.get());
    await assert.rejects(async () => src.get());
    assert.equal(p.runs(), 2);
  });

  describe('end to end against a started server', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' } });
    });
    after(() => server.close());

    const get = (conn: ClusterConnection, token: string | undefined) =>
      new Promise<number>((resolveStatus, reject) => {
        const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
        const req = request(`${conn.server}/api/v1/namespaces`, { ca: conn.caPem, headers }, (res) => {
          res.resume();
          res.on('end', () => resolveStatus(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });

    it('spec 5.6: a plugin printing the admin token authenticates an HTTPS request', async () => {
      const p = setup('admin', {}, { ADMIN_TOKEN: server.adminToken });
      const kubeconfig = join(dir, 'kc-e2e');
      const ca = Buffer.from(server.caCertPem).toString('base64');
      writeFileSync(
        kubeconfig,
        `clusters:\n- name: local\n  cluster: {server: "${server.url}", certificate-authority-data: ${ca}}\nusers:\n- name: admin\n  user:\n    exec: ${JSON.stringify(p.exec)}\ncontexts:\n- name: local\n  context: {cluster: local, user: admin}\ncurrent-context: local\n`,
      );
      const { connection } = resolveClientConfig({ kubeconfig }, process.env, { stdinIsTerminal: false });
      const creds = await connection.credentials.get();
      assert.equal(await get(connection, creds.token), 200);
      assert.equal(await get(connection, undefined), 403, 'without the plugin\'s token the same request is anonymous and forbidden');
    });

    it('reference behaviour: the test helper builds a working connection from startServer()', async () => {
      const conn = connectionForServer(server);
      assert.equal(conn.server, server.url);
      assert.equal(await get(conn, (await conn.credentials.get()).token), 200);
    });
  });
});
