/**
 * The controller manager (issue 19; spec 1.7, 2.12, 5.8): the `--controllers` selection, leader election
 * between two managers on one server, service account credentials, restarts, the in-process manager of
 * the API server, and the flag rules of orch-controller-manager.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CONTROLLER_MANAGER_LEASE_NAME, CONTROLLER_MANAGER_USER, COORDINATION_GROUP, PUBLIC_NAMESPACE, RBAC_GROUP, SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { Client } from '../src/client/index.js';
import { connectionForServer as connectionOf } from '../src/client/config/index.js';
import { parseControllerManagerFlags } from '../src/cmd/controller-manager-flags.js';
import { ALL_CONTROLLERS, ControllerManager, controllerSettings, type ControllerDescriptor } from '../src/controllers/index.js';
import { controllerQueue } from '../src/controllers/contract.js';
import { startServer, type TestServer } from '../src/index.js';

const until = async (what: string, f: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
};

const FAST = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };
const leaderElection = (on = true) => ({ leaderElect: on, ...FAST, resourceLock: 'leases', resourceName: CONTROLLER_MANAGER_LEASE_NAME, resourceNamespace: SYSTEM_NAMESPACE });

/** A controller that only records whether it runs. */
function probe(name: string, serviceAccountName = 'probe'): ControllerDescriptor & { active: number; starts: number } {
  const p = {
    name,
    serviceAccountName,
    active: 0,
    starts: 0,
    async run(ctx: Parameters<ControllerDescriptor['run']>[0]) {
      p.active++;
      p.starts++;
      await new Promise<void>((r) => (ctx.signal.aborted ? r() : ctx.signal.addEventListener('abort', () => r(), { once: true })));
      p.active--;
    },
  };
  return p;
}

describe('spec 2.12: --controllers selects among the built-in controllers', () => {
  const chosen = (list: string[]) => new ControllerManager({ connection: connectionOf({ url: 'https://127.0.0.1:1', caCertPem: '', adminToken: 'x' }), descriptors: ALL_CONTROLLERS, controllers: list, leaderElection: leaderElection(false), settings: controllerSettings() }).enabled();
  const all = ALL_CONTROLLERS.map((d) => d.name);
  const table: [string, string[], (names: string[]) => void][] = [
    ['"*" runs all but the bootstrap signer and token cleaner', ['*'], (n) => assert.deepEqual(n, all.filter((x) => x !== 'bootstrap-signer-controller' && x !== 'token-cleaner-controller'))],
    ['a name turns a disabled-by-default controller on', ['*', 'bootstrap-signer-controller'], (n) => assert.ok(n.includes('bootstrap-signer-controller') && !n.includes('token-cleaner-controller'))],
    ['-name turns one off under *', ['-namespace-controller', '*'], (n) => assert.deepEqual(n, all.filter((x) => !['namespace-controller', 'bootstrap-signer-controller', 'token-cleaner-controller'].includes(x)))],
    ['the first item for a name wins (on)', ['namespace-controller', '-namespace-controller'], (n) => assert.deepEqual(n, ['namespace-controller'])],
    ['the first item for a name wins (off)', ['-namespace-controller', 'namespace-controller', '*'], (n) => assert.ok(!n.includes('namespace-controller'))],
    ['names alone run only those', ['garbage-collector-controller', 'token-cleaner-controller'], (n) => assert.deepEqual(n, ['garbage-collector-controller', 'token-cleaner-controller'])],
    ['an empty list runs none', [], (n) => assert.deepEqual(n, [])],
  ];
  for (const [title, list, check] of table) it(`spec 2.12: ${title}`, () => check(chosen(list)));

  it('reference behaviour: the flag takes the reference\'s short names as aliases', () => {
    const cli = parseControllerManagerFlags(['--controllers=*,bootstrapsigner,-garbagecollector,tokencleaner']);
    assert.notEqual(cli, 'help');
    if (cli === 'help') return;
    assert.deepEqual(cli.controllers, ['*', 'bootstrap-signer-controller', '-garbage-collector-controller', 'token-cleaner-controller']);
  });
});

describe('orch-controller-manager flags (spec 2.12): bad values are errors naming the flag', () => {
  const bad: [string[], RegExp][] = [
    [['--bogus'], /--bogus/],
    [['--controllers=nope'], /--controllers\[0\].*"nope" is not a known controller/],
    [['--leader-elect-lease-duration=soon'], /--leader-elect-lease-duration: invalid duration/],
    [['--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'], /--leader-elect-renew-deadline: must be less than or equal to leaseDuration/],
    [['--leader-elect-resource-lock=configmaps'], /--leader-elect-resource-lock: Unsupported value/],
    [['--leader-elect=maybe'], /--leader-elect: invalid boolean/],
    [['--terminated-pod-gc-threshold=-1'], /--terminated-pod-gc-threshold: invalid value/],
    [['--concurrent-gc-syncs=0'], /--concurrent-gc-syncs: invalid value/],
    [['--secure-port=70000'], /--secure-port: invalid value/],
    [['--cluster-signing-cert-file=/x.crt'], /--cluster-signing-key-file: required together/],
    [['--config=/nonexistent/cm.yaml'], /--config: cannot read/],
  ];
  for (const [argv, re] of bad) it(`reference behaviour: ${argv.join(' ')} is refused`, () => assert.throws(() => parseControllerManagerFlags(argv), re));

  it('spec 2.12: defaults are the reference\'s (lease 15s/10s/2s, lock leases, port 10257, pod GC 12500)', () => {
    const cli = parseControllerManagerFlags([]);
    assert.notEqual(cli, 'help');
    if (cli === 'help') return;
    assert.deepEqual(cli.leaderElection, { leaderElect: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceLock: 'leases', resourceName: CONTROLLER_MANAGER_LEASE_NAME, resourceNamespace: SYSTEM_NAMESPACE });
    assert.equal(cli.securePort, 10257);
    assert.equal(cli.settings.terminatedPodGcThreshold, 12500);
    assert.deepEqual(cli.controllers, ['*']);
    assert.equal(cli.useServiceAccountCredentials, false);
  });
});

describe('the controller manager against a running server', () => {
  let server: TestServer;
  before(async () => {
    // No in-process manager: the managers of these tests are the only candidates for the lease.
    server = await startServer({ controllers: [], authorizationModes: ['RBAC'] });
  });
  after(() => server.close());

  const manager = (descriptors: ControllerDescriptor[], extra: Partial<ConstructorParameters<typeof ControllerManager>[0]> = {}) =>
    new ControllerManager({ connection: connectionOf(server), descriptors, leaderElection: leaderElection(), settings: controllerSettings(), ...extra });

  it('spec 2.12: of two managers exactly one runs controllers; stopping it hands over within one lease duration', async () => {
    const [pa, pb] = [probe('namespace-controller'), probe('namespace-controller')];
    const a = manager([pa], { identity: 'manager-a' });
    const b = manager([pb], { identity: 'manager-b' });
    a.start();
    b.start();
    try {
      await until('one leader', () => pa.active + pb.active === 1);
      // Several retry periods later, still exactly one.
      await new Promise((r) => setTimeout(r, FAST.retryPeriodMs * 4));
      assert.equal(pa.active + pb.active, 1);
      const [leader, other, otherProbe] = pa.active === 1 ? [a, b, pb] : [b, a, pa];
      assert.equal(leader.isLeader(), true);
      assert.equal(other.isLeader(), false);
      const reader = new Client(connectionOf(server));
      const lease = await reader.resource({ group: COORDINATION_GROUP, version: 'v1', plural: 'leases' }, SYSTEM_NAMESPACE).get(CONTROLLER_MANAGER_LEASE_NAME);
      reader.close();
      assert.equal((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity, leader.identity);
      const stoppedAt = Date.now();
      await leader.stop();
      await until('the other to take over', () => otherProbe.active === 1, FAST.leaseDurationMs);
      assert.ok(Date.now() - stoppedAt <= FAST.leaseDurationMs, `hand-over took ${Date.now() - stoppedAt} ms`);
      assert.equal(other.isLeader(), true);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('reference behaviour: a controller that throws is started again after a pause, and /healthz-style checks show it', async () => {
    let runs = 0;
    const flaky: ControllerDescriptor = {
      name: 'pod-garbage-collector-controller',
      serviceAccountName: 'pod-garbage-collector',
      async run(ctx) {
        runs++;
        if (runs < 3) throw new Error(`boom ${runs}`);
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
      },
    };
    const logs: string[] = [];
    const m = manager([flaky], { leaderElection: leaderElection(false), restartBackoff: { initialMs: 20, maxMs: 100 }, log: (l) => logs.push(l) });
    m.start();
    try {
      await until('third run', () => runs === 3);
      await until('running', () => m.running().includes('pod-garbage-collector-controller'));
      assert.ok(logs.some((l) => l.includes('boom 1') && l.includes('starting it again')), logs.join('\n'));
      const check = m.healthChecks().find((c) => c.name === 'pod-garbage-collector-controller');
      assert.ok(check);
      assert.doesNotThrow(() => check.check());
      const text = await m.metrics.text();
      assert.match(text, /controller_manager_controller_restarts_total\{controller="pod-garbage-collector-controller"\} 2/);
    } finally {
      await m.stop();
    }
  });

  it('spec 5.8: with --use-service-account-credentials a controller\'s writes are made as its service account', async () => {
    let created = false;
    const writer: ControllerDescriptor = {
      name: 'root-ca-certificate-publisher-controller',
      serviceAccountName: 'root-ca-cert-publisher',
      async run(ctx) {
        const q = controllerQueue(ctx);
        q.add('x');
        await q.get();
        await ctx.client.resource({ group: '', version: 'v1', plural: 'configmaps' }, 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'written-by-sa' } });
        created = true;
        q.done('x');
        await new Promise<void>((r) => ctx.signal.addEventListener('abort', () => r(), { once: true }));
        q.shutDown();
      },
    };
    server.clearRequests();
    const m = manager([writer], { leaderElection: leaderElection(false), useServiceAccountCredentials: true });
    m.start();
    try {
      await until('the write', () => created);
      const create = server.requests().find((r) => r.method === 'POST' && r.resource === 'configmaps' && r.namespace === 'default');
      assert.ok(create);
      assert.equal(create.user, `system:serviceaccount:${SYSTEM_NAMESPACE}:root-ca-cert-publisher`);
      assert.equal(create.status, 201);
      // The manager made the account and asked for its token with its own credential.
      const token = server.requests().find((r) => r.resource === 'serviceaccounts' && r.subresource === 'token');
      assert.equal(token?.name, 'root-ca-cert-publisher');
      assert.match(await m.metrics.text(), /workqueue_adds_total\{name="root-ca-certificate-publisher-controller"\} 1/);
    } finally {
      await m.stop();
    }
  });

  it('spec 5.8: the controllers\' default roles and bindings exist, and the manager\'s own role', async () => {
    const c = new Client(connectionOf(server));
    const rbac = (plural: string, ns?: string) => c.resource({ group: RBAC_GROUP, version: 'v1', plural }, ns);
    for (const sa of ['namespace-controller', 'generic-garbage-collector', 'service-account-controller', 'root-ca-cert-publisher', 'clusterrole-aggregation-controller', 'certificate-controller', 'ttl-after-finished-controller', 'pod-garbage-collector']) {
      await rbac('clusterroles').get(`system:controller:${sa}`);
      const b = (await rbac('clusterrolebindings').get(`system:controller:${sa}`)) as { subjects?: { kind: string; name: string; namespace?: string }[] };
      assert.deepEqual(b.subjects?.map((s) => `${s.kind}:${s.namespace}:${s.name}`), [`ServiceAccount:${SYSTEM_NAMESPACE}:${sa}`]);
    }
    await rbac('clusterroles').get(CONTROLLER_MANAGER_USER);
    for (const ns of [SYSTEM_NAMESPACE, PUBLIC_NAMESPACE]) {
      await rbac('roles', ns).get('system:controller:bootstrap-signer');
      await rbac('rolebindings', ns).get('system:controller:bootstrap-signer');
    }
    await rbac('roles', SYSTEM_NAMESPACE).get('system:controller:token-cleaner');
    c.close();
  });
});
