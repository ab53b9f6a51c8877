import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isNotFound, type ResourceClient } from '../src/client/index.js';
import { makePodGcController } from '../src/controllers/podgc/index.js';
import { ttlAfterFinishedController } from '../src/controllers/ttl-after-finished/index.js';
import { startServer, type TestServer } from '../src/index.js';
import { eventually, gvr, runController, type KubeObject } from './controllers-misc-harness.js';

const JOBS = gvr('batch', 'v1', 'jobs');
const PODS = gvr('', 'v1', 'pods');
const NODES = gvr('', 'v1', 'nodes');
const NS = 'default';
const HOLD = 'example.com/hold';

const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
const job = (name: string, ttl?: number): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }), template },
});
const pod = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...meta },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra },
});

async function exists(client: ResourceClient, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

let server: TestServer;
before(async () => {
  server = await startServer({ recordBodies: true, controllers: [] }); // the tests run the controllers themselves
});
after(async () => {
  await server.close();
});

describe('ttl-after-finished-controller', () => {
  it('reference behaviour: deletes a finished Job with Foreground propagation once its TTL after the finish time has passed', async () => {
    const running = runController(server, ttlAfterFinishedController);
    try {
      const jobs = running.client.resource(JOBS, NS);
      for (const j of [job('short', 2), job('no-ttl'), job('running', 0)]) await jobs.create(j);
      const finish = async (name: string) => {
        const now = new Date().toISOString();
        const cur = await jobs.get(name);
        const status = {
          startTime: now,
          completionTime: now,
          succeeded: 1,
          conditions: [
            { type: 'SuccessCriteriaMet', status: 'True', lastTransitionTime: now, lastProbeTime: now },
            { type: 'Complete', status: 'True', lastTransitionTime: now, lastProbeTime: now },
          ],
        };
        return jobs.update({ ...cur, status }, { subresource: 'status' });
      };
      const finished = await finish('short');
      await finish('no-ttl');
      const cond = ((finished.status as { conditions: { type: string; lastTransitionTime: string }[] }).conditions).find((c) => c.type === 'Complete');
      const dueAt = Date.parse(cond?.lastTransitionTime ?? '') + 2000;

      const deletedAt = await eventually('the finished Job to be deleted', async () => {
        const j = await exists(jobs, 'short');
        return j === undefined || j.metadata.deletionTimestamp ? Date.now() : undefined;
      });
      assert.ok(deletedAt >= dueAt, 'not before finish time + TTL');
      assert.ok(deletedAt - dueAt < 1500, `soon after finish time + TTL (took ${deletedAt - dueAt} ms)`);
      const deletes = server.requests().filter((r) => r.verb === 'delete' && r.resource === 'jobs' && r.name === 'short');
      assert.equal(deletes.length, 1);
      const options = JSON.parse(deletes[0]?.body ?? '{}') as { propagationPolicy?: string; preconditions?: { uid?: string } };
      assert.deepEqual([options.propagationPolicy, options.preconditions?.uid], ['Foreground', finished.metadata.uid]);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(await exists(jobs, 'no-ttl'), 'a Job without a TTL stays');
      assert.ok(await exists(jobs, 'running'), 'an unfinished Job stays');
    } finally {
      await running.stop();
    }
  });
});

describe('pod-garbage-collector-controller', () => {
  it('reference behaviour: with 15 terminated pods and threshold 10 the 5 oldest go; running pods stay', async () => {
    const running = runController(server, makePodGcController(), { terminatedPodGcThreshold: 10 });
    try {
      const pods = running.client.resource(PODS, NS);
      const names = Array.from({ length: 15 }, (_, i) => `done-${String(i).padStart(2, '0')}`);
      for (const name of ['live-a', 'live-b']) await pods.create(pod(name));
      for (const name of names) {
        await pods.create(pod(name));
        await pods.patch(name, 'merge', { status: { phase: 'Succeeded' } }, { subresource: 'status' });
      }
      const left = await eventually('five pods to go', async () => {
        const list = (await pods.list()).items.map((p) => p.metadata.name as string).sort();
        return list.length === 12 ? list : undefined;
      });
      assert.deepEqual(left, ['done-05', 'done-06', 'done-07', 'done-08', 'done-09', 'done-10', 'done-11', 'done-12', 'done-13', 'done-14', 'live-a', 'live-b']);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await pods.list()).items.length, 12, 'nothing more is deleted');
    } finally {
      await running.stop();
    }
  });

  it('reference behaviour: pods on a node that is gone are marked Failed with DisruptionTarget and deleted after the quarantine; so are unscheduled terminating pods', async () => {
    const running = runController(server, makePodGcController({ quarantineMs: 300 }), { terminatedPodGcThreshold: 0 });
    try {
      const pods = running.client.resource(PODS, NS);
      const nodes = running.client.resource(NODES);
      await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
      // The finalizer holds each pod after its delete, so the test can read what the collector wrote.
      await pods.create(pod('on-n1', { nodeName: 'n1' }, { finalizers: [HOLD] }));
      await pods.create(pod('on-ghost', { nodeName: 'ghost' }, { finalizers: [HOLD] }));
      await pods.create(pod('unscheduled', {}, { finalizers: [HOLD] }));
      await pods.create(pod('kept', { nodeName: 'n1' }));
      await pods.delete('unscheduled');

      const terminating = (name: string) => eventually(`${name} to be deleted`, async () => {
        const p = await pods.get(name);
        return (p.status as { phase?: string }).phase === 'Failed' && p.metadata.deletionTimestamp ? p : undefined;
      });
      const ghost = await terminating('on-ghost');
      const cond = ((ghost.status as { conditions?: { type: string; status: string; reason?: string }[] }).conditions ?? []).find((c) => c.type === 'DisruptionTarget');
      assert.deepEqual([cond?.status, cond?.reason], ['True', 'DeletionByPodGC']);
      await terminating('unscheduled');
      assert.equal((await pods.get('on-n1')).metadata.deletionTimestamp, undefined, 'its node still exists');

      await nodes.delete('n1');
      await terminating('on-n1');
      assert.equal(await exists(pods, 'kept'), undefined, 'a pod without a finalizer on the deleted node is gone');
      for (const name of ['on-n1', 'on-ghost', 'unscheduled']) await pods.patch(name, 'merge', { metadata: { finalizers: null } });
    } finally {
      await running.stop();
    }
  });
});
