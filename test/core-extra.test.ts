import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { META_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const NS = '/api/v1/namespaces/default';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
const TABLE = { accept: `application/json;as=Table;g=${META_GROUP};v=v1` };

const pod = (name: string, labels: Record<string, string> = {}, containers: object[] = [{ name: 'app', image: 'nginx:1.27' }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers },
});
const binding = (name: string, target: object = { apiVersion: 'v1', kind: 'Node', name: 'node-1' }) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target });
const eviction = (name: string, deleteOptions?: object) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...(deleteOptions ? { deleteOptions } : {}) });
const pdb = (name: string, spec: object) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });

describe('core/v1 extra kinds and pod subresources over HTTPS', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  const createPod = async (body: ReturnType<typeof pod>) => {
    const r = await call('POST', `${NS}/pods`, { body });
    assert.equal(r.status, 201, r.text);
  };
  /** What a node agent would report: the pod runs and is ready. */
  const markRunning = async (name: string) => {
    const r = await call('PATCH', `${NS}/pods/${name}/status`, {
      raw: JSON.stringify({ status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }),
      headers: MERGE,
    });
    assert.equal(r.status, 200, r.text);
  };
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  describe('binding', () => {
    it('reference behaviour: pods/<name>/binding assigns the node and marks the pod PodScheduled', async () => {
      await createPod(pod('bind-a'));
      const r = await call('POST', `${NS}/pods/bind-a/binding`, { body: binding('bind-a') });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.status, 'Success');
      const got = await call('GET', `${NS}/pods/bind-a`);
      assert.equal(got.json.spec.nodeName, 'node-1');
      const scheduled = got.json.status.conditions.find((c: any) => c.type === 'PodScheduled');
      assert.equal(scheduled.status, 'True');
      assert.ok(scheduled.lastTransitionTime);
    });

    it('reference behaviour: binding an assigned pod is 409 and changes nothing', async () => {
      const before = await call('GET', `${NS}/pods/bind-a`);
      const r = await call('POST', `${NS}/pods/bind-a/binding`, { body: binding('bind-a', { kind: 'Node', name: 'node-2' }) });
      assert.equal(r.status, 409, r.text);
      assert.equal(r.json.reason, 'Conflict');
      assert.match(r.json.message, /pod bind-a is already assigned to node "node-1"/);
      const after = await call('GET', `${NS}/pods/bind-a`);
      assert.equal(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion);
    });

    it('reference behaviour: POST .../bindings names the pod in the body; the target must be a Node', async () => {
      await createPod(pod('bind-b'));
      const wrongKind = await call('POST', `${NS}/bindings`, { body: binding('bind-b', { kind: 'Pod', name: 'x' }) });
      assert.equal(wrongKind.status, 422, wrongKind.text);
      assert.equal(wrongKind.json.details.causes[0].field, 'target.kind');
      const ok = await call('POST', `${NS}/bindings`, { body: binding('bind-b') });
      assert.equal(ok.status, 201, ok.text);
      assert.equal((await call('GET', `${NS}/pods/bind-b`)).json.spec.nodeName, 'node-1');
      const missing = await call('POST', `${NS}/bindings`, { body: binding('nope') });
      assert.equal(missing.status, 404, missing.text);
      const get = await call('GET', `${NS}/pods/bind-b/binding`);
      assert.equal(get.status, 405, get.text);
      const mismatch = await call('POST', `${NS}/pods/bind-b/binding`, { body: binding('other') });
      assert.equal(mismatch.status, 400, mismatch.text);
    });
  });

  describe('eviction', () => {
    it('reference behaviour: a pending pod is evicted (deleted) without looking at budgets', async () => {
      await createPod(pod('ev-pending', { app: 'ev' }));
      const r = await call('POST', `${NS}/pods/ev-pending/eviction`, { body: eviction('ev-pending') });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.status, 'Success');
      assert.equal((await call('GET', `${NS}/pods/ev-pending`)).status, 404);
    });

    it('reference behaviour: 429 DisruptionBudget when the matching budget allows no disruption', async () => {
      await createPod(pod('ev-guarded', { app: 'guarded' }));
      await markRunning('ev-guarded');
      const budget = await call('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { body: pdb('guard', { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } }) });
      assert.equal(budget.status, 201, budget.text);
      const r = await call('POST', `${NS}/pods/ev-guarded/eviction`, { body: eviction('ev-guarded') });
      assert.equal(r.status, 429, r.text);
      assert.equal(r.json.reason, 'TooManyRequests');
      assert.equal(r.json.message, "Cannot evict pod as it would violate the pod's disruption budget.");
      assert.equal(r.json.details.causes[0].reason, 'DisruptionBudget');
      assert.match(r.json.details.causes[0].message, /The disruption budget guard needs 1 healthy pods and has 1 currently/);
      assert.equal((await call('GET', `${NS}/pods/ev-guarded`)).status, 200, 'the pod stays');
    });

    it('reference behaviour: a budget with room lets the eviction delete the pod and records it; dryRun changes nothing', async () => {
      for (const name of ['ev-r1', 'ev-r2']) {
        await createPod(pod(name, { app: 'roomy' }));
        await markRunning(name);
      }
      await call('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { body: pdb('roomy', { minAvailable: 1, selector: { matchLabels: { app: 'roomy' } } }) });
      const dry = await call('POST', `${NS}/pods/ev-r1/eviction`, { body: eviction('ev-r1', { dryRun: ['All'] }) });
      assert.equal(dry.status, 201, dry.text);
      assert.equal((await call('GET', `${NS}/pods/ev-r1`)).status, 200, 'dry run keeps the pod');
      const budgetPath = '/apis/policy/v1/namespaces/default/poddisruptionbudgets/roomy';
      assert.equal((await call('GET', budgetPath)).json.status?.disruptedPods, undefined, 'dry run records nothing');
      const r = await call('POST', `${NS}/pods/ev-r1/eviction`, { body: eviction('ev-r1') });
      assert.equal(r.status, 201, r.text);
      assert.equal((await call('GET', `${NS}/pods/ev-r1`)).status, 404);
      const spent = (await call('GET', budgetPath)).json.status;
      assert.equal(spent.disruptionsAllowed, 0);
      assert.deepEqual(Object.keys(spent.disruptedPods), ['ev-r1']);
      const last = await call('POST', `${NS}/pods/ev-r2/eviction`, { body: eviction('ev-r2') });
      assert.equal(last.status, 429, 'the budget allows no second disruption');
    });

    it('reference behaviour: two matching budgets are a 500; a name mismatch is a 400; preconditions apply', async () => {
      await createPod(pod('ev-two', { app: 'two' }));
      await markRunning('ev-two');
      for (const name of ['two-a', 'two-b']) {
        await call('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', { body: pdb(name, { maxUnavailable: 5, selector: { matchLabels: { app: 'two' } } }) });
      }
      const r = await call('POST', `${NS}/pods/ev-two/eviction`, { body: eviction('ev-two') });
      assert.equal(r.status, 500, r.text);
      assert.match(r.json.message, /This pod has more than one PodDisruptionBudget/);
      const mismatch = await call('POST', `${NS}/pods/ev-two/eviction`, { body: eviction('other') });
      assert.equal(mismatch.status, 400, mismatch.text);
      await createPod(pod('ev-pre'));
      const stale = await call('POST', `${NS}/pods/ev-pre/eviction`, { body: eviction('ev-pre', { preconditions: { uid: 'not-the-uid' } }) });
      assert.equal(stale.status, 409, stale.text);
      assert.equal((await call('GET', `${NS}/pods/ev-pre`)).status, 200);
      const none = await call('POST', `${NS}/pods/nope/eviction`, { body: eviction('nope') });
      assert.equal(none.status, 404, none.text);
    });
  });

  describe('ephemeral containers', () => {
    const debug = { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'app' };

    it('reference behaviour: GET returns the pod; a patch adds an ephemeral container and nothing else', async () => {
      await createPod(pod('eph'));
      const got = await call('GET', `${NS}/pods/eph/ephemeralcontainers`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.kind, 'Pod');
      const r = await call('PATCH', `${NS}/pods/eph/ephemeralcontainers`, {
        raw: JSON.stringify({ metadata: { labels: { sneaky: 'yes' } }, spec: { ephemeralContainers: [debug], containers: [{ name: 'app', image: 'nginx:2' }] } }),
        headers: SMP,
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.spec.ephemeralContainers.map((c: any) => c.name), ['debugger']);
      assert.equal(r.json.spec.containers[0].image, 'nginx:1.27', 'other spec fields are kept');
      assert.equal(r.json.metadata.labels?.sneaky, undefined, 'metadata is kept');
    });

    it('reference behaviour: existing ephemeral containers may be neither removed nor changed', async () => {
      const cur = (await call('GET', `${NS}/pods/eph/ephemeralcontainers`)).json;
      const removed = await call('PUT', `${NS}/pods/eph/ephemeralcontainers`, { body: { ...cur, spec: { ...cur.spec, ephemeralContainers: [] } } });
      assert.equal(removed.status, 422, removed.text);
      assert.match(removed.json.message, /existing ephemeral containers "debugger" may not be removed/);
      const changed = structuredClone(cur);
      changed.spec.ephemeralContainers[0].image = 'busybox:2';
      const r = await call('PUT', `${NS}/pods/eph/ephemeralcontainers`, { body: changed });
      assert.equal(r.status, 422, r.text);
      assert.match(r.json.message, /may not be changed/);
      const ports = await call('PATCH', `${NS}/pods/eph/ephemeralcontainers`, {
        raw: JSON.stringify({ spec: { ephemeralContainers: [{ name: 'd2', image: 'busybox', ports: [{ containerPort: 80 }] }] } }),
        headers: SMP,
      });
      assert.equal(ports.status, 422, ports.text);
      assert.match(ports.json.details.causes[0].field, /^spec\.ephemeralContainers\[\d\]\.ports$/);
      const del = await call('DELETE', `${NS}/pods/eph/ephemeralcontainers`);
      assert.equal(del.status, 405, del.text);
      assert.equal((await call('GET', `${NS}/pods/eph`)).status, 200);
    });
  });

  describe('log and the streaming subresources', () => {
    it('reference behaviour: log errors for a missing pod, an unknown or an unnamed container', async () => {
      await createPod(pod('two-c', {}, [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'x:1' }]));
      const missing = await call('GET', `${NS}/pods/nope/log`);
      assert.equal(missing.status, 404, missing.text);
      const unknown = await call('GET', `${NS}/pods/two-c/log?container=zz`);
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.json.message, 'container zz is not valid for pod two-c');
      const unnamed = await call('GET', `${NS}/pods/two-c/log`);
      assert.equal(unnamed.status, 400, unnamed.text);
      assert.equal(unnamed.json.message, 'a container name must be specified for pod two-c, choose one of: [a b]');
      const badOpts = await call('GET', `${NS}/pods/two-c/log?container=a&tailLines=-1`);
      assert.equal(badOpts.status, 422, badOpts.text);
    });

    it('reference behaviour: an unscheduled pod has no log yet (204); a node that does not exist is 404', async () => {
      await createPod(pod('logme'));
      const empty = await call('GET', `${NS}/pods/logme/log`);
      assert.equal(empty.status, 204, empty.text);
      assert.equal(empty.text, '');
      const plain = await call('GET', `${NS}/pods/logme/log`, { headers: { accept: 'text/plain' } });
      assert.equal(plain.status, 204, 'a log reader asking for text is not refused');
      await call('POST', `${NS}/pods/logme/binding`, { body: binding('logme', { kind: 'Node', name: 'ghost' }) });
      const noNode = await call('GET', `${NS}/pods/logme/log`);
      assert.equal(noNode.status, 404, noNode.text);
      assert.equal(noNode.json.message, 'nodes "ghost" not found');
    });

    it('reference behaviour: a scheduled pod whose node agent is unreachable answers a 500 Status', async () => {
      const node = await call('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'ghost' } } });
      assert.equal(node.status, 201, node.text);
      const r = await call('GET', `${NS}/pods/logme/log`);
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.kind, 'Status');
      assert.match(r.json.message, /unavailable/);
    });

    it('reference behaviour: exec, attach and portforward need a host; proxy needs a pod address', async () => {
      for (const sub of ['exec?command=ls', 'attach', 'portforward']) {
        const r = await call('POST', `${NS}/pods/two-c/${sub}${sub === 'attach' ? '?container=a' : ''}`);
        const want = sub.startsWith('exec') ? 'a container name must be specified for pod two-c, choose one of: [a b]' : 'pod two-c does not have a host assigned';
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.message, want);
      }
      const proxy = await call('GET', `${NS}/pods/two-c/proxy/healthz`);
      assert.equal(proxy.status, 400, proxy.text);
      assert.equal(proxy.json.message, 'address not allowed');
    });
  });

  describe('volumes, claims, quotas and limit ranges', () => {
    it('reference behaviour: volumes and claims start Pending; a claim spec is fixed; quota tables show AGE first', async () => {
      const pv = await call('POST', '/api/v1/persistentvolumes', {
        body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/d' } } },
      });
      assert.equal(pv.status, 201, pv.text);
      assert.equal(pv.json.status.phase, 'Pending');
      assert.equal(pv.json.spec.persistentVolumeReclaimPolicy, 'Retain');
      const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c1' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
      const pvc = await call('POST', `${NS}/persistentvolumeclaims`, { body: claim });
      assert.equal(pvc.status, 201, pvc.text);
      assert.equal(pvc.json.status.phase, 'Pending');
      const changed = await call('PATCH', `${NS}/persistentvolumeclaims/c1`, { raw: JSON.stringify({ spec: { accessModes: ['ReadWriteMany'] } }), headers: MERGE });
      assert.equal(changed.status, 422, changed.text);
      assert.equal(changed.json.details.causes[0].field, 'spec');
      const badLimits = await call('POST', `${NS}/limitranges`, {
        body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l1' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } },
      });
      assert.equal(badLimits.status, 422, badLimits.text);
      const quota = await call('POST', `${NS}/resourcequotas`, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q1' }, spec: { hard: { pods: '10' } } } });
      assert.equal(quota.status, 201, quota.text);
      const table = await call('GET', `${NS}/resourcequotas`, { headers: TABLE });
      assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Age', 'Request', 'Limit']);
    });
  });

  describe('componentstatuses', () => {
    it('reference behaviour: a list probes the components; etcd-0 is Healthy from the storage check', async () => {
      const r = await call('GET', '/api/v1/componentstatuses');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.kind, 'ComponentStatusList');
      assert.deepEqual(r.json.items.map((i: any) => i.metadata.name), ['scheduler', 'controller-manager', 'etcd-0']);
      const etcd = r.json.items.find((i: any) => i.metadata.name === 'etcd-0');
      assert.deepEqual(etcd.conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
      assert.match(String(r.headers.warning), /v1 ComponentStatus is deprecated in v1\.19\+/);
    });

    it('reference behaviour: get by name, 404 for an unknown one, 405 for writes and watch, table without Age', async () => {
      const one = await call('GET', '/api/v1/componentstatuses/etcd-0');
      assert.equal(one.status, 200, one.text);
      assert.equal(one.json.kind, 'ComponentStatus');
      const unknown = await call('GET', '/api/v1/componentstatuses/nope');
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.json.message, 'componentstatus "nope" not found');
      const post = await call('POST', '/api/v1/componentstatuses', { body: { kind: 'ComponentStatus', metadata: { name: 'x' } } });
      assert.equal(post.status, 405, post.text);
      const watch = await call('GET', '/api/v1/componentstatuses?watch=true');
      assert.equal(watch.status, 405, watch.text);
      const table = await call('GET', '/api/v1/componentstatuses/etcd-0', { headers: TABLE });
      assert.equal(table.status, 200, table.text);
      assert.deepEqual(table.json.columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Message', 'Error']);
      assert.deepEqual(table.json.rows[0].cells, ['etcd-0', 'Healthy', 'ok', '']);
    });
  });
});
