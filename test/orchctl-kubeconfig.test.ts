/**
 * How the real `bin/orchctl.js` picks its configuration (spec 2.10; the reference client's loading rules):
 * the files of $ORCHCONFIG merged in order (the first file setting an entry or current-context wins),
 * `--kubeconfig` replacing them, the `--context`/`--user`/`--cluster`/`-n` overrides, `config view`
 * redacted and raw, and `config use-context` writing to the file that holds current-context.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml, stringify } from 'yaml';
import { CLIENT_CONFIG_ENV } from '../src/api/naming.js';
import { startServer, type TestServer } from '../src/index.js';
import { orchctlProcess } from './helpers/orchctl.js';

type Doc = Record<string, unknown>;
const UNREACHABLE = 'https://127.0.0.1:1';

describe('orchctl kubeconfig loading and merging (spec 2.10)', () => {
  let server: TestServer;
  let dir: string;
  let ca: string;
  let files: { a: string; b: string; c: string; d: string };

  const cluster = (name: string, url: string) => ({ name, cluster: { server: url, 'certificate-authority-data': ca } });
  const user = (name: string, token: string) => ({ name, user: { token } });
  const context = (name: string, c: string, u: string, namespace?: string) => ({ name, context: { cluster: c, user: u, ...(namespace ? { namespace } : {}) } });
  const config = (o: { clusters?: unknown[]; users?: unknown[]; contexts?: unknown[]; current?: string }): Doc => ({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: o.clusters ?? [],
    users: o.users ?? [],
    contexts: o.contexts ?? [],
    ...(o.current ? { 'current-context': o.current } : {}),
  });
  const write = (name: string, doc: Doc) => {
    const file = join(dir, name);
    writeFileSync(file, stringify(doc));
    return file;
  };

  /**
   * a: the admin user with the right token, context ctx-a (namespace team-a), current-context ctx-a.
   * b: cluster "real" (the server), the admin user with a wrong token, ctx-b (team-b), current-context ctx-c.
   * c: cluster "real" pointing nowhere, cluster "nowhere", user viewer, ctx-c, current-context ctx-b.
   * d: a file of its own for --kubeconfig: ctx-d (team-b) only.
   */
  const writeFiles = () => {
    files = {
      a: write('a.yaml', config({ users: [user('admin', server.tokens.admin!)], contexts: [context('ctx-a', 'real', 'admin', 'team-a')], current: 'ctx-a' })),
      b: write('b.yaml', config({ clusters: [cluster('real', server.url)], users: [user('admin', 'wrong-token-from-b')], contexts: [context('ctx-b', 'real', 'admin', 'team-b')], current: 'ctx-c' })),
      c: write('c.yaml', config({ clusters: [cluster('real', UNREACHABLE), cluster('nowhere', UNREACHABLE)], users: [user('viewer', server.tokens.viewer!)], contexts: [context('ctx-c', 'real', 'viewer')], current: 'ctx-b' })),
      d: write('d.yaml', config({ clusters: [cluster('real', server.url)], users: [user('admin', server.tokens.admin!)], contexts: [context('ctx-d', 'real', 'admin', 'team-b')], current: 'ctx-d' })),
    };
  };
  const env = (list: string[] = [files.a, files.b, files.c]) => ({ PATH: process.env.PATH, HOME: dir, [CLIENT_CONFIG_ENV]: list.join(delimiter) });
  const run = (args: string[], e = env()) => orchctlProcess(undefined, args, { env: e });

  before(async () => {
    server = await startServer({ users: [{ name: 'viewer' }] });
    dir = mkdtempSync(join(tmpdir(), 'orchctl-kubeconfig-'));
    ca = Buffer.from(server.caCertPem).toString('base64');
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-in-a', namespace: 'team-a' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only-in-b', namespace: 'team-b' } },
    ]);
    writeFiles();
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`reference behaviour: ${CLIENT_CONFIG_ENV} files merge in order, the first file setting an entry or current-context wins`, async () => {
    const current = await run(['config', 'current-context']);
    assert.equal(current.stdout, 'ctx-a\n', current.stderr);
    const view = await run(['config', 'view', '--raw', '-o', 'json']);
    assert.equal(view.code, 0, view.stderr);
    const merged = JSON.parse(view.stdout) as { clusters: { name: string; cluster: { server: string } }[]; users: { name: string; user: { token: string } }[]; contexts: { name: string }[] };
    assert.equal(merged.clusters.find((c) => c.name === 'real')?.cluster.server, server.url);
    assert.equal(merged.users.find((u) => u.name === 'admin')?.user.token, server.tokens.admin);
    assert.deepEqual(merged.contexts.map((c) => c.name).sort(), ['ctx-a', 'ctx-b', 'ctx-c']);
    // The merged admin (a's token) on the merged "real" cluster (b's server), in ctx-a's namespace.
    const got = await run(['get', 'configmaps', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /configmap\/only-in-a/);
    assert.doesNotMatch(got.stdout, /only-in-b/);
  });

  it('reference behaviour: --context, -n, --user and --cluster override the current context', async () => {
    const ctxB = await run(['--context', 'ctx-b', 'get', 'configmaps', '-o', 'name']);
    assert.equal(ctxB.code, 0, ctxB.stderr);
    assert.match(ctxB.stdout, /configmap\/only-in-b/);
    const ns = await run(['--context', 'ctx-b', '-n', 'team-a', 'get', 'configmaps', '-o', 'name']);
    assert.match(ns.stdout, /configmap\/only-in-a/);
    const asViewer = await run(['--user', 'viewer', 'auth', 'whoami', '-o', 'json']);
    assert.equal(asViewer.code, 0, asViewer.stderr);
    assert.equal((JSON.parse(asViewer.stdout) as { status: { userInfo: { username: string } } }).status.userInfo.username, 'viewer');
    const elsewhere = await run(['--cluster', 'nowhere', 'get', 'namespaces']);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /127\.0\.0\.1:1/);
  });

  it(`reference behaviour: --kubeconfig replaces ${CLIENT_CONFIG_ENV}; a context of the other files is unknown then`, async () => {
    const current = await run(['--kubeconfig', files.d, 'config', 'current-context']);
    assert.equal(current.stdout, 'ctx-d\n', current.stderr);
    const got = await run(['--kubeconfig', files.d, 'get', 'configmaps', '-o', 'name']);
    assert.match(got.stdout, /configmap\/only-in-b/);
    const missing = await run(['--kubeconfig', files.d, '--context', 'ctx-a', 'get', 'namespaces']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ctx-a/);
  });

  it('reference behaviour: config view redacts tokens and embedded certificates; --raw shows them', async () => {
    const redacted = parseYaml((await run(['config', 'view'])).stdout) as { clusters: { cluster: Doc }[]; users: { name: string; user: Doc }[] };
    assert.ok(redacted.users.every((u) => u.user.token === 'REDACTED'), JSON.stringify(redacted.users));
    assert.ok(redacted.clusters.every((c) => c.cluster['certificate-authority-data'] === 'DATA+OMITTED'));
    const raw = parseYaml((await run(['config', 'view', '--raw'])).stdout) as { clusters: { cluster: Doc }[]; users: { name: string; user: Doc }[] };
    assert.equal(raw.users.find((u) => u.name === 'viewer')?.user.token, server.tokens.viewer);
    assert.ok(raw.clusters.every((c) => c.cluster['certificate-authority-data'] === ca));
  });

  it('reference behaviour: config use-context writes to the first file that sets current-context, leaving the others', async () => {
    const before = { b: readFileSync(files.b, 'utf8'), c: readFileSync(files.c, 'utf8') };
    const r = await run(['config', 'use-context', 'ctx-b']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Switched to context "ctx-b".\n');
    assert.equal((parseYaml(readFileSync(files.a, 'utf8')) as Doc)['current-context'], 'ctx-b');
    assert.deepEqual({ b: readFileSync(files.b, 'utf8'), c: readFileSync(files.c, 'utf8') }, before);
    assert.equal((await run(['config', 'current-context'])).stdout, 'ctx-b\n');

    // Without a current-context in the first file, the second file's is the one changed.
    writeFiles();
    const noCurrent = write('a.yaml', config({ users: [user('admin', server.tokens.admin!)], contexts: [context('ctx-a', 'real', 'admin', 'team-a')] }));
    const again = await run(['config', 'use-context', 'ctx-a'], env([noCurrent, files.b, files.c]));
    assert.equal(again.code, 0, again.stderr);
    assert.equal((parseYaml(readFileSync(noCurrent, 'utf8')) as Doc)['current-context'], undefined);
    assert.equal((parseYaml(readFileSync(files.b, 'utf8')) as Doc)['current-context'], 'ctx-a');
    assert.equal((parseYaml(readFileSync(files.c, 'utf8')) as Doc)['current-context'], 'ctx-b');
  });
});
