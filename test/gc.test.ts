/**
 * The garbage collector against a real in-process server (issue 19, spec 3.1): each propagation policy
 * over small trees, cluster-scoped owners, dangling and mistyped references, several owners, foreground
 * chains with blockOwnerDeletion, and custom resources as owners and dependents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, type KubeObject } from '../src/client/index.js';
import type { ControllerContext } from '../src/controllers/contract.js';
import { startGarbageCollector } from '../src/controllers/garbagecollector/index.js';
import type { Monitors } from '../src/controllers/garbagecollector/monitors.js';
import { startServer, type RunningServer } from '../src/index.js';
import { crdBody, waitFor } from './helpers/crd.js';

const NS = 'gc';
const CM = { group: '', version: 'v1', plural: 'configmaps' };
const CR = { group: 'rbac.authorization.orch.io', version: 'v1', plural: 'clusterroles' };
type Ref = { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean };

let server: RunningServer;
let client: Client;
let monitors: Monitors;
const stop = new AbortController();
let stopped: Promise<void>;
const warnings: string[] = [];

const refTo = (o: KubeObject, block?: boolean): Ref => ({ apiVersion: o.apiVersion as string, kind: o.kind as string, name: o.metadata.name as string, uid: o.metadata.uid as string, ...(block !== undefined ? { blockOwnerDeletion: block } : {}) });
const cms = () => client.resource(CM, NS);
async function cm(name: string, owners: Ref[] = [], finalizers?: string[]): Promise<KubeObject> {
  return cms().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) } });
}
async function exists(name: string, res = cms()): Promise<KubeObject | undefined> {
  try {
    return await res.get(name);
  } catch (e) {
    if ((e as { code?: number }).code === 404) return undefined;
    throw e;
  }
}
const gone = (name: string, res = cms()) => waitFor(`${name} to be deleted`, async () => !(await exists(name, res)), 15_000);
/** Lets the collector act (it reacts within milliseconds): used before asserting that something stays. */
const settle = () => new Promise((r) => setTimeout(r, 1500));

before(async () => {
  server = await startServer({ port: 0, storage: { type: 'memory' } });
  client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
  await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const ctx: ControllerContext = {
    client,
    informers: client.informerFactory(),
    signal: stop.signal,
    log: (m) => {
      warnings.push(m);
      if (process.env.GC_DEBUG) process.stderr.write(`${m}\n`);
    },
    now: () => Date.now(),
    settings: { clusterSigningDurationMs: 365 * 86_400_000, terminatedPodGcThreshold: 12_500, concurrency: () => 20 },
  };
  const started = await startGarbageCollector(ctx);
  monitors = started.monitors;
  stopped = started.done;
});
after(async () => {
  stop.abort();
  await stopped;
  client.close();
  await server.close();
});

describe('garbage collector (issue 19, spec 3.1)', () => {
  it('spec 3.1: Background: deleting the owner removes the whole tree, and nothing else', async () => {
    const owner = await cm('bg-owner');
    const mids = [await cm('bg-rs-1', [refTo(owner)]), await cm('bg-rs-2', [refTo(owner)])];
    for (const m of mids) for (const i of [1, 2]) await cm(`${m.metadata.name}-pod-${i}`, [refTo(m)]);
    await cm('bg-bystander');
    await cms().delete('bg-owner');
    for (const m of mids) {
      await gone(m.metadata.name as string);
      for (const i of [1, 2]) await gone(`${m.metadata.name}-pod-${i}`);
    }
    assert.ok(await exists('bg-bystander'), 'an object with no owner is kept');
  });

  it('spec 3.1: Foreground: blocking dependents go first (recursively), then the owner', async () => {
    const owner = await cm('fg-owner');
    const mid = await cm('fg-mid', [refTo(owner, true)]);
    await cm('fg-leaf', [refTo(mid, true)], ['example.com/hold']);
    await cms().delete('fg-owner', { propagationPolicy: 'Foreground' });
    // The leaf holds its own finalizer: the chain waits for it.
    await waitFor('the leaf to be terminating', async () => !!(await exists('fg-leaf'))?.metadata.deletionTimestamp);
    await settle();
    const held = await exists('fg-owner');
    assert.ok(held?.metadata.deletionTimestamp, 'the owner waits while a blocking dependent remains');
    assert.deepEqual(held?.metadata.finalizers, ['foregroundDeletion']);
    assert.deepEqual((await exists('fg-mid'))?.metadata.finalizers, ['foregroundDeletion'], 'the middle object with dependents is deleted in the foreground too');
    await cms().patch('fg-leaf', 'json', [{ op: 'remove', path: '/metadata/finalizers' }]);
    await gone('fg-owner');
    assert.equal(await exists('fg-mid'), undefined, 'the owner went only after its blocking dependents');
    assert.equal(await exists('fg-leaf'), undefined);
  });

  it('spec 3.1: Foreground: a non-blocking dependent does not hold the owner, and is still collected', async () => {
    const owner = await cm('fgnb-owner');
    await cm('fgnb-dep', [refTo(owner, false)], ['example.com/hold']);
    await cms().delete('fgnb-owner', { propagationPolicy: 'Foreground' });
    await gone('fgnb-owner');
    await waitFor('the dependent to be terminating', async () => !!(await exists('fgnb-dep'))?.metadata.deletionTimestamp);
    await cms().patch('fgnb-dep', 'json', [{ op: 'remove', path: '/metadata/finalizers' }]);
    await gone('fgnb-dep');
  });

  it('spec 3.1: Orphan: dependents keep living without the reference, then the owner goes', async () => {
    const owner = await cm('or-owner');
    const other = await cm('or-other');
    await cm('or-dep-1', [refTo(owner)]);
    await cm('or-dep-2', [refTo(owner), refTo(other)]);
    await cms().delete('or-owner', { propagationPolicy: 'Orphan' });
    await gone('or-owner');
    assert.deepEqual((await exists('or-dep-1'))?.metadata.ownerReferences, undefined);
    assert.deepEqual((await exists('or-dep-2'))?.metadata.ownerReferences?.map((r) => r.uid), [other.metadata.uid]);
    await settle();
    assert.ok(await exists('or-dep-1'), 'an orphaned dependent is not collected later');
  });

  it('spec 3.1: a cluster-scoped owner of namespaced dependents', async () => {
    const role = await client.resource(CR).create({ apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-owner-role' }, rules: [] });
    await cm('cs-dep', [refTo(role)]);
    await settle();
    assert.ok(await exists('cs-dep'), 'kept while the cluster-scoped owner lives');
    await client.resource(CR).delete('gc-owner-role');
    await gone('cs-dep');
  });

  it('reference behaviour: dangling references (owner never existed, or wrong uid or kind) are collected', async () => {
    const real = await cm('dg-real');
    await cm('dg-never', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000001' }]);
    await cm('dg-wrong-uid', [{ ...refTo(real), uid: '00000000-0000-0000-0000-000000000002' }]);
    await cm('dg-wrong-kind', [{ ...refTo(real), apiVersion: 'v1', kind: 'Secret' }]);
    await cm('dg-right', [refTo(real)]);
    await gone('dg-never');
    await gone('dg-wrong-uid');
    await gone('dg-wrong-kind');
    await settle();
    assert.ok(await exists('dg-right'), 'a correct reference to a live owner keeps its dependent');
    assert.ok(await exists('dg-real'));
  });

  it('reference behaviour: with two owners, deleting one keeps the dependent and drops the reference', async () => {
    const a = await cm('two-a');
    const b = await cm('two-b');
    await cm('two-dep', [refTo(a), refTo(b)]);
    await cms().delete('two-a');
    await waitFor('the dangling reference to be removed', async () => (await exists('two-dep'))?.metadata.ownerReferences?.length === 1);
    assert.deepEqual((await exists('two-dep'))?.metadata.ownerReferences?.map((r) => r.uid), [b.metadata.uid]);
    await cms().delete('two-b');
    await gone('two-dep');
  });

  it('reference behaviour: a cluster-scoped object naming a namespaced owner is left alone, with a warning event', async () => {
    const owner = await cm('ns-owner');
    const role = await client.resource(CR).create({ apiVersion: 'rbac.authorization.orch.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-invalid-dep', ownerReferences: [refTo(owner)] }, rules: [] });
    await cms().delete('ns-owner');
    await waitFor('a warning event', async () => {
      const events = await client.resource({ group: '', version: 'v1', plural: 'events' }, 'default').list();
      return events.items.some((e) => e.reason === 'OwnerRefInvalidNamespace' && (e.involvedObject as { uid?: string }).uid === role.metadata.uid);
    });
    await settle();
    assert.ok(await exists('gc-invalid-dep', client.resource(CR)), 'not collected');
  });

  it('spec 3.1: custom resources as owners and as dependents (CRD created while the collector runs)', async () => {
    const crds = client.resource({ group: 'apiextensions.orch.io', version: 'v1', plural: 'customresourcedefinitions' });
    await crds.create(crdBody('gc.example.com', { plural: 'widgets', kind: 'Widget' }) as unknown as KubeObject);
    const widgets = client.resource({ group: 'gc.example.com', version: 'v1', plural: 'widgets' }, NS);
    await waitFor('the CRD to be served', async () => widgets.list().then(() => true, () => false));
    await waitFor('the collector to watch widgets', async () => {
      await monitors.settled();
      return monitors.watched().some((r) => r.plural === 'widgets');
    });
    const owner = await widgets.create({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w-owner' }, spec: {} });
    await cm('w-dep', [refTo(owner)]);
    const holder = await cm('w-holder');
    await widgets.create({ apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'w-child', ownerReferences: [refTo(holder, true)] }, spec: {} });
    await widgets.delete('w-owner', { propagationPolicy: 'Foreground' });
    await gone('w-owner', widgets);
    await gone('w-dep');
    await cms().delete('w-holder');
    await gone('w-child', widgets);
  });
});
