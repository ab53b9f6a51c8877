/**
 * orchctl's read commands, run as the real `bin/orchctl.js` against a started server, compared with what
 * the reference client (kubectl on PATH) prints for the same objects on the same server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startServer, type TestServer } from '../src/index.js';
import { kubectl } from './helpers/kubectl.js';
import { orchctlProcess, orchctlSpawn } from './helpers/orchctl.js';

/** Ages differ by the second between two runs: blank the AGE column (and ages inside other cells). */
const noAges = (text: string): string => text.replace(/\b\d+(s|m|h|d)(\d+(s|m|h))?\b/g, 'AGE').replace(/ +/g, ' ');

describe('orchctl read commands', () => {
  let server: TestServer;
  let kc: string;
  let k: (args: string[], input?: string) => Promise<string>;
  const run = (args: string[]) => orchctlProcess(kc, args);

  before(async () => {
    server = await startServer({});
    kc = server.writeKubeconfig();
    k = kubectl(kc);
    await k(['create', 'namespace', 'team']);
    await k(['create', 'configmap', 'web', '--from-literal=a=1', '-n', 'team']);
    await k(['create', 'configmap', 'db', '--from-literal=a=1', '--from-literal=b=2', '-n', 'team']);
    await k(['label', 'configmap', 'web', 'app=web', 'tier=front', '-n', 'team']);
    await k(['create', 'secret', 'generic', 's1', '--from-literal=k=v', '-n', 'team']);
  });
  after(async () => {
    await server.close();
  });

  it('spec 1.7: get prints the server table with the columns kubectl prints', async () => {
    const ours = await run(['get', 'configmaps', '-n', 'team']);
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(noAges(ours.stdout), noAges(await k(['get', 'configmaps', '-n', 'team'])));
    assert.match(ours.stdout, /^NAME\s+DATA\s+AGE\n/);
  });

  it('reference behaviour: several kinds are separate tables with kind/name names', async () => {
    const ours = await run(['get', 'cm,secrets', '-n', 'team']);
    assert.equal(ours.code, 0, ours.stderr);
    assert.equal(noAges(ours.stdout), noAges(await k(['get', 'cm,secrets', '-n', 'team'])));
    assert.match(ours.stdout, /configmap\/web/);
    assert.match(ours.stdout, /secret\/s1/);
  });

  it('reference behaviour: -A adds NAMESPACE, --show-labels and -L add label columns', async () => {
    for (const args of [['get', 'cm', '-A', '--show-labels'], ['get', 'cm', '-n', 'team', '-L', 'app,tier'], ['get', 'cm', '-n', 'team', '--no-headers']]) {
      const ours = await run(args);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(noAges(ours.stdout), noAges(await k(args)), args.join(' '));
    }
  });

  it('reference behaviour: -o name, jsonpath and custom-columns print what kubectl prints', async () => {
    for (const args of [
      ['get', 'cm,secret', '-n', 'team', '-o', 'name'],
      ['get', 'cm', 'web', '-n', 'team', '-o', 'jsonpath={.metadata.name} {.data.a}'],
      ['get', 'cm', '-n', 'team', '-o', 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}'],
      ['get', 'cm', '-n', 'team', '-o', 'custom-columns=NAME:.metadata.name,DATA:.data,MISSING:.spec.x'],
    ]) {
      const ours = await run(args);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(ours.stdout, await k(args), args.join(' '));
    }
  });

  it('spec 2.3: several objects or kinds in -o yaml|json are one aggregated List', async () => {
    const yaml = await run(['get', 'cm,secret', '-n', 'team', '-o', 'yaml']);
    assert.equal(yaml.code, 0, yaml.stderr);
    const ours = parseYaml(yaml.stdout) as { kind: string; apiVersion: string; items: { kind: string; metadata: { name: string } }[] };
    const theirs = parseYaml(await k(['get', 'cm,secret', '-n', 'team', '-o', 'yaml'])) as typeof ours;
    assert.equal(ours.kind, 'List');
    assert.equal(ours.apiVersion, 'v1');
    assert.deepEqual(ours.items.map((i) => `${i.kind}/${i.metadata.name}`), theirs.items.map((i) => `${i.kind}/${i.metadata.name}`));
    const json = await run(['get', 'cm', 'web', '-n', 'team', '-o', 'json']);
    assert.deepEqual(JSON.parse(json.stdout), JSON.parse(await k(['get', 'cm', 'web', '-n', 'team', '-o', 'json'])));
    assert.match(json.stdout, /^\{\n {4}"apiVersion": "v1",\n/);
    const single = await run(['get', 'cm', 'web', '-n', 'team', '-o', 'yaml']);
    assert.equal(single.stdout, await k(['get', 'cm', 'web', '-n', 'team', '-o', 'yaml']));
  });

  it('reference behaviour: a missing name prints the Status as kubectl does and exits 1, after what was found', async () => {
    const ours = await run(['get', 'cm', 'web', 'nope', '-n', 'team', '-o', 'name']);
    assert.equal(ours.code, 1);
    assert.equal(ours.stdout, 'configmap/web\n');
    assert.equal(ours.stderr, 'Error from server (NotFound): configmaps "nope" not found\n');
    const unknown = await run(['get', 'widgets']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `error: the server doesn't have a resource type "widgets"\n`);
    const ignored = await run(['get', 'cm', 'nope', '-n', 'team', '--ignore-not-found']);
    assert.deepEqual([ignored.code, ignored.stdout, ignored.stderr], [0, '', '']);
  });

  it('reference behaviour: an empty result says so on stderr', async () => {
    const ours = await run(['get', 'cm', '-n', 'team', '-l', 'app=none']);
    assert.deepEqual([ours.code, ours.stdout, ours.stderr], [0, '', 'No resources found in team namespace.\n']);
  });

  it('reference behaviour: -l and --field-selector filter on the server; --chunk-size pages the list', async () => {
    const byLabel = await run(['get', 'cm', '-n', 'team', '-l', 'app=web', '-o', 'name']);
    assert.equal(byLabel.stdout, 'configmap/web\n');
    const byField = await run(['get', 'cm', '-n', 'team', '--field-selector', 'metadata.name=db', '-o', 'name']);
    assert.equal(byField.stdout, 'configmap/db\n');
    const paged = await run(['get', 'cm', '-n', 'team', '--chunk-size', '1', '-v', '6']);
    assert.equal(paged.code, 0, paged.stderr);
    assert.match(paged.stderr, /configmaps\?limit=1&includeObject=None 200/);
    assert.match(paged.stderr, /configmaps\?limit=1&continue=[^&\s]+&includeObject=None 200/);
    assert.equal(noAges(paged.stdout), noAges(await k(['get', 'cm', '-n', 'team'])));
  });

  it('reference behaviour: get -w prints the list, then a row per change aligned with it', async () => {
    const w = orchctlSpawn(kc, ['get', 'cm', '-n', 'team', '-w']);
    try {
      await w.waitFor('web');
      await k(['create', 'configmap', 'watched', '-n', 'team']);
      await w.waitFor('watched');
      assert.match(w.output(), /^NAME\s+DATA\s+AGE\n/);
      // The watched row keeps the columns of the list above it, as the reference's remembered widths do.
      assert.match(w.output(), /\nwatched {12}0 {6}\d+s\n/);
    } finally {
      w.child.kill();
      await k(['delete', 'configmap', 'watched', '-n', 'team']);
    }
  });

  it('spec 1.7: api-resources and api-versions print what kubectl prints', async () => {
    for (const args of [['api-resources'], ['api-resources', '-o', 'wide', '--api-group', 'apps'], ['api-resources', '-o', 'name', '--namespaced=false'], ['api-versions']]) {
      const ours = await run(args);
      assert.equal(ours.code, 0, ours.stderr);
      assert.equal(ours.stdout, await k(args), args.join(' '));
    }
  });

  it('spec 1.7: explain reads the served OpenAPI: kind header, field type, fields', async () => {
    const ours = await run(['explain', 'deployments.spec.replicas']);
    assert.equal(ours.code, 0, ours.stderr);
    assert.match(ours.stdout, /^GROUP: {6}apps\nKIND: {7}Deployment\nVERSION: {4}v1\n\nFIELD: replicas <integer>\n/);
    const cm = await run(['explain', 'configmaps']);
    assert.match(cm.stdout, /\nFIELDS:\n {2}apiVersion\t<string>\n/);
    assert.match(cm.stdout, /\n {2}data\t<map\[string\]string>\n/);
    assert.match(cm.stdout, /\n {2}metadata\t<ObjectMeta>\n/);
    const bad = await run(['explain', 'configmaps.nope']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /field "nope" does not exist/);
  });

  it('spec 1.7: describe shows name, namespace, labels, fields and events', async () => {
    const ours = await run(['describe', 'cm', 'web', '-n', 'team']);
    assert.equal(ours.code, 0, ours.stderr);
    assert.match(ours.stdout, /^Name: {9}web\nNamespace: {4}team\nLabels: {7}app=web\n {14}tier=front\nAnnotations: {2}<none>\n/);
    assert.match(ours.stdout, /\nEvents: {2}<none>\n$/);
    // A name prefix matches, as the reference's describe does.
    const prefix = await run(['describe', 'cm', 'we', '-n', 'team']);
    assert.match(prefix.stdout, /^Name: {9}web\n/);
    const missing = await run(['describe', 'cm', 'zzz', '-n', 'team']);
    assert.deepEqual([missing.code, missing.stderr], [1, 'Error from server (NotFound): configmaps "zzz" not found\n']);
  });

  it('reference behaviour: version prints the client and the server version', async () => {
    const ours = await run(['version']);
    assert.equal(ours.code, 0, ours.stderr);
    const serverVersion = (JSON.parse(await k(['version', '-o', 'json'])) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion;
    assert.match(ours.stdout, new RegExp(`^Client Version: v1\\.31\\.0\\+orch\\.[^\\n]+\\nServer Version: ${serverVersion.replace(/[.+]/g, '\\$&')}\\n$`));
    const client = await orchctlProcess(undefined, ['version', '--client', '-o', 'json'], { env: { ...process.env, HOME: '/nonexistent' } });
    assert.equal(client.code, 0, client.stderr);
    assert.deepEqual(Object.keys(JSON.parse(client.stdout) as object), ['clientVersion']);
  });

  it('reference behaviour: --as impersonates (the server sees the other user)', async () => {
    const ours = await run(['get', 'cm', '-n', 'team', '--as', 'nobody']);
    assert.equal(ours.code, 1);
    assert.match(ours.stderr, /^Error from server \(Forbidden\): configmaps is forbidden: User "nobody" cannot list resource "configmaps"/);
  });
});
