import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { LABEL_DOMAIN, RBAC_GROUP } from '../../api/naming.js';
import type { KubeObject } from '../../client/index.js';
import {
  buildConfigMap,
  buildDockerRegistrySecret,
  buildGenericSecret,
  buildRoleBinding,
  buildClusterRoleBinding,
  DEFAULT_DOCKER_SERVER,
  encodeHash,
  goJson,
  withHashSuffix,
} from './create-generators-build.js';
import { dataKeyProblems, parseEnvFile, parseFileSource, parseLiteralSource, readSources } from './create-generators-sources.js';

const run = promisify(execFile);
const ENV = { FROM_ENV: 'from the environment' };

/** The reference client's own output for a client-side dry run (it needs no server for these kinds). */
async function kubectlGenerated(kubeconfig: string, args: string[]): Promise<KubeObject> {
  const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'create', ...args, '--dry-run=client', '-o', 'json'], { timeout: 20_000, env: { ...process.env, ...ENV } });
  const obj = JSON.parse(stdout.replaceAll('kubernetes.io/', `${LABEL_DOMAIN}/`)) as KubeObject;
  delete obj.metadata.creationTimestamp;
  return obj;
}

describe('create generators: built objects (reference behaviour)', () => {
  // Made at once: the table below names files in it.
  const dir = mkdtempSync(join(tmpdir(), 'orchctl-gen-'));
  const kubeconfig = join(dir, 'kubeconfig');
  before(() => {
    // The reference client wants a kubeconfig even for a client-side dry run; nothing listens at this address.
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'folder', 'b.txt'), 'bee');
    writeFileSync(join(dir, 'folder', 'a.conf'), 'line1\nline2\n');
    writeFileSync(join(dir, 'folder', 'bin.dat'), Buffer.from([0xff, 0x00, 0xfe]));
    mkdirSync(join(dir, 'folder', 'sub'));
    writeFileSync(join(dir, 'app.env'), '\uFEFF# comment\n\n  A=1\nB=x<y&z=\nFROM_ENV\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const env = ENV;
  const cases: { title: string; args: string[]; mine: () => KubeObject }[] = [
    {
      title: 'configmap from literals (quotes kept), a file with a key, a folder (binary file in binaryData)',
      args: ['configmap', 'cm', '--from-literal=a=b', `--from-literal=q='quoted'`, `--from-file=renamed=${join(dir, 'folder', 'b.txt')}`, `--from-file=${join(dir, 'folder')}`],
      mine: () => buildConfigMap('cm', undefined, readSources({ fromLiteral: ['a=b', `q='quoted'`], fromFile: [`renamed=${join(dir, 'folder', 'b.txt')}`, join(dir, 'folder')] }, env)),
    },
    {
      title: 'configmap from an env file (BOM, comments, a bare name read from the environment)',
      args: ['configmap', 'cm', `--from-env-file=${join(dir, 'app.env')}`],
      mine: () => buildConfigMap('cm', undefined, readSources({ fromEnvFile: [join(dir, 'app.env')] }, env)),
    },
    {
      title: 'configmap with --append-hash',
      args: ['configmap', 'cm', '--from-literal=c=<&>', '--from-literal=10=x', '--from-literal=9=y', '--append-hash'],
      mine: () => withHashSuffix(buildConfigMap('cm', undefined, readSources({ fromLiteral: ['c=<&>', '10=x', '9=y'] }, env))),
    },
    {
      title: 'configmap with binary data and --append-hash',
      args: ['configmap', 'cm', `--from-file=${join(dir, 'folder')}`, '--append-hash'],
      mine: () => withHashSuffix(buildConfigMap('cm', undefined, readSources({ fromFile: [join(dir, 'folder')] }, env))),
    },
    {
      title: 'generic secret with a type, namespace and --append-hash',
      args: ['secret', 'generic', 's', '-n', 'team', '--type=example.com/x', '--from-literal=user=admin', `--from-file=${join(dir, 'folder', 'bin.dat')}`, '--append-hash'],
      mine: () => withHashSuffix(buildGenericSecret('s', 'team', readSources({ fromLiteral: ['user=admin'], fromFile: [join(dir, 'folder', 'bin.dat')] }, env), 'example.com/x')),
    },
    {
      title: 'generic secret without a type, hashed',
      args: ['secret', 'generic', 's', '--from-literal=a=b', '--append-hash'],
      mine: () => withHashSuffix(buildGenericSecret('s', undefined, readSources({ fromLiteral: ['a=b'] }, env))),
    },
    {
      // No hash here: it covers the type, whose spelling differs between the namings.
      title: 'docker-registry secret (escaped password, default server)',
      args: ['secret', 'docker-registry', 'd', '--docker-username=u', '--docker-password=p&<>', '--docker-email=e@x'],
      mine: () => buildDockerRegistrySecret('d', undefined, [], { dockerServer: DEFAULT_DOCKER_SERVER, dockerUsername: 'u', dockerPassword: 'p&<>', dockerEmail: 'e@x' }),
    },
    {
      title: 'rolebinding with every kind of subject',
      args: ['rolebinding', 'rb', '--clusterrole=view', '--user=alice', '--group=devs', '--serviceaccount=ns1:robot'],
      mine: () => buildRoleBinding('rb', undefined, { clusterrole: 'view', user: ['alice'], group: ['devs'], serviceaccount: ['ns1:robot'] }),
    },
    {
      title: 'clusterrolebinding',
      args: ['clusterrolebinding', 'crb', '--clusterrole=edit', '--user=bob'],
      mine: () => buildClusterRoleBinding('crb', { clusterrole: 'edit', user: ['bob'] }),
    },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.title} matches what kubectl generates`, async () => {
      const theirs = await kubectlGenerated(kubeconfig, c.args);
      const respelled = JSON.parse(JSON.stringify(theirs).replaceAll('rbac.authorization.k8s.io', RBAC_GROUP));
      assert.deepEqual(c.mine(), respelled);
    });
  }
});

describe('create generators: source parsing (reference behaviour)', () => {
  const literalOk: [string, { key: string; value: string }][] = [
    ['a=b', { key: 'a', value: 'b' }],
    ['a=b=c', { key: 'a', value: 'b=c' }],
    [`k="v"`, { key: 'k', value: '"v"' }],
    ['a=', { key: 'a', value: '' }],
  ];
  for (const [input, want] of literalOk) it(`reference behaviour: --from-literal ${input}`, () => assert.deepEqual(parseLiteralSource(input), want));
  for (const input of ['=b', 'ab']) it(`reference behaviour: --from-literal ${input} is refused`, () => assert.throws(() => parseLiteralSource(input), /not key=value/));
  const fileOk: [string, { key?: string; path: string }][] = [
    ['/x/y.txt', { path: '/x/y.txt' }],
    ['k=/x/y.txt', { key: 'k', path: '/x/y.txt' }],
  ];
  for (const [input, want] of fileOk) it(`reference behaviour: --from-file ${input}`, () => assert.deepEqual(parseFileSource(input), want));
  const fileBad: [string, RegExp][] = [
    ['=/x', /key for file path/],
    ['k=', /file path for key/],
    ['a=b=c', /may contain '='/],
  ];
  for (const [input, want] of fileBad) it(`reference behaviour: --from-file ${input} is refused`, () => assert.throws(() => parseFileSource(input), want));
  it('reference behaviour: data keys: letters, digits, - _ . only, not . or .. or starting with ..', () => {
    assert.deepEqual(dataKeyProblems('good.key-1_x'), []);
    assert.equal(dataKeyProblems('bad key').length, 1);
    assert.equal(dataKeyProblems('..x').length, 1);
    assert.equal(dataKeyProblems('.').length, 1);
    assert.equal(dataKeyProblems('x'.repeat(254)).length, 1);
  });
  it('reference behaviour: env files refuse bad names and name the file and line', () => {
    assert.throws(() => parseEnvFile('A=1\n1BAD=2\n', 'f.env', {}), /f\.env, line 2: "1BAD"/);
  });
  it('reference behaviour: --from-env-file cannot be combined with literals or files', () => {
    assert.throws(() => readSources({ fromEnvFile: ['x'], fromLiteral: ['a=b'] }, {}), /cannot be combined/);
  });
  it('reference behaviour: duplicate keys are refused', () => {
    assert.throws(() => buildConfigMap('c', undefined, readSources({ fromLiteral: ['a=1', 'a=2'] }, {})), /cannot add key "a"/);
    assert.throws(() => buildGenericSecret('s', undefined, readSources({ fromLiteral: ['a=1', 'a=2'] }, {})), /cannot add key "a"/);
  });
  it('reference behaviour: bindings need exactly one role and namespace:name service accounts', () => {
    assert.throws(() => buildRoleBinding('b', undefined, {}), /exactly one of --clusterrole or --role/);
    assert.throws(() => buildRoleBinding('b', undefined, { role: 'r', clusterrole: 'c' }), /exactly one/);
    assert.throws(() => buildRoleBinding('b', undefined, { role: 'r', serviceaccount: ['x'] }), /<namespace>:<name>/);
    assert.throws(() => buildClusterRoleBinding('b', {}), /--clusterrole is required/);
  });
  it('reference behaviour: docker-registry needs --from-file or username, password and server', () => {
    assert.throws(() => buildDockerRegistrySecret('d', undefined, [], { dockerServer: DEFAULT_DOCKER_SERVER, dockerUsername: 'u' }), /--docker-password/);
  });
  it("reference behaviour: Go's JSON text: sorted keys by bytes, HTML characters escaped", () => {
    assert.equal(goJson({ b: 1, a: '<&>', '10': 0, '9': 0 }), '{"10":0,"9":0,"a":"\\u003c\\u0026\\u003e","b":1}');
    assert.equal(encodeHash('0123a5e789ff'), 'gh2km5t789');
  });
});
