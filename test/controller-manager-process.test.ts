/**
 * `orch-controller-manager` as a process (issue 19; spec 1.7, 2.12, 4.9): it reaches a started server
 * through `--kubeconfig`, runs the named controllers under leader election, serves /healthz and /metrics on
 * its secure port, and refuses bad flags with exit code 1 and the flag's name. Also the API server's own
 * in-process manager: on by default, off with `--controllers=`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONTROLLER_MANAGER_LEASE_NAME, COORDINATION_GROUP, SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { Client, isNotFound, type KubeObject } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import type { ControllerDescriptor } from '../src/controllers/index.js';
import { startServer, type TestServer } from '../src/index.js';

const BIN = fileURLToPath(new URL('../bin/orch-controller-manager.js', import.meta.url));
const children: ChildProcess[] = [];

function run(args: string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function get(port: number, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const until = async (what: string, f: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
};

after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('orch-controller-manager as a process', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ controllers: [] });
  });
  after(() => server.close());

  it('reference behaviour: unknown flags and bad values exit 1 naming the flag', async () => {
    for (const [args, flag] of [
      [['--no-such-flag'], '--no-such-flag'],
      [['--controllers=namespace,bogus'], '--controllers[1]'],
      [['--leader-elect-retry-period=later'], '--leader-elect-retry-period'],
    ] as const) {
      const p = run([...args]);
      assert.equal(await p.exited, 1, p.err());
      assert.ok(p.err().includes(flag), p.err());
    }
  });

  it('spec 2.12, 4.9: runs with --kubeconfig and --controllers, holds the lease, answers /healthz and /metrics', async () => {
    const port = await freePort();
    const p = run([`--kubeconfig=${server.writeKubeconfig()}`, '--controllers=namespace,clusterrole-aggregation', `--secure-port=${port}`, '--bind-address=127.0.0.1', '--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=500ms']);
    await until('serving', () => p.out().includes('serving /healthz'), 60_000);
    assert.match(p.out(), /controllers namespace-controller, clusterrole-aggregation-controller;/);
    const c = new Client(connectionForServer(server));
    try {
      const leases = c.resource<KubeObject & { spec?: { holderIdentity?: string } }>({ group: COORDINATION_GROUP, version: 'v1', plural: 'leases' }, SYSTEM_NAMESPACE);
      await until('the lease', async () => Boolean((await leases.get(CONTROLLER_MANAGER_LEASE_NAME).catch(() => undefined))?.spec?.holderIdentity));

      const plain = await get(port, '/healthz');
      assert.deepEqual(plain, { status: 200, body: 'ok' });
      const verbose = await get(port, '/healthz?verbose');
      assert.equal(verbose.status, 200);
      assert.match(verbose.body, /^\[\+\]leaderElection ok$/m);
      assert.match(verbose.body, /^\[\+\]namespace-controller ok$/m);
      assert.match(verbose.body, /^\[\+\]clusterrole-aggregation-controller ok$/m);
      assert.match(verbose.body, /healthz check passed\n$/);
      assert.equal((await get(port, '/healthz/namespace-controller')).status, 200);

      // /metrics is authorized through the server: anonymous is refused, the admin may read it.
      assert.equal((await get(port, '/metrics')).status, 403);
      const metrics = await get(port, '/metrics', server.adminToken);
      assert.equal(metrics.status, 200);
      assert.match(metrics.body, new RegExp(`leader_election_master_status\\{name="${CONTROLLER_MANAGER_LEASE_NAME}"\\} 1`));
    } finally {
      c.close();
      p.child.kill('SIGTERM');
      assert.equal(await p.exited, 0, p.err());
    }
    // SIGTERM released the lease (empty holder), so a successor need not wait for it to expire.
    const after = new Client(connectionForServer(server));
    const lease = (await after.resource({ group: COORDINATION_GROUP, version: 'v1', plural: 'leases' }, SYSTEM_NAMESPACE).get(CONTROLLER_MANAGER_LEASE_NAME)) as { spec?: { holderIdentity?: string } };
    after.close();
    assert.equal(lease.spec?.holderIdentity ?? '', '');
  });
});

describe('the API server\'s in-process controller manager', () => {
  const probe = (): ControllerDescriptor & { active: boolean } => {
    const p = {
      name: 'namespace-controller',
      serviceAccountName: 'namespace-controller',
      active: false,
      async run(ctx: Parameters<ControllerDescriptor['run']>[0]) {
        p.active = true;
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
        p.active = false;
      },
    };
    return p;
  };
  const leaseHolder = async (server: TestServer) => {
    const c = new Client(connectionForServer(server));
    try {
      const lease = (await c.resource({ group: COORDINATION_GROUP, version: 'v1', plural: 'leases' }, SYSTEM_NAMESPACE).get(CONTROLLER_MANAGER_LEASE_NAME)) as { spec?: { holderIdentity?: string } };
      return lease.spec?.holderIdentity ?? '';
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    } finally {
      c.close();
    }
  };

  it('issue 19: runs by default (holding the lease) and stops first at close', async () => {
    const p = probe();
    const server = await startServer({ controllerManager: { descriptors: [p], identity: 'in-process' } });
    try {
      await until('the probe', () => p.active, 10_000);
      assert.equal(await leaseHolder(server), 'in-process');
    } finally {
      await server.close();
    }
    assert.equal(p.active, false);
  });

  it('issue 19: --controllers= (empty) keeps the bootstrap but runs no manager', async () => {
    const p = probe();
    const server = await startServer({ controllers: [], controllerManager: { descriptors: [p] } });
    try {
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(p.active, false);
      assert.equal(await leaseHolder(server), undefined);
      // The bootstrap still ran: the default namespaces and roles are there.
      const c = new Client(connectionForServer(server));
      await c.resource({ group: '', version: 'v1', plural: 'namespaces' }).get(SYSTEM_NAMESPACE);
      c.close();
    } finally {
      await server.close();
    }
  });

  it('reference behaviour: an unknown name in the server\'s controllers option fails the start naming it', async () => {
    await assert.rejects(startServer({ controllers: ['namespace', 'nope'] }), /--controllers\[1\]: Invalid value: "nope"/);
  });
});
