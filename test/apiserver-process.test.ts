import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { client, watchEvents } from './helpers/client.js';

const BIN = fileURLToPath(new URL('../bin/orch-apiserver.js', import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'orch-proc-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

interface Started {
  child: ChildProcess;
  url: string;
  kubeconfig: string;
  exited: Promise<number | null>;
}

/** Starts `orch-apiserver` as a real process and waits for its "listening" line. */
async function startProcess(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, '--secure-port=0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const lines = createInterface({ input: child.stdout! });
  let url = '';
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => {
      const m = /listening on (\S+)/.exec(l);
      if (m) url = m[1]!;
      const k = /--kubeconfig (\S+)/.exec(l);
      if (k) resolve(k[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, url, kubeconfig, exited };
}

function clientFor(kubeconfigPath: string, url: string) {
  const cfg = parse(readFileSync(kubeconfigPath, 'utf8'));
  return client({
    url,
    caCertPem: Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString(),
    adminToken: cfg.users[0].user.token,
  });
}

/** Runs the binary expecting a start-up failure; resolves its stderr. */
async function failsToStart(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  assert.equal(code, 1, stderr);
  return stderr;
}

describe('orch-apiserver process (spec 4.9, 5.3)', () => {
  it('starts on SQLite, writes admin.kubeconfig, and drains on SIGTERM without losing an acknowledged write', async () => {
    const dir = tempDir();
    const first = await startProcess([`--data-dir=${dir}`, '--shutdown-delay-duration=1s']);
    const call = clientFor(first.kubeconfig, first.url);
    assert.equal((await call('GET', '/readyz')).status, 200);
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'durable' }, data: { k: 'v' } },
    });
    assert.equal(created.status, 201);
    first.child.kill('SIGTERM');
    // During the shutdown delay the server still serves, but /readyz fails first.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await call('GET', '/readyz')).status, 500);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/durable')).status, 200);
    assert.equal(await first.exited, 0);

    const second = await startProcess([`--data-dir=${dir}`]);
    const again = clientFor(second.kubeconfig, second.url);
    const got = await again('GET', '/api/v1/namespaces/default/configmaps/durable');
    assert.equal(got.status, 200, 'the write survived the restart');
    assert.equal(got.json.metadata.uid, created.json.metadata.uid);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });

  it('start-up errors name the flag or the line, and exit 1', async () => {
    assert.match(await failsToStart(['--authorization-mode=Sometimes']), /--authorization-mode: unknown authorization mode "Sometimes"/);
    assert.match(await failsToStart(['--storage-backend=floppy']), /--storage-backend/);
    assert.match(await failsToStart(['--no-such-flag']), /no-such-flag/);
    const dir = tempDir();
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'good-token,alice,uid-1\nbroken-line-only-two,bob\n');
    assert.match(await failsToStart([`--data-dir=${dir}`, `--token-auth-file=${tokens}`]), /tokens\.csv:2/);
  });

  it('--token-auth-file users authenticate and are authorized by RBAC (the default mode); --anonymous-auth=false rejects requests without credentials', async () => {
    const dir = tempDir();
    const tokens = join(dir, 'users.csv');
    writeFileSync(tokens, 'alice-token,alice,uid-1,devs\n');
    const s = await startProcess([`--data-dir=${dir}`, `--token-auth-file=${tokens}`, '--anonymous-auth=false']);
    try {
      const admin = clientFor(s.kubeconfig, s.url);
      const ca = Buffer.from(parse(readFileSync(s.kubeconfig, 'utf8')).clusters[0].cluster['certificate-authority-data'], 'base64').toString();
      const alice = client({ url: s.url, caCertPem: ca, adminToken: 'alice-token' });
      const anon = client({ url: s.url, caCertPem: ca, adminToken: '' });
      assert.equal((await admin('GET', '/api/v1/namespaces')).status, 200);
      const denied = await alice('GET', '/api/v1/namespaces');
      assert.equal(denied.status, 403, denied.text);
      assert.match(denied.json.message, /User "alice" cannot list resource "namespaces" in API group "" at the cluster scope/);
      const bind = await admin('POST', '/apis/rbac.authorization.orch.io/v1/clusterrolebindings', {
        body: {
          apiVersion: 'rbac.authorization.orch.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'devs-view' },
          roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.orch.io', name: 'devs' }],
        },
      });
      assert.equal(bind.status, 201, bind.text);
      const deadline = Date.now() + 5000;
      let r = await alice('GET', '/api/v1/namespaces/default/configmaps');
      while (r.status !== 200 && Date.now() < deadline) {
        await new Promise((x) => setTimeout(x, 50));
        r = await alice('GET', '/api/v1/namespaces/default/configmaps');
      }
      assert.equal(r.status, 200, r.text);
      assert.equal((await alice('GET', '/api/v1/namespaces/default/secrets')).status, 403, 'view cannot read secrets');
      assert.equal((await anon('GET', '/api/v1/namespaces', { token: null })).status, 401);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  });

  it('two server processes on one SQLite file see each other\'s writes in their watches (architecture rule 1)', async () => {
    const dir = tempDir();
    const a = await startProcess([`--data-dir=${dir}`]);
    const b = await startProcess([`--data-dir=${dir}`]);
    try {
      const cfg = parse(readFileSync(a.kubeconfig, 'utf8'));
      const ca = Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
      const token = cfg.users[0].user.token as string;
      const sa = { url: a.url, caCertPem: ca, adminToken: token };
      const sb = { url: b.url, caCertPem: ca, adminToken: token };
      const rv = (await client(sa)('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
      const onA = watchEvents(sa, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, 2, 10_000);
      const onB = watchEvents(sb, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, 2, 10_000);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await client(sa)('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-a' } } })).status, 201);
      assert.equal((await client(sb)('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-b' } } })).status, 201);
      for (const events of [await onA, await onB]) {
        assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED from-a', 'ADDED from-b']);
      }
    } finally {
      a.child.kill('SIGTERM');
      b.child.kill('SIGTERM');
      await Promise.all([a.exited, b.exited]);
    }
  });
});
