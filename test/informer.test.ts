import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('@kubernetes/client-node informer keeps an exact copy (spec 4.5, 6.4)', () => {
  it('through creates, updates, deletes, a server restart, and a history expiry that forces 410 and a relist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-informer-'));
    dirs.push(dir);
    const port = await freePort();
    const storage = { type: 'sqlite' as const, path: join(dir, 'orch.db') };
    let server: RunningServer = await startServer({ controllers: [], port, dataDir: dir, storage, writeKubeconfig: true });
    const call = () => client(server);
    await call()('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf' } } });

    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath!);
    const api = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, '/api/v1/namespaces/inf/configmaps', () => api.listNamespacedConfigMap({ namespace: 'inf' }));
    let errors = 0;
    let stopped = false;
    informer.on('error', () => {
      errors++;
      // The informer stops on connection errors; restart it, as client code does.
      if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 200);
    });
    await informer.start();

    const serverState = async () => {
      const l = await call()('GET', '/api/v1/namespaces/inf/configmaps');
      return new Map<string, string>(l.json.items.map((i: any) => [i.metadata.name, i.metadata.resourceVersion]));
    };
    const informerState = () => new Map<string | undefined, string | undefined>(informer.list('inf').map((i) => [i.metadata!.name, i.metadata!.resourceVersion]));
    const inSync = async () => {
      const a = await serverState();
      const b = informerState();
      return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
    };

    try {
      for (let i = 0; i < 5; i++) {
        await call()('POST', '/api/v1/namespaces/inf/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { v: '0' } } });
      }
      await call()('PATCH', '/api/v1/namespaces/inf/configmaps/c1', { raw: '{"data":{"v":"1"}}', headers: { 'content-type': 'application/merge-patch+json' } });
      await call()('DELETE', '/api/v1/namespaces/inf/configmaps/c2');
      await until("informer in sync after creates, updates, deletes", inSync);
      assert.equal(informerState().size, 4);

      // Restart: the informer re-watches from its last resourceVersion.
      await server.close();
      server = await startServer({ controllers: [], port, dataDir: dir, storage });
      await call()('POST', '/api/v1/namespaces/inf/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-restart' } } });
      await until('informer in sync after a restart', inSync);

      // History expiry: writes while the informer's server is away, through another server on the same file,
      // then a fresh server whose watch cache starts after them: resuming is 410, the informer relists.
      await server.close();
      const other = await startServer({ port: 0, dataDir: dir, storage });
      await client(other)('POST', '/api/v1/namespaces/inf/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'while-away' } } });
      await client(other)('DELETE', '/api/v1/namespaces/inf/configmaps/c0');
      await other.close();
      server = await startServer({ controllers: [], port, dataDir: dir, storage });
      await until('informer in sync after a 410 and relist', inSync);
      assert.ok(informerState().has('while-away'));
      assert.ok(!informerState().has('c0'));
      assert.ok(errors >= 1, 'the restarts were seen as connection errors');
    } finally {
      stopped = true;
      await informer.stop();
      await server.close();
    }
  });
});

describe('two API servers on one SQLite file (architecture rule 1)', () => {
  it("each server's watches see the other's writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orch-two-'));
    dirs.push(dir);
    const storage = { type: 'sqlite' as const, path: join(dir, 'orch.db') };
    const a = await startServer({ port: 0, dataDir: dir, storage });
    const b = await startServer({ port: 0, dataDir: dir, storage });
    try {
      const ca = client(a);
      const cb = client(b);
      const { watchEvents } = await import('./helpers/client.js');
      const rv = (await ca('GET', '/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
      const onA = watchEvents(a, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, 2);
      const onB = watchEvents(b, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}`, 2);
      await new Promise((r) => setTimeout(r, 100));
      await ca('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-a' } } });
      await cb('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-b' } } });
      for (const events of [await onA, await onB]) {
        assert.deepEqual(events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED from-a', 'ADDED from-b']);
      }
      // A consistent list on either server sees both writes at once.
      const names = (await cb('GET', '/api/v1/namespaces/default/configmaps')).json.items.map((i: any) => i.metadata.name);
      assert.ok(names.includes('from-a') && names.includes('from-b'));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
