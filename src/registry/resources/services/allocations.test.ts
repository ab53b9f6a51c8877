import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { isStatusError } from '../../../errors/index.js';
import { MemoryBackend } from '../../../storage/index.js';
import { NODE_PORTS_PREFIX, SERVICE_IPS_PREFIX, serviceAllocations } from './allocations.js';
import { applyServiceDefaults } from './defaults.js';
import { serviceNetwork } from './network.js';
import { dynamicOffset, RangeAllocator, type Owner } from './range-allocator.js';

type Obj = Record<string, unknown>;
const owner = (uid: string): Owner => ({ uid, namespace: 'default', name: uid });
const svc = (uid: string, spec: Obj): ApiObject => {
  const o: ApiObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: uid, namespace: 'default', uid }, spec: structuredClone(spec) };
  applyServiceDefaults(o.spec as Obj);
  return o;
};
const specOf = (o: ApiObject) => o.spec as Obj;
const portsOf = (o: ApiObject) => specOf(o).ports as Obj[];
const keys = async (b: MemoryBackend, prefix: string) => (await b.list(prefix)).items.map((kv) => kv.key.slice(prefix.length)).sort();

/** The StatusError `p` rejects with. */
async function rejection(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  return assert.fail('expected a StatusError');
}

let backend: MemoryBackend;
beforeEach(() => {
  backend = new MemoryBackend({ compactIntervalMs: 0 });
});
afterEach(() => backend.close());

describe('range allocator (reference behaviour: no value handed out twice)', () => {
  const range = (size: number, offset = 0) => new RangeAllocator('/r/', size, String, (n) => (/^\d+$/.test(n) && Number(n) < size ? Number(n) : undefined), offset);

  it('reference behaviour: the dynamic band rule min(max(min, size/step), max)', () => {
    const ipRule = { min: 16, max: 256, step: 16 };
    const portRule = { min: 16, max: 128, step: 32 };
    const cases: [number, number, typeof ipRule, number][] = [
      [256, 254, ipRule, 16],
      [2 ** 20, 2 ** 20 - 2, ipRule, 256],
      [1024, 1022, ipRule, 64],
      [16, 14, ipRule, 0],
      [2768, 2768, portRule, 86],
      [100_000, 100_000, portRule, 128],
    ];
    for (const [size, count, rule, want] of cases) assert.equal(dynamicOffset(size, count, rule), want, `${size}`);
  });

  it('reference behaviour: values are handed out from the upper band first, then the lower, then the range is full', async () => {
    const r = range(8, 4);
    const got: number[] = [];
    for (let i = 0; i < 8; i++) got.push((await r.takeNext(backend, owner(`o${i}`))) as number);
    assert.deepEqual(got.slice(0, 4).sort(), [4, 5, 6, 7]);
    assert.deepEqual(got.slice(4).sort(), [0, 1, 2, 3]);
    assert.equal(await r.takeNext(backend, owner('late')), undefined);
    assert.equal(await r.peekNext(backend), undefined);
  });

  it('reference behaviour: 40 concurrent takers of a 40-value range each get a different value', async () => {
    const r = range(40, 2);
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => r.takeNext(backend, owner(`o${i}`))));
    assert.equal(new Set(got).size, 40);
    assert.ok(got.every((v) => v !== undefined));
  });

  it('reference behaviour: a value is taken once, is "ours" again for its holder, and only its holder gives it back', async () => {
    const r = range(10);
    assert.equal(await r.take(backend, 3, owner('a')), 'taken');
    assert.equal(await r.take(backend, 3, owner('a')), 'ours');
    assert.equal(await r.take(backend, 3, owner('b')), 'busy');
    assert.equal(await r.available(backend, 3, owner('b')), false);
    await r.give(backend, 3, owner('b'));
    assert.deepEqual(await keys(backend, '/r/'), ['3'], 'not b\'s to give back');
    await r.give(backend, 3, owner('a'));
    assert.deepEqual(await keys(backend, '/r/'), []);
  });
});

describe('Service allocations (reference behaviour)', () => {
  const net = serviceNetwork({ clusterIPRange: '10.0.0.0/24', nodePortRange: '30000-30099' });
  const alloc = serviceAllocations(net);

  it('reference behaviour: a create takes a cluster IP from the dynamic band and node ports, one per port number', async () => {
    const o = svc('a', { type: 'NodePort', ports: [{ name: 'tcp', port: 53 }, { name: 'udp', port: 53, protocol: 'UDP' }, { name: 'web', port: 80 }] });
    const r = await alloc.reserve(backend, o, undefined, false);
    await r.commit();
    const at = net.offsetOf(String(specOf(o).clusterIP)) as number;
    assert.ok(at >= 16, `dynamic IPs start above the static band (${String(specOf(o).clusterIP)})`);
    assert.deepEqual(specOf(o).clusterIPs, [specOf(o).clusterIP]);
    const [tcp, udp, web] = portsOf(o).map((p) => p.nodePort as number);
    assert.equal(tcp, udp, '53/TCP and 53/UDP share a node port');
    assert.notEqual(tcp, web);
    assert.deepEqual(await keys(backend, SERVICE_IPS_PREFIX), [specOf(o).clusterIP]);
    assert.deepEqual(await keys(backend, NODE_PORTS_PREFIX), [String(tcp), String(web)].sort());
  });

  it('reference behaviour: requested values must be in range and free (422 naming the field)', async () => {
    await (await alloc.reserve(backend, svc('a', { type: 'NodePort', clusterIP: '10.0.0.5', ports: [{ port: 80, nodePort: 30005 }] }), undefined, false)).commit();
    const cases: [Obj, string][] = [
      [{ clusterIP: '10.0.0.5', ports: [{ port: 80 }] }, 'spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: provided IP is already allocated'],
      [{ clusterIP: '10.0.1.5', ports: [{ port: 80 }] }, 'spec.clusterIPs: Invalid value: ["10.0.1.5"]: failed to allocate IP 10.0.1.5: the provided IP (10.0.1.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24'],
      [{ type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }, 'spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated'],
      [{ type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }, 'spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30099'],
      [{ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30005, ports: [{ port: 80 }] }, 'spec.healthCheckNodePort: Invalid value: 30005: failed to allocate requested HealthCheck NodePort 30005: provided port is already allocated'],
    ];
    for (const [spec, message] of cases) {
      const before = [await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)];
      const e = await rejection(alloc.reserve(backend, svc('b', spec), undefined, false));
      assert.equal(e.code, 422);
      assert.equal(e.message, `Service "b" is invalid: ${message}`);
      assert.deepEqual([await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)], before, 'a refused reservation keeps nothing');
    }
  });

  it('reference behaviour: headless and ExternalName Services take nothing; a dry run takes nothing', async () => {
    for (const spec of [{ clusterIP: 'None', ports: [{ port: 80 }] }, { type: 'ExternalName', externalName: 'db.example.com' }]) {
      await (await alloc.reserve(backend, svc('h', spec), undefined, false)).commit();
    }
    const dry = svc('d', { type: 'NodePort', ports: [{ port: 80 }] });
    await alloc.reserve(backend, dry, undefined, true);
    assert.ok(net.offsetOf(String(specOf(dry).clusterIP)) !== undefined, 'a dry run still shows an address');
    assert.deepEqual([await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)], [[], []]);
  });

  it('reference behaviour: revert gives back what a failed write took; delete gives back everything', async () => {
    const o = svc('a', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] });
    const r = await alloc.reserve(backend, o, undefined, false);
    assert.equal((await keys(backend, NODE_PORTS_PREFIX)).length, 2, 'a node port and a health check port');
    await r.revert();
    assert.deepEqual([await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)], [[], []]);
    const kept = svc('k', { type: 'NodePort', ports: [{ port: 80 }] });
    await (await alloc.reserve(backend, kept, undefined, false)).commit();
    await alloc.release(backend, kept);
    assert.deepEqual([await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)], [[], []]);
  });

  it('reference behaviour: an update that leaves NodePort, or goes to ExternalName, gives the values back on commit', async () => {
    const old = svc('a', { type: 'NodePort', ports: [{ port: 80 }] });
    await (await alloc.reserve(backend, old, undefined, false)).commit();
    const toClusterIP = structuredClone(old);
    Object.assign(specOf(toClusterIP), { type: 'ClusterIP' });
    delete portsOf(toClusterIP)[0]?.nodePort;
    delete specOf(toClusterIP).externalTrafficPolicy;
    await (await alloc.reserve(backend, toClusterIP, old, false)).commit();
    assert.deepEqual(await keys(backend, SERVICE_IPS_PREFIX), [specOf(old).clusterIP], 'the address is kept');
    assert.deepEqual(await keys(backend, NODE_PORTS_PREFIX), []);
    const toExternal: ApiObject = { ...structuredClone(toClusterIP), spec: { type: 'ExternalName', externalName: 'x.example.com' } };
    await (await alloc.reserve(backend, toExternal, toClusterIP, false)).commit();
    assert.deepEqual(await keys(backend, SERVICE_IPS_PREFIX), []);
  });

  it('reference behaviour: an update that keeps its values takes nothing new', async () => {
    const old = svc('a', { type: 'NodePort', ports: [{ port: 80 }] });
    await (await alloc.reserve(backend, old, undefined, false)).commit();
    const before = (await backend.list('/registry/ranges/')).revision;
    const same = structuredClone(old);
    (specOf(same).selector as unknown) = { app: 'x' };
    await (await alloc.reserve(backend, same, old, false)).commit();
    assert.equal(await backend.currentRevision(), before, 'no write to storage');
  });

  it('reference behaviour: an update keeps values it already had without checking them again (a Service from before a range change)', async () => {
    const legacy = svc('old', { type: 'NodePort', clusterIP: '10.96.0.10', ports: [{ port: 80, nodePort: 31500 }] });
    const next = structuredClone(legacy);
    (specOf(next).selector as unknown) = { app: 'y' };
    await (await alloc.reserve(backend, next, legacy, false)).commit();
    assert.equal(specOf(next).clusterIP, '10.96.0.10');
    assert.equal(portsOf(next)[0]?.nodePort, 31500);
    assert.deepEqual([await keys(backend, SERVICE_IPS_PREFIX), await keys(backend, NODE_PORTS_PREFIX)], [[], []]);
  });

  it('reference behaviour: a full range is a 500 "failed to allocate a serviceIP: range is full"', async () => {
    const tiny = serviceNetwork({ clusterIPRange: '10.0.0.0/30', nodePortRange: '30000' });
    const a = serviceAllocations(tiny);
    await (await a.reserve(backend, svc('x', { ports: [{ port: 80 }] }), undefined, false)).commit();
    await (await a.reserve(backend, svc('y', { ports: [{ port: 80 }] }), undefined, false)).commit();
    const e = await rejection(a.reserve(backend, svc('z', { ports: [{ port: 80 }] }), undefined, false));
    assert.equal(e.code, 500);
    assert.equal(e.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  });

  it('reference behaviour: a full node port range is a 500 "failed to allocate a nodePort: range is full", and the address taken is given back', async () => {
    const onePort = serviceAllocations(serviceNetwork({ nodePortRange: '30000' }));
    await (await onePort.reserve(backend, svc('x', { type: 'NodePort', ports: [{ port: 80 }] }), undefined, false)).commit();
    const before = await keys(backend, SERVICE_IPS_PREFIX);
    const e = await rejection(onePort.reserve(backend, svc('y', { type: 'NodePort', ports: [{ port: 80 }] }), undefined, false));
    assert.equal(e.code, 500);
    assert.equal(e.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
    assert.deepEqual(await keys(backend, SERVICE_IPS_PREFIX), before);
  });
});
