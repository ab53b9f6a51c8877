/**
 * `orchctl config ...` on real kubeconfig files, next to kubectl doing the same on a copy: same output
 * lines, same resulting entries; and the server's own admin kubeconfig used as it is written.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startServer, type TestServer } from '../src/index.js';
import { kubectl } from './helpers/kubectl.js';
import { orchctlProcess } from './helpers/orchctl.js';

const entries = (file: string) => {
  const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return { contexts: doc.contexts, clusters: doc.clusters, users: doc.users, current: doc['current-context'] };
};

describe('orchctl config', () => {
  let server: TestServer;
  let dir: string;
  let admin: string;

  before(async () => {
    server = await startServer({});
    dir = mkdtempSync(join(tmpdir(), 'orchctl-config-'));
    admin = server.writeKubeconfig(join(dir, 'admin.kubeconfig'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: changes and listings match kubectl on a copy of the same file', async () => {
    const ours = join(dir, 'ours');
    const theirs = join(dir, 'theirs');
    copyFileSync(admin, ours);
    copyFileSync(admin, theirs);
    const k = kubectl(theirs);
    const steps = [
      ['config', 'set-context', 'dev', '--cluster', 'orch', '--user', 'admin', '--namespace', 'team'],
      ['config', 'set-context', 'dev', '--namespace', 'other'],
      ['config', 'set-cluster', 'second', '--server', 'https://127.0.0.1:1', '--insecure-skip-tls-verify'],
      ['config', 'set-credentials', 'bob', '--token', 'secret-token'],
      ['config', 'use-context', 'dev'],
      ['config', 'current-context'],
      ['config', 'get-contexts'],
      ['config', 'get-contexts', '-o', 'name'],
    ];
    for (const args of steps) {
      const r = await orchctlProcess(ours, args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, await k(args), args.join(' '));
    }
    assert.deepEqual(entries(ours), entries(theirs));
    const missing = await orchctlProcess(ours, ['config', 'use-context', 'nope']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'error: no context exists with the name: "nope"\n');
  });

  it('reference behaviour: config view hides secrets unless --raw; --minify keeps the current context only', async () => {
    const view = await orchctlProcess(admin, ['config', 'view']);
    assert.equal(view.code, 0, view.stderr);
    const doc = parseYaml(view.stdout) as { users: { user: { token: string } }[]; clusters: { cluster: Record<string, string> }[] };
    assert.equal(doc.users[0]!.user.token, 'REDACTED');
    assert.equal(doc.clusters[0]!.cluster['certificate-authority-data'], 'DATA+OMITTED');
    const raw = parseYaml((await orchctlProcess(admin, ['config', 'view', '--raw', '--minify'])).stdout) as typeof doc;
    assert.equal(raw.users[0]!.user.token, server.adminToken);
  });

  it('issue 22: the environment variable lists several files, merged in order (first wins)', async () => {
    const extra = join(dir, 'extra.kubeconfig');
    writeFileSync(extra, ['apiVersion: v1', 'kind: Config', 'current-context: nowhere', 'contexts:', '- name: nowhere', '  context: {cluster: orch, user: admin, namespace: elsewhere}', ''].join('\n'));
    const env = { ...process.env, HOME: dir, ORCHCONFIG: `${admin}:${extra}` };
    const r = await orchctlProcess(undefined, ['config', 'get-contexts', '-o', 'name'], { env });
    assert.deepEqual([r.code, r.stdout], [0, 'admin@orch\nnowhere\n']);
    const current = await orchctlProcess(undefined, ['config', 'current-context'], { env });
    assert.equal(current.stdout, 'admin@orch\n');
    // The second file's context works against the first file's cluster and user.
    const ns = await orchctlProcess(undefined, ['--context', 'nowhere', 'get', 'configmaps'], { env });
    assert.deepEqual([ns.code, ns.stderr], [0, 'No resources found in elsewhere namespace.\n']);
  });

  it('README: the admin kubeconfig the server writes works as it is, also as ~/.orch/config', async () => {
    const r = await orchctlProcess(admin, ['get', 'namespaces', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^namespace\/default$/m);
    const home = mkdtempSync(join(tmpdir(), 'orchctl-home-'));
    try {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(home, '.orch'));
      copyFileSync(admin, join(home, '.orch', 'config'));
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
      delete env.ORCHCONFIG;
      const viaHome = await orchctlProcess(undefined, ['get', 'ns', 'default', '-o', 'name'], { env });
      assert.deepEqual([viaHome.code, viaHome.stdout], [0, 'namespace/default\n']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('reference behaviour: no configuration at all is a clear error, not a crash', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, 'empty-home') };
    delete env.ORCHCONFIG;
    const r = await orchctlProcess(undefined, ['get', 'pods'], { env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: invalid configuration: no configuration has been provided/);
  });
});
