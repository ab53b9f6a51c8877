/**
 * orchctl's write commands run in-process (`runCli`) against a started server: create -f, apply
 * (client-side and server-side), replace, patch, label, annotate, scale, delete, wait, logs, dry runs.
 * Where real kubectl can do the same on the same server, its output lines are the reference shapes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type TestServer } from '../src/index.js';
import { runCli } from '../src/cli/main.js';
import { LAST_APPLIED_ANNOTATION } from '../src/api/naming.js';
import { client as httpClient } from './helpers/client.js';
import { crdBody } from './helpers/crd.js';

let server: TestServer;
let kubeconfig: string;
let dir: string;
let call: ReturnType<typeof httpClient>;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function orchctl(args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--kubeconfig', kubeconfig, ...args], {
    out: (t) => void (stdout += t),
    err: (t) => void (stderr += t),
    readStdin: async () => stdin,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    env,
  });
  return { code, stdout, stderr };
}

function kubectl(args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const cm = (name: string, ns: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n${extra}`;

const deployment = (name: string, ns: string, image: string, replicas = 1) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: main
        image: ${image}
`;

const get = async (path: string) => (await call('GET', path)).json;

before(async () => {
  server = await startServer({ crds: [crdBody('stable.example.com')] });
  kubeconfig = server.writeKubeconfig();
  dir = mkdtempSync(join(tmpdir(), 'orchctl-write-'));
  call = httpClient(server);
  for (const ns of ['o', 'k', 'w']) await server.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});

after(async () => {
  await server?.close();
});

test('reference behaviour: create -f, apply, label, annotate, scale, patch and delete print the lines kubectl prints', async () => {
  // The same commands in two namespaces, one through each client; names are the same, so lines must match.
  const steps: { args: (ns: string) => string[]; files?: (ns: string) => string }[] = [
    { args: (ns) => ['create', '-f', file(`c-${ns}.yaml`, `${cm('one', ns)}---\n${cm('two', ns)}`)] },
    { args: (ns) => ['create', '-f', join(dir, `c-${ns}.yaml`)] },
    { args: (ns) => ['apply', '-f', file(`a-${ns}.yaml`, cm('applied', ns, 'data:\n  k: v\n'))] },
    { args: (ns) => ['apply', '-f', join(dir, `a-${ns}.yaml`)] },
    { args: (ns) => ['apply', '-f', file(`a-${ns}.yaml`, cm('applied', ns, 'data:\n  k: changed\n'))] },
    { args: (ns) => ['apply', '-f', file(`d-${ns}.yaml`, deployment('web', ns, 'nginx:1'))] },
    { args: (ns) => ['-n', ns, 'label', 'configmap', 'one', 'tier=web'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/one', 'tier=db'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/one', 'tier=db', '--overwrite'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/one', 'tier-'] },
    { args: (ns) => ['-n', ns, 'annotate', 'configmaps', 'one', 'two', 'note=hello world'] },
    { args: (ns) => ['-n', ns, 'annotate', 'configmap/one', 'note=x', '-o', 'name', '--overwrite'] },
    { args: (ns) => ['-n', ns, 'annotate', 'configmap/one', 'note=x', '--overwrite'] },
    { args: (ns) => ['-n', ns, 'annotate', 'configmap/one', 'note-'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/one', 'absent-'] },
    { args: (ns) => ['-n', ns, 'annotate', 'configmap/one', 'absent-'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/one', 'bad key=1'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/two', 'a=1', 'b=2'] },
    { args: (ns) => ['-n', ns, 'label', 'configmap/two', 'a=1'] },
    { args: (ns) => ['-n', ns, 'scale', 'deployment/web', '--replicas=3'] },
    { args: (ns) => ['-n', ns, 'scale', 'deployment/web', '--replicas=4', '--current-replicas=2'] },
    { args: (ns) => ['-n', ns, 'patch', 'configmap', 'two', '-p', '{"data":{"a":"b"}}'] },
    { args: (ns) => ['-n', ns, 'patch', 'configmap', 'two', '--type', 'merge', '-p', '{"data":{"a":"b"}}'] },
    { args: (ns) => ['-n', ns, 'patch', 'configmap/two', '--type', 'json', '-p', '[{"op":"add","path":"/data/c","value":"d"}]'] },
    { args: (ns) => ['-n', ns, 'delete', 'configmap', 'one', 'missing'] },
    { args: (ns) => ['-n', ns, 'delete', 'configmap', '--all'] },
    { args: (ns) => ['-n', ns, 'delete', 'deployment.apps/web', '-o', 'name'] },
  ];
  for (const step of steps) {
    const mine = await orchctl(step.args('o'));
    const ref = await kubectl(step.args('k'));
    assert.equal(mine.stdout.replaceAll(' o ', ' k '), ref.stdout.replaceAll(' o ', ' k '), `stdout of ${step.args('k').join(' ')}\nstderr: ${mine.stderr}`);
    assert.equal(mine.code, ref.code, `exit code of ${step.args('k').join(' ')}: ${mine.stderr} / ${ref.stderr}`);
  }
});

test('spec 1.7: create -f reports each failure and creates the rest (exit 1); --dry-run=server stores nothing', async () => {
  const path = file('partial.yaml', `${cm('p1', 'w')}---\n${cm('p2', 'w')}`);
  assert.equal((await orchctl(['create', '-f', path, '--dry-run=server'])).stdout, 'configmap/p1 created (server dry run)\nconfigmap/p2 created (server dry run)\n');
  assert.equal((await call('GET', '/api/v1/namespaces/w/configmaps/p1')).status, 404);
  await orchctl(['create', '-f', file('p1.yaml', cm('p1', 'w'))]);
  const r = await orchctl(['create', '-f', path]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, 'configmap/p2 created\n');
  assert.match(r.stderr, /^Error from server \(AlreadyExists\): error when creating ".*partial.yaml[^"]*": configmaps "p1" already exists\n$/);
});

test('reference behaviour: client-side apply keeps fields other writers set and removes fields dropped from the file', async () => {
  const path = file('keep.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: w\n  labels: {a: "1", b: "2"}\ndata:\n  x: "1"\n  z: "2"\n`);
  assert.equal((await orchctl(['apply', '-f', path])).stdout, 'configmap/keep created\n');
  const stored = await get('/api/v1/namespaces/w/configmaps/keep');
  assert.deepEqual(JSON.parse(stored.metadata.annotations[LAST_APPLIED_ANNOTATION]).data, { x: '1', z: '2' });
  await orchctl(['-n', 'w', 'label', 'cm', 'keep', 'other=set-elsewhere']);
  writeFileSync(path, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: w\n  labels: {a: "1"}\ndata:\n  x: "1"\n`);
  assert.equal((await orchctl(['apply', '-f', path])).stdout, 'configmap/keep configured\n');
  const after = await get('/api/v1/namespaces/w/configmaps/keep');
  assert.deepEqual(after.metadata.labels, { a: '1', other: 'set-elsewhere' });
  assert.deepEqual(after.data, { x: '1' });
  assert.equal((await orchctl(['apply', '-f', path])).stdout, 'configmap/keep unchanged\n');
});

test('reference behaviour: client-side apply of a deployment merges containers by name (strategic merge)', async () => {
  await orchctl(['apply', '-f', file('dep.yaml', deployment('merge', 'w', 'nginx:1'))]);
  // Another writer adds a sidecar; the next apply changes the image and must keep the sidecar.
  await call('PATCH', '/apis/apps/v1/namespaces/w/deployments/merge', {
    raw: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } }),
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  const r = await orchctl(['apply', '-f', file('dep.yaml', deployment('merge', 'w', 'nginx:2'))]);
  assert.equal(r.stdout, 'deployment.apps/merge configured\n', r.stderr);
  const dep = await get('/apis/apps/v1/namespaces/w/deployments/merge');
  assert.deepEqual(dep.spec.template.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`).sort(), ['main=nginx:2', 'sidecar=busybox']);
});

test('reference behaviour: apply --server-side, conflicts with another manager, --force-conflicts', async () => {
  const path = file('ssa.yaml', cm('ssa', 'w', 'data:\n  k: one\n'));
  const first = await orchctl(['apply', '--server-side', '-f', path]);
  assert.equal(first.stdout, 'configmap/ssa serverside-applied\n', first.stderr);
  const other = await orchctl(['apply', '--server-side', '--field-manager', 'other', '-f', file('ssa2.yaml', cm('ssa', 'w', 'data:\n  k: two\n'))]);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /Error from server \(Conflict\)/);
  assert.match(other.stderr, /--force-conflicts/);
  const forced = await orchctl(['apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', join(dir, 'ssa2.yaml')]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal((await get('/api/v1/namespaces/w/configmaps/ssa')).data.k, 'two');
  const bad = await orchctl(['apply', '--force-conflicts', '-f', path]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--force-conflicts applies to --server-side only/);
});

test('reference behaviour: replace -f puts the whole object; --force deletes and creates it again', async () => {
  await orchctl(['create', '-f', file('r.yaml', cm('rep', 'w', 'data:\n  a: "1"\n'))]);
  const r = await orchctl(['replace', '-f', file('r2.yaml', cm('rep', 'w', 'data:\n  b: "2"\n'))]);
  assert.equal(r.stdout, 'configmap/rep replaced\n', r.stderr);
  assert.deepEqual((await get('/api/v1/namespaces/w/configmaps/rep')).data, { b: '2' });
  const uid = (await get('/api/v1/namespaces/w/configmaps/rep')).metadata.uid;
  const f = await orchctl(['replace', '--force', '-f', join(dir, 'r2.yaml')]);
  assert.equal(f.stdout, 'configmap "rep" deleted\nconfigmap/rep replaced\n', f.stderr);
  assert.notEqual((await get('/api/v1/namespaces/w/configmaps/rep')).metadata.uid, uid);
});

test('reference behaviour: patch reports "patched (no change)" when nothing changed; bad patches are usage errors', async () => {
  await orchctl(['create', '-f', file('pa.yaml', cm('pa', 'w', 'data:\n  a: "1"\n'))]);
  assert.equal((await orchctl(['-n', 'w', 'patch', 'cm', 'pa', '-p', 'data: {a: "2"}'])).stdout, 'configmap/pa patched\n');
  assert.equal((await orchctl(['-n', 'w', 'patch', 'cm', 'pa', '-p', '{"data":{"a":"2"}}'])).stdout, 'configmap/pa patched (no change)\n');
  const wrong = await orchctl(['-n', 'w', 'patch', 'cm', 'pa', '--type', 'json', '-p', '{"data":{}}']);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /a json patch is a list of operations/);
  const dry = await orchctl(['-n', 'w', 'patch', 'cm', 'pa', '-p', '{"data":{"a":"3"}}', '--dry-run=server', '-o', 'jsonpath={.data.a}']);
  assert.equal(dry.stdout, '3');
  assert.equal((await get('/api/v1/namespaces/w/configmaps/pa')).data.a, '2');
});

test('reference behaviour: delete --wait waits for finalizers, --timeout ends the wait with exit 1; --cascade is validated', async () => {
  await orchctl(['create', '-f', file('fin.yaml', cm('fin', 'w'))]);
  await call('PATCH', '/api/v1/namespaces/w/configmaps/fin', { raw: JSON.stringify({ metadata: { finalizers: ['example.com/hold'] } }), headers: { 'content-type': 'application/merge-patch+json' } });
  const timedOut = await orchctl(['-n', 'w', 'delete', 'cm', 'fin', '--timeout=500ms']);
  assert.equal(timedOut.code, 1);
  assert.equal(timedOut.stdout, 'configmap "fin" deleted\n');
  assert.match(timedOut.stderr, /timed out waiting for configmaps\/fin to be deleted/);
  const waiting = orchctl(['-n', 'w', 'delete', 'cm', 'fin', '--cascade=foreground', '--timeout=20s']);
  await new Promise((r) => setTimeout(r, 300));
  await call('PATCH', '/api/v1/namespaces/w/configmaps/fin', { raw: JSON.stringify({ metadata: { finalizers: null } }), headers: { 'content-type': 'application/merge-patch+json' } });
  const done = await waiting;
  assert.equal(done.code, 0, done.stderr);
  assert.equal((await call('GET', '/api/v1/namespaces/w/configmaps/fin')).status, 404);
  const bad = await orchctl(['-n', 'w', 'delete', 'cm', 'x', '--cascade=sideways']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid --cascade value "sideways"/);
});

test('reference behaviour: wait --for=condition, --for=jsonpath, --for=delete, and a timeout (exit 1)', async () => {
  await orchctl(['apply', '-f', file('wd.yaml', deployment('waited', 'w', 'nginx:1'))]);
  const waiting = orchctl(['-n', 'w', 'wait', 'deploy/waited', '--for=condition=Available', '--timeout=20s']);
  await new Promise((r) => setTimeout(r, 200));
  const status = { status: { observedGeneration: 1, conditions: [{ type: 'Available', status: 'True', reason: 'Test', message: 'up', lastUpdateTime: new Date().toISOString().replace(/\.\d+/, ''), lastTransitionTime: new Date().toISOString().replace(/\.\d+/, '') }] } };
  const patched = await call('PATCH', '/apis/apps/v1/namespaces/w/deployments/waited/status', { raw: JSON.stringify(status), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.text);
  const met = await waiting;
  assert.equal(met.stdout, 'deployment.apps/waited condition met\n', met.stderr);
  const jp = await orchctl(['-n', 'w', 'wait', 'deploy/waited', '--for=jsonpath={.spec.replicas}=1', '--timeout=5s']);
  assert.equal(jp.stdout, 'deployment.apps/waited condition met\n', jp.stderr);
  const late = await orchctl(['-n', 'w', 'wait', 'deploy/waited', '--for=condition=Progressing', '--timeout=300ms']);
  assert.equal(late.code, 1);
  assert.match(late.stderr, /timed out waiting for the condition on deployments\/waited/);
  const gone = orchctl(['-n', 'w', 'wait', 'deploy/waited', '--for=delete', '--timeout=20s']);
  await new Promise((r) => setTimeout(r, 200));
  await call('DELETE', '/apis/apps/v1/namespaces/w/deployments/waited');
  assert.equal((await gone).code, 0);
  const bad = await orchctl(['-n', 'w', 'wait', 'deploy/waited', '--for=ready']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--for=ready: use delete, create/);
});

test('reference behaviour: logs reads the pod log subresource; an unscheduled pod has an empty log; other kinds are refused', async () => {
  await server.apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lp', namespace: 'w' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  const empty = await orchctl(['-n', 'w', 'logs', 'lp', '--tail=10']);
  assert.deepEqual([empty.code, empty.stdout], [0, ''], empty.stderr);
  const other = await orchctl(['-n', 'w', 'logs', 'deploy/x']);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /names a deploy/);
  const missing = await orchctl(['-n', 'w', 'logs', 'nope']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Error from server \(NotFound\): pods "nope" not found/);
});

test('reference behaviour: edit sends the changes made in $EDITOR; an unchanged file cancels', async () => {
  await orchctl(['create', '-f', file('ed.yaml', cm('ed', 'w', 'data:\n  k: before\n'))]);
  const edited = await orchctl(['-n', 'w', 'edit', 'cm/ed'], { EDITOR: `sed -i 's/k: before/k: after/'` });
  assert.equal(edited.stdout, 'configmap/ed edited\n', edited.stderr);
  assert.equal((await get('/api/v1/namespaces/w/configmaps/ed')).data.k, 'after');
  const cancelled = await orchctl(['-n', 'w', 'edit', 'cm/ed'], { EDITOR: 'true' });
  assert.deepEqual([cancelled.code, cancelled.stdout, cancelled.stderr], [0, '', 'Edit cancelled, no changes made.\n']);
});

test('reference behaviour: edit reopens the file with the conflict as a comment and saving again applies the changes', async () => {
  await orchctl(['create', '-f', file('edc.yaml', cm('edc', 'w', 'data:\n  k: before\n'))]);
  const seen = join(dir, 'seen.txt');
  const count = join(dir, 'count');
  // First run: another writer changes the object, then the user edits. Second run: saves as is.
  const script = file(
    'editor.sh',
    `#!/bin/sh\nif [ ! -f '${count}' ]; then\n  touch '${count}'\n  kubectl --kubeconfig '${kubeconfig}' -n w label cm edc meanwhile=yes >/dev/null\n  sed -i 's/k: before/k: after/' "$1"\nelse\n  cp "$1" '${seen}'\nfi\n`,
  );
  const r = await orchctl(['-n', 'w', 'edit', 'cm', 'edc'], { EDITOR: `sh ${script}` });
  assert.equal(r.stdout, 'configmap/edc edited\n', r.stderr);
  const reopened = (await import('node:fs')).readFileSync(seen, 'utf8');
  assert.match(reopened, /^# .*was not saved \(Conflict\)/m);
  assert.match(reopened, /k: after/);
  const obj = await get('/api/v1/namespaces/w/configmaps/edc');
  assert.equal(obj.data.k, 'after');
  assert.equal(obj.metadata.labels.meanwhile, 'yes');
});

test('reference behaviour: client-side apply of a custom resource uses a JSON merge patch; scale works through its scale subresource', async () => {
  const ct = (extra: string) => `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct1\n  namespace: w\nspec:\n  cronSpec: "* * * * */5"\n${extra}`;
  const path = file('ct.yaml', ct('  image: one\n  replicas: 1\n'));
  assert.equal((await orchctl(['apply', '-f', path])).stdout, 'crontab.stable.example.com/ct1 created\n');
  writeFileSync(path, ct('  replicas: 1\n'));
  const r = await orchctl(['apply', '-f', path]);
  assert.equal(r.stdout, 'crontab.stable.example.com/ct1 configured\n', r.stderr);
  const stored = await get('/apis/stable.example.com/v1/namespaces/w/crontabs/ct1');
  assert.deepEqual(stored.spec, { cronSpec: '* * * * */5', replicas: 1 });
  const scaled = await orchctl(['-n', 'w', 'scale', 'crontab/ct1', '--replicas=3']);
  assert.equal(scaled.stdout, 'crontab.stable.example.com/ct1 scaled\n', scaled.stderr);
  assert.equal((await get('/apis/stable.example.com/v1/namespaces/w/crontabs/ct1')).spec.replicas, 3);
  const notScalable = await orchctl(['-n', 'w', 'scale', 'configmap/keep', '--replicas=3']);
  assert.equal(notScalable.code, 1);
  assert.match(notScalable.stderr, /cannot be scaled/);
});
