/**
 * The garbage collector test (issue 19, spec 3.1): an owner with 10,000 dependents deleted with
 * each propagation policy; afterwards nothing that should go is left and nothing that should stay is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, type KubeObject } from '../src/client/index.js';
import { startGarbageCollector } from '../src/controllers/garbagecollector/index.js';
import { startServer, type RunningServer } from '../src/index.js';

const DEPENDENTS = 10_000;
const BYSTANDERS = 200;
const CM = { group: '', version: 'v1', plural: 'configmaps' };

let server: RunningServer;
let client: Client;
const stop = new AbortController();
let stopped: Promise<void>;

/** Polls once a second: listing 10,000 objects more often would slow the server the collector works against. */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Runs `task(i)` for i < n with at most `width` in flight. */
async function pool(n: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await task(next++);
  }));
}

async function tree(ns: string, block: boolean): Promise<{ owner: KubeObject; keeper: KubeObject }> {
  await client.resource({ group: '', version: 'v1', plural: 'namespaces' }).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cms = client.resource(CM, ns);
  const owner = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
  const keeper = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keeper' } });
  const ref = (o: KubeObject) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name as string, uid: o.metadata.uid as string, ...(block ? { blockOwnerDeletion: true } : {}) });
  await pool(DEPENDENTS, 64, (i) => cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dep-${i}`, ownerReferences: [ref(owner)] } }));
  // Bystanders: owned by a live owner, or by nobody; none may be deleted.
  await pool(BYSTANDERS, 32, (i) => cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `kept-${i}`, ...(i % 2 ? { ownerReferences: [ref(keeper)] } : {}) } }));
  return { owner, keeper };
}

async function names(ns: string): Promise<KubeObject[]> {
  return (await client.resource(CM, ns).listAll({ limit: 2000 })).items;
}

before(async () => {
  server = await startServer({ port: 0, storage: { type: 'memory' } });
  client = new Client({ server: server.url, caPem: server.caCertPem, credentials: { get: () => ({ token: server.adminToken }) } });
  const started = await startGarbageCollector({
    client,
    informers: client.informerFactory(),
    signal: stop.signal,
    log: () => undefined,
    now: () => Date.now(),
    settings: { clusterSigningDurationMs: 365 * 86_400_000, terminatedPodGcThreshold: 12_500, concurrency: () => 20 },
  });
  stopped = started.done;
});
after(async () => {
  stop.abort();
  await stopped;
  client.close();
  await server.close();
});

describe(`garbage collector over ${DEPENDENTS} dependents (issue 19 verification)`, { timeout: 240_000 }, () => {
  // Objects of this test only (controllers of the server may add their own, e.g. a CA bundle config map).
  const ours = async (ns: string) => (await names(ns)).filter((o) => /^(dep-\d+|kept-\d+|keeper|owner)$/.test(o.metadata.name as string));
  const onlyBystanders = async (ns: string) => {
    const left = await ours(ns);
    return left.length === BYSTANDERS + 1 && left.every((o) => /^(kept-\d+|keeper)$/.test(o.metadata.name as string));
  };

  it('spec 3.1: Background: every dependent is deleted, every bystander kept', async () => {
    await tree('gc-scale-bg', false);
    await client.resource(CM, 'gc-scale-bg').delete('owner', { propagationPolicy: 'Background' });
    await waitFor('only the bystanders to be left', () => onlyBystanders('gc-scale-bg'), 120_000);
  });

  it('spec 3.1: Foreground: every blocking dependent is deleted before the owner, bystanders kept', async () => {
    await tree('gc-scale-fg', true);
    const cms = client.resource(CM, 'gc-scale-fg');
    await cms.delete('owner', { propagationPolicy: 'Foreground' });
    await waitFor('the owner to be gone', async () => !(await cms.get('owner').then(() => true, () => false)), 120_000);
    // The owner goes only once no blocking dependent is left.
    assert.ok(await onlyBystanders('gc-scale-fg'), 'nothing but the bystanders is left when the owner goes');
  });

  it('spec 3.1: Orphan: every dependent stays without its reference, then the owner goes', async () => {
    const { owner } = await tree('gc-scale-or', false);
    await client.resource(CM, 'gc-scale-or').delete('owner', { propagationPolicy: 'Orphan' });
    const cms = client.resource(CM, 'gc-scale-or');
    await waitFor('the owner to be gone', async () => !(await cms.get('owner').then(() => true, () => false)), 120_000);
    const left = await ours('gc-scale-or');
    const deps = left.filter((o) => (o.metadata.name as string).startsWith('dep-'));
    assert.equal(deps.length, DEPENDENTS);
    assert.equal(deps.filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid)).length, 0, 'no dependent still names the owner');
    assert.equal(left.length, DEPENDENTS + BYSTANDERS + 1);
  });
});
