/**
 * The namespace, clusterrole-aggregation, serviceaccount and root CA publisher controllers (issue 19)
 * against real in-process servers, each run with a ControllerContext built here as the manager would.
 * Namespace deletion and aggregation run on a server started with `controllers: false`, where the server's
 * own namespace lifecycle and aggregation are off, so whatever happens there is this code's work; the
 * others on one started with `controllers: []` (bootstrap, no in-process manager).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DESCRIPTION_ANNOTATION, NAMESPACE_FINALIZER, RBAC_GROUP, ROOT_CA_CONFIGMAP, APIEXTENSIONS_GROUP } from '../src/api/naming.js';
import { Client, isNotFound, type InformerFactory, type KubeObject } from '../src/client/index.js';
import { connectionForServer } from '../src/client/config/index.js';
import type { ControllerContext, ControllerDescriptor } from '../src/controllers/contract.js';
import { clusterRoleAggregationController } from '../src/controllers/clusterrole-aggregation/index.js';
import { namespaceController } from '../src/controllers/namespace/index.js';
import { rootCaPublisherController } from '../src/controllers/root-ca-publisher/index.js';
import { serviceAccountController } from '../src/controllers/serviceaccount/index.js';
import { startServer, type TestServer } from '../src/index.js';

const NS = { group: '', version: 'v1', plural: 'namespaces' };
const CM = { group: '', version: 'v1', plural: 'configmaps' };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const SA = { group: '', version: 'v1', plural: 'serviceaccounts' };
const ROLES = { group: RBAC_GROUP, version: 'v1', plural: 'clusterroles' };
const CRDS = { group: APIEXTENSIONS_GROUP, version: 'v1', plural: 'customresourcedefinitions' };
const WIDGETS = { group: 'example.com', version: 'v1', plural: 'widgets' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
const orNothing = <T>(p: Promise<T>) => p.catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)));

/** Runs controllers as a manager would: one client and informer factory, one signal. */
class Harness {
  readonly client: Client;
  private readonly informers: InformerFactory;
  readonly logs: string[] = [];
  private readonly abort = new AbortController();
  private readonly runs: Promise<void>[] = [];

  constructor(readonly server: TestServer) {
    this.client = new Client(connectionForServer(server));
    this.informers = this.client.informerFactory();
  }

  readonly ctx = (): ControllerContext => ({
    client: this.client,
    informers: this.informers,
    signal: this.abort.signal,
    log: (m) => this.logs.push(m),
    now: () => Date.now(),
    settings: { clusterSigningDurationMs: 365 * 86_400_000, terminatedPodGcThreshold: 12_500, rootCaPem: this.server.caCertPem, concurrency: () => 2 },
  });


  start(...controllers: ControllerDescriptor[]): void {
    for (const c of controllers) this.runs.push(c.run(this.ctx()));
  }

  /** Aborts and resolves once every controller's run has returned. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.runs);
    await this.informers.stop();
    this.client.close();
  }
}

describe('namespace controller and clusterrole aggregation on a server without its own (issue 19)', () => {
  let server: TestServer;
  let h: Harness;
  let c: Client;

  before(async () => {
    server = await startServer({ controllers: false, storage: { type: 'memory' } });
    h = new Harness(server);
    c = h.client;
  });
  after(async () => {
    await h.stop();
    await server.close();
  });

  const makeNamespace = (name: string) => c.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const getNamespace = (name: string) => orNothing(c.resource<KubeObject & { spec?: { finalizers?: string[] }; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }>(NS).get(name));

  /** A CRD made Established by hand (this server runs no CRD controller). */
  async function widgetCrd(): Promise<void> {
    const names = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
    const crd = await c.resource(CRDS).create({
      apiVersion: `${APIEXTENSIONS_GROUP}/v1`,
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    const t = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditions = ['NamesAccepted', 'Established'].map((type) => ({ type, status: 'True', reason: 'Test', message: '', lastTransitionTime: t }));
    await c.resource(CRDS).updateStatus({ ...crd, status: { acceptedNames: names, storedVersions: ['v1'], conditions } });
    await until('widgets served', () => orNothing(c.resource(WIDGETS, 'default').list()).catch(() => undefined));
  }

  it('spec 3.1: a deleted namespace stays until the controller runs, then its pods, config maps and custom resources are deleted and it is finalized', async () => {
    await widgetCrd();
    await makeNamespace('sweep');
    for (let i = 0; i < 3; i++) await c.resource(CM, 'sweep').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } });
    await c.resource(PODS, 'sweep').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await c.resource(WIDGETS, 'sweep').create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    await c.resource(NS).delete('sweep');
    await sleep(300);
    const waiting = await getNamespace('sweep');
    assert.ok(waiting?.metadata.deletionTimestamp, 'terminating');
    assert.deepEqual(waiting?.spec?.finalizers, [NAMESPACE_FINALIZER], 'nothing removed the finalizer before the controller ran');
    assert.equal((await c.resource(CM, 'sweep').list()).items.length, 3);

    h.start(namespaceController);
    await until('namespace gone', async () => (await getNamespace('sweep')) === undefined);
    for (const r of [CM, PODS, WIDGETS]) assert.deepEqual((await c.resource(r, 'sweep').list()).items, [], `${r.plural} left`);
  });

  it('spec 3.1: an object with a finalizer holds the namespace, with the reference conditions, until the finalizer is removed', async () => {
    await makeNamespace('held');
    await c.resource(CM, 'held').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', finalizers: ['example.com/hold'] } });
    await c.resource(CM, 'held').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'go' } });
    await c.resource(NS).delete('held');
    const ns = await until('conditions', async () => {
      const n = await getNamespace('held');
      return n?.status?.conditions?.some((x) => x.type === 'NamespaceFinalizersRemaining' && x.status === 'True') ? n : undefined;
    });
    const byType = new Map((ns.status?.conditions ?? []).map((x) => [x.type, x]));
    assert.deepEqual(
      [...byType.values()].map((x) => [x.type, x.status, x.reason]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
      ],
    );
    assert.equal(byType.get('NamespaceContentRemaining')?.message, 'Some resources are remaining: configmaps has 1 resource instances');
    assert.equal(byType.get('NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
    assert.deepEqual(ns.spec?.finalizers, [NAMESPACE_FINALIZER]);
    assert.deepEqual((await c.resource(CM, 'held').list()).items.map((i) => i.metadata.name), ['keep'], 'the rest is deleted meanwhile');

    await c.resource(CM, 'held').patch('keep', 'merge', { metadata: { finalizers: null } });
    await until('namespace gone after the finalizer went', async () => (await getNamespace('held')) === undefined);
  });

  it('spec 5.8: aggregated ClusterRoles follow label changes and role deletions, and are written only on change', async () => {
    h.start(clusterRoleAggregationController);
    const roles = c.resource<KubeObject & { rules?: unknown[] }>(ROLES);
    const rule = (r: string) => ({ apiGroups: [''], resources: [r], verbs: ['get'] });
    const role = (name: string, labels: Record<string, string>, rules: unknown[]) => ({ apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name, labels }, rules });
    await roles.create({ ...role('agg', {}, []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { agg: 'yes' } }] } });
    await roles.create(role('src-b', { agg: 'yes' }, [rule('secrets'), rule('pods')]));
    await roles.create(role('src-a', { agg: 'yes' }, [rule('pods'), rule('services')]));
    const rulesBecome = (want: unknown[]) =>
      until(`rules ${JSON.stringify(want)}`, async () => {
        const r = await roles.get('agg');
        return JSON.stringify(r.rules ?? []) === JSON.stringify(want) ? r : undefined;
      });
    // Union by source role name, duplicates once.
    await rulesBecome([rule('pods'), rule('services'), rule('secrets')]);
    await roles.patch('src-a', 'merge', { metadata: { labels: { agg: 'no' } } });
    await rulesBecome([rule('secrets'), rule('pods')]);
    await roles.delete('src-b');
    const settled = await rulesBecome([]);
    await roles.create(role('unrelated', { other: 'x' }, [rule('nodes')]));
    await sleep(400);
    assert.equal((await roles.get('agg')).metadata.resourceVersion, settled.metadata.resourceVersion, 'no write without a change');
  });
});

describe('serviceaccount and root CA publisher controllers on a server with its bootstrap but no manager (issue 19)', () => {
  let server: TestServer;
  let h: Harness;
  let c: Client;

  before(async () => {
    // `controllers: []`: default namespaces but no in-process manager, so these controllers (and the
    // namespace controller that empties a terminating namespace) run only here.
    server = await startServer({ controllers: [], storage: { type: 'memory' } });
    h = new Harness(server);
    c = h.client;
    h.start(serviceAccountController, rootCaPublisherController, namespaceController);
  });
  after(async () => {
    await h.stop();
    await server.close();
  });

  const account = (ns: string) => orNothing(c.resource(SA, ns).get('default'));
  const caMap = (ns: string) => orNothing(c.resource<KubeObject & { data?: Record<string, string> }>(CM, ns).get(ROOT_CA_CONFIGMAP));

  it('reference behaviour: every namespace gets a default ServiceAccount, recreated after deletion', async () => {
    await until('default account in default', () => account('default'));
    await c.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
    const first = await until('default account in fresh', () => account('fresh'));
    await c.resource(SA, 'fresh').delete('default');
    const again = await until('recreated', async () => {
      const sa = await account('fresh');
      return sa && sa.metadata.uid !== first.metadata.uid ? sa : undefined;
    });
    assert.equal(again.metadata.name, 'default');
  });

  it('reference behaviour: a terminating namespace gets no new default ServiceAccount', async () => {
    await c.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ending' } });
    await until('account', () => account('ending'));
    await c.resource(CM, 'ending').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hold', finalizers: ['example.com/hold'] } });
    await c.resource(NS).delete('ending');
    // The namespace controller empties it, account included; the finalizer keeps it Terminating.
    await until('account removed', async () => (await account('ending')) === undefined);
    await sleep(500);
    assert.equal(await account('ending'), undefined);
    assert.ok((await c.resource(NS).get('ending')).metadata.deletionTimestamp);
    await c.resource(CM, 'ending').patch('hold', 'merge', { metadata: { finalizers: null } });
  });

  it('reference behaviour: the root CA ConfigMap is published in every namespace, described, and restored after edits and deletion', async () => {
    const published = (ns: string) =>
      until(`CA in ${ns}`, async () => {
        const cm = await caMap(ns);
        return cm && JSON.stringify(cm.data) === JSON.stringify({ 'ca.crt': server.caCertPem }) && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] ? cm : undefined;
      });
    await published('default');
    await c.resource(NS).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ca-ns' } });
    const first = await published('ca-ns');
    await c.resource(CM, 'ca-ns').patch(ROOT_CA_CONFIGMAP, 'merge', { data: { 'ca.crt': 'tampered', extra: 'x' } });
    const reset = await published('ca-ns');
    assert.equal(reset.metadata.uid, first.metadata.uid, 'reset in place');
    await c.resource(CM, 'ca-ns').patch(ROOT_CA_CONFIGMAP, 'merge', { metadata: { annotations: { [DESCRIPTION_ANNOTATION]: null } } });
    await published('ca-ns');
    await c.resource(CM, 'ca-ns').delete(ROOT_CA_CONFIGMAP);
    const recreated = await published('ca-ns');
    assert.notEqual(recreated.metadata.uid, first.metadata.uid);
  });

  it('reference behaviour: aborting the signal stops every controller, leaving nothing running', async () => {
    const extra = new Harness(server);
    extra.start(namespaceController, clusterRoleAggregationController, serviceAccountController, rootCaPublisherController);
    await sleep(300);
    const t0 = Date.now();
    await extra.stop();
    assert.ok(Date.now() - t0 < 3000, 'stopped promptly');
    assert.deepEqual(extra.logs, []);
  });
});
