/**
 * Feature gates and /version on whole servers (spec 3.3, 9.5 rules 9-10): each gate that turns a feature
 * off really does, per server; start-up refuses unknown, removed and locked settings, in process and
 * from the command line.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../src/index.js';
import { PACKAGE_NAME } from '../src/api/naming.js';
import { ENCRYPTION_CONFIG_VERSION } from '../src/encryption/config.js';
import { client } from './helpers/client.js';
import { failsToStart, stopAll, tempDir } from './helpers/apiserver-process.js';
import { startKmsPlugin, type KmsPlugin } from './helpers/kms-plugin.js';

// No in-process controllers: their lists and writes (a root CA ConfigMap per namespace) would be counted here.
const MEMORY = { port: 0, storage: { type: 'memory' as const }, controllers: [] as string[] };
const ROOT = join(import.meta.dirname, '..');

async function withServer<T>(opts: Parameters<typeof startServer>[0], fn: (s: RunningServer) => Promise<T>): Promise<T> {
  const s = await startServer({ ...MEMORY, ...opts });
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

describe('feature gates on a running server (spec 3.3)', () => {
  after(() => stopAll());

  it('spec 3.3: WatchList (alpha) enabled on one server, off on another in the same process', async () => {
    const path = '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1';
    const [on, off] = await Promise.all([startServer({ ...MEMORY, featureGates: { WatchList: true } }), startServer(MEMORY)]);
    try {
      const [a, b] = await Promise.all([client(on)('GET', path), client(off)('GET', path)]);
      assert.equal(a.status, 200, a.text);
      assert.match(a.text, /"BOOKMARK"/);
      assert.equal(b.status, 400, b.text);
      assert.match(b.json.message, /WatchList feature gate/);
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });

  it('spec 3.3: APIResponseCompression=false (beta disabled) sends large lists uncompressed', async () => {
    const big = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { x: 'y'.repeat(200 * 1024) } };
    const encodings = async (gates: Record<string, boolean>) =>
      withServer({ featureGates: gates }, async (s) => {
        const call = client(s);
        assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: big })).status, 201);
        return (await call('GET', '/api/v1/namespaces/default/configmaps', { headers: { 'accept-encoding': 'gzip' } })).headers['content-encoding'];
      });
    assert.deepEqual([await encodings({}), await encodings({ APIResponseCompression: false })], ['gzip', undefined]);
  });

  it('spec 3.3: ConsistentListFromCache=false reads lists without resourceVersion from storage; on, the cache answers', async () => {
    const storageListsPerList = (gates: Record<string, boolean>) =>
      withServer({ featureGates: gates }, async (s) => {
        const call = client(s);
        assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } })).status, 201);
        let lists = 0;
        const list = s.backend.list.bind(s.backend);
        s.backend.list = (...args: Parameters<typeof list>) => (lists++, list(...args));
        const r = await call('GET', '/api/v1/namespaces/default/configmaps');
        assert.equal(r.status, 200);
        assert.deepEqual(r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['c']);
        return lists;
      });
    assert.equal(await storageListsPerList({}), 0);
    assert.ok((await storageListsPerList({ ConsistentListFromCache: false })) >= 1);
  });

  it('spec 3.3: StorageVersionHash=false leaves storageVersionHash out of discovery', async () => {
    const hashes = (gates: Record<string, boolean>) =>
      withServer({ featureGates: gates }, async (s) => {
        const r = await client(s)('GET', '/api/v1');
        return (r.json.resources as { name: string; storageVersionHash?: string }[]).find((x) => x.name === 'configmaps')?.storageVersionHash;
      });
    assert.match((await hashes({})) ?? '', /^[A-Za-z0-9+/=]{8,}$/);
    assert.equal(await hashes({ StorageVersionHash: false }), undefined);
  });

  it('spec 3.3: StructuredAuthenticationConfiguration=false refuses --authentication-config before anything opens', async () => {
    await assert.rejects(
      startServer({ ...MEMORY, featureGates: { StructuredAuthenticationConfiguration: false }, authenticationConfigFile: '/nonexistent/auth.yaml' }),
      /^Error: --authentication-config: cannot be used while the StructuredAuthenticationConfiguration feature gate is disabled/,
    );
  });

  it('spec 3.3: StructuredAuthorizationConfiguration=false refuses --authorization-config', async () => {
    await assert.rejects(
      startServer({ ...MEMORY, featureGates: { StructuredAuthorizationConfiguration: false }, authorizationConfigFile: '/nonexistent/authz.yaml' }),
      /^Error: --authorization-config: cannot be used while the StructuredAuthorizationConfiguration feature gate is disabled/,
    );
  });

  it('spec 3.3: disabling a GA gate and naming an unknown gate are start-up errors naming the gate', async () => {
    await assert.rejects(startServer({ ...MEMORY, featureGates: { KMSv2: false } }), /cannot set feature gate KMSv2 to false, feature is locked to true/);
    await assert.rejects(startServer({ ...MEMORY, featureGates: { APIPriorityAndFairness: true } }), /unrecognized feature gate: APIPriorityAndFairness/);
  });

  it('spec 9.5 rule 10: a deprecated gate set explicitly logs a warning; defaults log none', async () => {
    const logged: string[] = [];
    await withServer({ featureGates: { KMSv1: false }, log: (m) => logged.push(m) }, async () => undefined);
    assert.equal(logged.filter((m) => /KMSv1 feature gate is deprecated/.test(m)).length, 1, logged.join('\n'));
    const quiet: string[] = [];
    await withServer({ log: (m) => quiet.push(m) }, async () => undefined);
    assert.deepEqual(quiet.filter((m) => /feature gate/.test(m)), []);
  });

  describe('KMSv1 (deprecated, off)', () => {
    let plugin: KmsPlugin;
    let configFile: string;
    before(async () => {
      plugin = await startKmsPlugin();
      configFile = join(tempDir('orch-gates-'), 'encryption.json');
      const kms = { apiVersion: 'v1', name: 'legacy', endpoint: plugin.endpoint, cachesize: 10 };
      writeFileSync(configFile, JSON.stringify({ apiVersion: ENCRYPTION_CONFIG_VERSION, kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: [{ kms }, { identity: {} }] }] }));
    });
    after(() => plugin.close());

    it('spec 3.3: without the gate a kms v1 provider stops start-up; with KMSv1=true secrets go through the v1 plugin', async () => {
      await assert.rejects(startServer({ ...MEMORY, encryptionProviderConfig: configFile }), /KMSv1/);
      const before = plugin.calls.encrypt;
      await withServer({ featureGates: { KMSv1: true }, encryptionProviderConfig: configFile }, async (s) => {
        const r = await client(s)('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'dg==' } } });
        assert.equal(r.status, 201, r.text);
      });
      assert.ok(plugin.calls.encrypt > before, 'the v1 plugin encrypted the new secret');
    });
  });

  it('reference behaviour: the command line refuses an unknown gate and a GA gate set false (exit 1, gate named)', async () => {
    const dataDir = tempDir('orch-gates-');
    const unknown = await failsToStart([`--data-dir=${dataDir}`, '--secure-port=0', '--storage-backend=memory', '--feature-gates=WatchList=true,NoSuchGate=true']);
    assert.match(unknown, /--feature-gates: unrecognized feature gate: NoSuchGate/);
    const locked = await failsToStart([`--data-dir=${dataDir}`, '--secure-port=0', '--storage-backend=memory', '--feature-gates=ServerSideApply=false']);
    assert.match(locked, /--feature-gates: cannot set feature gate ServerSideApply to false, feature is locked to true/);
    const gated = await failsToStart([`--data-dir=${dataDir}`, '--secure-port=0', '--storage-backend=memory', '--feature-gates=StructuredAuthorizationConfiguration=false', `--authorization-config=${join(dataDir, 'authz.yaml')}`]);
    assert.match(gated, /--authorization-config: cannot be used while the StructuredAuthorizationConfiguration feature gate is disabled/);
  });
});

describe('/version (reference behaviour)', () => {
  let server: RunningServer;
  before(async () => {
    server = await startServer(MEMORY);
  });
  after(() => server.close());

  it('reports the package version, the checkout commit, the package file time and node; nothing invented', async () => {
    const r = await client(server)('GET', '/version');
    assert.equal(r.status, 200);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    // git's own answer (a fresh clone may keep its refs packed); outside a checkout the field is empty.
    const commit = existsSync(join(ROOT, '.git', 'HEAD')) ? execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() : '';
    const mtime = new Date(Math.floor(statSync(join(ROOT, 'package.json')).mtimeMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    assert.deepEqual(r.json, {
      major: '1',
      minor: '31',
      gitVersion: `v1.31.0+${PACKAGE_NAME}.${pkg.version}`,
      gitCommit: commit,
      gitTreeState: '',
      buildDate: mtime,
      goVersion: '',
      compiler: `node ${process.version}`,
      platform: `${process.platform}/${process.arch}`,
    });
  });
});
