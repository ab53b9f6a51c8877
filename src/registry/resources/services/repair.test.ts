import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MemoryBackend } from '../../../storage/index.js';
import { Registry } from '../../registry.js';
import { namespaces } from '../namespaces/index.js';
import { SERVICE_IPS_PREFIX, NODE_PORTS_PREFIX } from './allocations.js';
import { serviceNetwork, serviceType } from './index.js';
import { repairServiceRanges, type LeakMemory } from './repair.js';

const net = serviceNetwork();
const keys = async (b: MemoryBackend) => (await b.list('/registry/ranges/')).items.map((kv) => kv.key).sort();

describe('service range repair (reference behaviour)', () => {
  let backend: MemoryBackend;
  let registry: Registry;
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  beforeEach(async () => {
    backend = new MemoryBackend({ compactIntervalMs: 0 });
    registry = new Registry(backend, [namespaces, serviceType(net)]);
    await registry.namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  });
  afterEach(async () => {
    registry.stopCaches();
    await backend.close();
  });
  const services = () => registry.store('', 'v1', 'services')!;

  it('reference behaviour: values a stored Service holds but storage does not record are recorded again', async () => {
    const svc = await services().create('default', { metadata: { name: 'web' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    const recorded = await keys(backend);
    assert.equal(recorded.length, 2);
    for (const k of recorded) await backend.delete(k);
    const r = await repairServiceRanges(registry, net, new Map(), log);
    assert.deepEqual(r, { recorded: 2, released: 0 });
    assert.deepEqual(await keys(backend), recorded);
    const spec = svc.spec as { clusterIP: string; ports: { nodePort: number }[] };
    assert.deepEqual(recorded, [`${SERVICE_IPS_PREFIX}${spec.clusterIP}`, `${NODE_PORTS_PREFIX}${spec.ports[0]?.nodePort}`]);
  });

  it('reference behaviour: a value no Service holds is given back only when two passes in a row found it unchanged', async () => {
    await services().create('default', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    const leak = `${SERVICE_IPS_PREFIX}10.0.0.200`;
    await backend.create(leak, Buffer.from(JSON.stringify({ uid: 'gone', namespace: 'default', name: 'crashed' })));
    const seen: LeakMemory = new Map();
    assert.deepEqual(await repairServiceRanges(registry, net, seen, log), { recorded: 0, released: 0 });
    assert.ok((await keys(backend)).includes(leak), 'kept after one pass (a create may be in flight)');
    assert.deepEqual(await repairServiceRanges(registry, net, seen, log), { recorded: 0, released: 1 });
    assert.deepEqual((await keys(backend)).includes(leak), false);
    assert.equal((await keys(backend)).length, 1, "the live Service's address stays");
  });

  it('reference behaviour: a suspected leak that changed between passes is not given back', async () => {
    const leak = `${SERVICE_IPS_PREFIX}10.0.0.201`;
    const kv = await backend.create(leak, Buffer.from(JSON.stringify({ uid: 'a', namespace: 'default', name: 'a' })));
    const seen: LeakMemory = new Map();
    await repairServiceRanges(registry, net, seen, log);
    await backend.update(leak, Buffer.from(JSON.stringify({ uid: 'b', namespace: 'default', name: 'b' })), kv.modRevision);
    assert.deepEqual(await repairServiceRanges(registry, net, seen, log), { recorded: 0, released: 0 });
    assert.ok((await keys(backend)).includes(leak));
  });
});
