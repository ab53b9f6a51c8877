import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ENCRYPTED_VALUE_PREFIX, ENCRYPTION_CONFIG_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { EtcdBackend, etcdAvailable, startEtcd, type EtcdProcess } from '../src/storage/etcd/index.js';
import { failsToStart } from './helpers/apiserver-process.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const MARKER = 'hunter2-plaintext-marker';
const KEY = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const SECRET_KEY = (ns: string, name: string) => `/registry/core/secrets/${ns}/${name}`;

/** secrets: aesgcm with the given keys in order (the first writes), then identity. */
function configYaml(keys: [string, number][], identity = true): string {
  return [
    `apiVersion: ${ENCRYPTION_CONFIG_GROUP}/v1`,
    'kind: EncryptionConfiguration',
    'resources:',
    '- resources: [secrets]',
    '  providers:',
    '  - aesgcm:',
    '      keys:',
    ...keys.map(([name, fill]) => `      - {name: ${name}, secret: ${KEY(fill)}}`),
    ...(identity ? ['  - identity: {}'] : []),
  ].join('\n');
}

const secret = (name: string, ns = 'default') => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData: { password: MARKER } });

/** The newest stored bytes of a key, read from the SQLite file itself (read-only, beside the server). */
function rawSqlite(file: string, key: string): Buffer {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1').get(key) as { value: Buffer } | undefined;
    assert.ok(row, `no row for ${key}`);
    return row.value;
  } finally {
    db.close();
  }
}

const noPlaintext = (raw: Buffer) => !raw.includes(MARKER) && !raw.includes(Buffer.from(MARKER).toString('base64'));

describe('encryption at rest over SQLite (spec 2.12): prefixes, rotation, a removed key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-'));
  const configFile = join(dir, 'encryption.yaml');
  const dbFile = join(dir, 'orch.db');
  let server: RunningServer | undefined;
  const start = async (yaml: string) => {
    writeFileSync(configFile, yaml);
    server = await startServer({ port: 0, dataDir: dir, writeKubeconfig: true, storage: { type: 'sqlite', path: dbFile }, encryptionProviderConfig: configFile });
    return client(server);
  };
  const stop = async () => {
    await server?.close();
    server = undefined;
  };
  after(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.12: the stored Secret carries the aesgcm prefix and no plaintext; other resources stay plain; reads give it back', async () => {
    const call = await start(configYaml([['key1', 1]]));
    for (const [name, ns] of [['s1', 'default'], ['s2', 'default'], ['s3', 'orch-system']] as const) {
      const r = await call('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret(name, ns) });
      assert.equal(r.status, 201, r.text);
    }
    const cm = await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: MARKER } } });
    assert.equal(cm.status, 201, cm.text);
    const raw = rawSqlite(dbFile, SECRET_KEY('default', 's1'));
    assert.ok(raw.toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:key1:`), raw.toString('latin1').slice(0, 40));
    assert.ok(noPlaintext(raw));
    assert.ok(rawSqlite(dbFile, '/registry/core/configmaps/default/c').includes(MARKER));
    const got = await call('GET', '/api/v1/namespaces/default/secrets/s1');
    assert.equal(Buffer.from(got.json.data.password, 'base64').toString(), MARKER);
    await stop();
  });

  it('spec 2.12: rotation: new key first and restart; a no-op update and kubectl replace re-encrypt; the old key removed, all readable', async () => {
    const call = await start(configYaml([['key2', 2], ['key1', 1]]));
    const before = await call('GET', '/api/v1/namespaces/default/secrets/s2');
    assert.equal(before.status, 200, before.text);
    // A PUT of the object exactly as read changes nothing, yet is written: it was read with the older key.
    const put = await call('PUT', '/api/v1/namespaces/default/secrets/s2', { body: before.json });
    assert.equal(put.status, 200, put.text);
    assert.notEqual(put.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
    assert.ok(rawSqlite(dbFile, SECRET_KEY('default', 's2')).toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:key2:`));
    assert.ok(rawSqlite(dbFile, SECRET_KEY('default', 's1')).toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:key1:`));
    // The way users rewrite everything (kubectl validates the List against /openapi/v2 in protobuf first).
    const k = kubectl(server!.kubeconfigPath!);
    const all = await k(['get', 'secrets', '-A', '-o', 'json']);
    await k(['replace', '-f', '-'], all);
    for (const [ns, name] of [['default', 's1'], ['default', 's2'], ['orch-system', 's3']]) {
      const raw = rawSqlite(dbFile, SECRET_KEY(ns!, name!));
      assert.ok(raw.toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:key2:`), `${ns}/${name}`);
      assert.ok(noPlaintext(raw));
    }
    await stop();
    const after = await start(configYaml([['key2', 2]], false));
    const list = await after('GET', '/api/v1/secrets');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((s: { metadata: { name: string } }) => s.metadata.name).sort(), ['s1', 's2', 's3']);
    await stop();
  });

  it('spec 2.12, spec 7: a value encrypted with a removed key is a 500 naming that object only; a list over it fails clearly', async () => {
    let call = await start(configYaml([['key3', 3]], false));
    assert.equal((await call('POST', '/api/v1/namespaces/default/secrets', { body: secret('lost') })).status, 201);
    await stop();
    call = await start(configYaml([['key2', 2]], false));
    const lost = await call('GET', '/api/v1/namespaces/default/secrets/lost');
    assert.equal(lost.status, 500, lost.text);
    assert.equal(lost.json.reason, 'InternalError');
    assert.match(lost.json.message, /secrets\/default\/lost/);
    assert.match(lost.json.message, /aesgcm:v1:key3:/);
    assert.ok(!lost.text.includes(MARKER));
    const fine = await call('GET', '/api/v1/namespaces/default/secrets/s1');
    assert.equal(fine.status, 200, fine.text);
    for (const path of ['/api/v1/namespaces/default/secrets', '/api/v1/secrets', '/api/v1/namespaces/default/secrets?limit=1']) {
      const list = await call('GET', path);
      assert.equal(list.status, 500, `${path}: ${list.text}`);
      assert.match(list.json.message, /secrets\/default\/lost/);
    }
    // Namespaces without the object list normally.
    assert.equal((await call('GET', '/api/v1/namespaces/orch-system/secrets')).status, 200);
    await stop();
  });
});

describe('encryption at rest over etcd (spec 2.12)', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: EtcdProcess;
  let server: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-etcd-'));
  before(async () => {
    etcd = await startEtcd();
    writeFileSync(join(dir, 'enc.yaml'), configYaml([['etcdkey', 4]]));
    server = await startServer({ port: 0, storage: { type: 'etcd', endpoints: [etcd.endpoint], keyPrefix: '/orch-enc' }, encryptionProviderConfig: join(dir, 'enc.yaml') });
  });
  after(async () => {
    await server?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.12: the etcd key holds the prefixed ciphertext, no plaintext', async () => {
    const call = client(server);
    assert.equal((await call('POST', '/api/v1/namespaces/default/secrets', { body: secret('e1') })).status, 201);
    // A second client without encryption sees the bytes as etcd holds them.
    const raw = new EtcdBackend({ endpoints: [etcd.endpoint], keyPrefix: '/orch-enc' });
    try {
      const kv = await raw.get(SECRET_KEY('default', 'e1'));
      assert.ok(kv);
      const bytes = Buffer.from(kv.value);
      assert.ok(bytes.toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:etcdkey:`));
      assert.ok(noPlaintext(bytes));
    } finally {
      await raw.close();
    }
    const got = await call('GET', '/api/v1/namespaces/default/secrets/e1');
    assert.equal(Buffer.from(got.json.data.password, 'base64').toString(), MARKER);
  });
});

describe('encryption configuration at start-up and on reload (spec 2.12)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-enc-cfg-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('spec 2.12: a bad file stops the CLI naming the flag, the file and the field', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, configYaml([['short', 1]]).replace(KEY(1), Buffer.alloc(10).toString('base64')));
    const stderr = await failsToStart([`--data-dir=${join(dir, 'd1')}`, '--storage-backend=memory', `--encryption-provider-config=${file}`]);
    assert.match(stderr, /--encryption-provider-config: .*bad\.yaml: resources\[0\]\.providers\[0\]\.aesgcm\.keys\[0\]\.secret: .*got 10/);
    const reloadAlone = await failsToStart([`--data-dir=${join(dir, 'd2')}`, '--storage-backend=memory', '--encryption-provider-config-automatic-reload=true']);
    assert.match(reloadAlone, /--encryption-provider-config-automatic-reload: requires --encryption-provider-config/);
  });

  it('spec 2.12: automatic reload takes a valid new file, keeps the old one when the new one is invalid; kms-providers health', async () => {
    const file = join(dir, 'reload.yaml');
    writeFileSync(file, configYaml([['r1', 5]]));
    const logs: string[] = [];
    const dbFile = join(dir, 'reload.db');
    const server = await startServer({ port: 0, storage: { type: 'sqlite', path: dbFile }, encryptionProviderConfig: file, encryptionProviderConfigAutomaticReload: true, log: (m) => logs.push(m) });
    const call = client(server);
    const prefixOf = async (name: string) => {
      assert.equal((await call('POST', '/api/v1/namespaces/default/secrets', { body: secret(name) })).status, 201);
      return rawSqlite(dbFile, SECRET_KEY('default', name));
    };
    try {
      assert.ok((await prefixOf('a')).toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:r1:`));
      writeFileSync(file, configYaml([['r2', 6], ['r1', 5]]));
      await waitFor(() => logs.some((l) => /reloaded/.test(l)));
      assert.ok((await prefixOf('b')).toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:r2:`));
      writeFileSync(file, 'kind: EncryptionConfiguration\nresources: []\n');
      await waitFor(() => logs.some((l) => /not reloaded/.test(l)));
      assert.ok((await prefixOf('c')).toString('latin1').startsWith(`${ENCRYPTED_VALUE_PREFIX}aesgcm:v1:r2:`));
      assert.equal((await call('GET', '/api/v1/namespaces/default/secrets/a')).status, 200);
      const health = await call('GET', '/readyz/kms-providers');
      assert.equal(health.status, 200, health.text);
      assert.equal((await call('GET', '/livez/kms-providers')).status, 200);
    } finally {
      await server.close();
    }
  });
});

async function waitFor(f: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!f()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
