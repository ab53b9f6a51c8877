import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { APISERVER_GROUP } from '../src/api/naming.js';
import { startServer } from '../src/index.js';
import { etcdAvailable, startEtcd, type EtcdProcess } from '../src/storage/etcd/index.js';
import { failsToStart, startApiserver, stopAll, tempDir } from './helpers/apiserver-process.js';
import { client, watchEvents } from './helpers/client.js';
import { startConnectProxy, type ConnectProxy } from './helpers/connect-proxy.js';

/** An EgressSelectorConfiguration file: `etcd` through `proxyUrl`, or Direct when it is undefined. */
function egressFile(dir: string, proxyUrl: string | undefined): string {
  const etcd = proxyUrl === undefined
    ? { name: 'etcd', connection: { proxyProtocol: 'Direct' } }
    : { name: 'etcd', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: proxyUrl } } } };
  const file = join(dir, 'egress.json');
  writeFileSync(file, JSON.stringify({ apiVersion: `${APISERVER_GROUP}/v1beta1`, kind: 'EgressSelectorConfiguration', egressSelections: [etcd] }));
  return file;
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: name } });

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('etcd through the egress selector (spec 2.12)', { skip: !etcdAvailable() && 'etcd is not installed' }, () => {
  let etcd: EtcdProcess;
  const proxies: ConnectProxy[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    stopAll();
    await Promise.all(proxies.map((p) => p.close()));
    await etcd?.stop();
  });
  const etcdAuthority = () => new URL(etcd.endpoint).host;

  it('spec 2.12: a server whose etcd selection is HTTPConnect creates, gets and watches through the proxy, which saw the tunnels to etcd', async () => {
    const proxy = await startConnectProxy({ kind: 'tcp' });
    proxies.push(proxy);
    const dir = tempDir();
    const s = await startApiserver(['--storage-backend=etcd', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/egress-a', `--data-dir=${dir}`, `--egress-selector-config-file=${egressFile(dir, proxy.address)}`]);
    const call = client(s.target);
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('through-proxy') });
    assert.equal(created.status, 201, created.text);
    const got = await call('GET', '/api/v1/namespaces/default/configmaps/through-proxy');
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.data.a, 'through-proxy');
    const rv = created.json.metadata.resourceVersion as string;
    // Selected by name: the in-process root CA publisher may write its own ConfigMap here meanwhile.
    const events = watchEvents(s.target, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dwatched`, 1, 10_000);
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('watched') });
    const [ev] = await events;
    assert.equal(ev.type, 'ADDED');
    assert.equal(ev.object.metadata.name, 'watched');
    assert.ok(proxy.tunnels.length > 0, 'no tunnel was opened');
    assert.deepEqual([...new Set(proxy.tunnels)], [etcdAuthority()]);
  });

  it('spec 2.12: a proxy that refuses makes readyz fail with a reason naming the proxy, and readiness comes back with the proxy', async () => {
    const mode = { refuse: false };
    const proxy = await startConnectProxy({ kind: 'tcp' }, mode);
    proxies.push(proxy);
    const dir = tempDir();
    const server = await startServer({ port: 0, dataDir: dir, storage: { type: 'etcd', endpoints: [etcd.endpoint], keyPrefix: '/egress-b' }, egressSelectorConfigFile: egressFile(dir, proxy.address) });
    try {
      const call = client(server);
      assert.equal((await call('GET', '/readyz/etcd')).status, 200);
      mode.refuse = true;
      proxy.cutTunnels();
      let reason = '';
      await until('readyz to fail', async () => {
        const r = await call('GET', '/readyz/etcd');
        reason = r.text;
        return r.status === 500;
      });
      assert.match(reason, /egress proxy: proxy http:\/\/127\.0\.0\.1:\d+ while dialing 127\.0\.0\.1:\d+: the proxy answered "HTTP\/1\.1 403 Forbidden"/);
      mode.refuse = false;
      await until('readyz to recover', async () => (await call('GET', '/readyz/etcd')).status === 200);
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('spec 2.12: a Direct etcd selection dials etcd itself (no tunnel through a proxy the file does not name for etcd)', async () => {
    const proxy = await startConnectProxy({ kind: 'tcp' });
    proxies.push(proxy);
    const dir = tempDir();
    const file = join(dir, 'egress.json');
    writeFileSync(file, JSON.stringify({
      apiVersion: `${APISERVER_GROUP}/v1beta1`,
      kind: 'EgressSelectorConfiguration',
      egressSelections: [
        { name: 'etcd', connection: { proxyProtocol: 'Direct' } },
        { name: 'controlplane', connection: { proxyProtocol: 'HTTPConnect', transport: { tcp: { url: proxy.address } } } },
      ],
    }));
    const server = await startServer({ port: 0, dataDir: dir, storage: { type: 'etcd', endpoints: [etcd.endpoint], keyPrefix: '/egress-c' }, egressSelectorConfigFile: file });
    try {
      const r = await client(server)('POST', '/api/v1/namespaces/default/configmaps', { body: cm('direct') });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(proxy.tunnels, []);
    } finally {
      await server.close();
    }
  });

  it('spec 2.12: several https etcd endpoints through an HTTPConnect selection are a start-up error naming the file and --etcd-servers', async () => {
    const dir = tempDir();
    const file = egressFile(dir, 'http://127.0.0.1:1');
    const stderr = await failsToStart(['--storage-backend=etcd', '--etcd-servers=https://10.0.0.1:2379,https://10.0.0.2:2379', `--data-dir=${dir}`, `--egress-selector-config-file=${file}`]);
    assert.match(stderr, new RegExp(`--egress-selector-config-file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the "etcd" selection cannot carry --etcd-servers=https://10.0.0.1:2379,https://10.0.0.2:2379: .*only a single endpoint`));
  });
});
