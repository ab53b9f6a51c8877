/** Service cluster IPs and node ports come from ranges kept in storage: never handed out twice (reference behaviour). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { API_SERVICE_PROVIDER } from '../src/api/naming.js';
import { parseFlags, type CliOptions } from '../src/cmd/apiserver-flags.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const SVC = '/api/v1/namespaces/default/services';
type Call = ReturnType<typeof client>;
const service = (name: string, spec: object = {}) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });
const reserved = async (server: RunningServer, what: 'serviceips' | 'servicenodeports') =>
  (await server.backend.list(`/registry/ranges/${what}/`)).items.map((kv) => kv.key.split('/').pop()).sort();

describe('Service allocation over HTTPS (reference behaviour)', () => {
  let server: RunningServer;
  let call: Call;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour: the `kubernetes` Service in default holds the first address and points 443 at the secure port', async () => {
    const r = await call('GET', `${SVC}/kubernetes`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.metadata.labels, { component: 'apiserver', provider: API_SERVICE_PROVIDER });
    assert.equal(r.json.spec.type, 'ClusterIP');
    assert.equal(r.json.spec.clusterIP, '10.0.0.1');
    assert.deepEqual(r.json.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: server.port }]);
    assert.ok((await reserved(server, 'serviceips')).includes('10.0.0.1'));
  });

  it('reference behaviour: 50 Services created in parallel get 50 different cluster IPs and node ports', async () => {
    const made = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call('POST', SVC, { body: service(`par-${i}`, i % 2 ? { type: 'NodePort' } : {}) })),
    );
    for (const r of made) assert.equal(r.status, 201, r.text);
    const ips = made.map((r) => r.json.spec.clusterIP as string);
    assert.equal(new Set([...ips, '10.0.0.1']).size, 51, 'all different, and none is the kubernetes Service\'s');
    const nodePorts = made.filter((r) => r.json.spec.type === 'NodePort').map((r) => r.json.spec.ports[0].nodePort as number);
    assert.equal(new Set(nodePorts).size, 25);
    assert.ok(nodePorts.every((p) => p >= 30000 && p <= 32767));
    const stored = await reserved(server, 'serviceips');
    for (const ip of ips) assert.ok(stored.includes(ip), `${ip} is recorded`);
  });

  it('reference behaviour: a requested address must be free and in range (422), headless takes none, a dry run takes none', async () => {
    const ok = await call('POST', SVC, { body: service('chosen', { clusterIP: '10.0.0.9' }) });
    assert.equal(ok.status, 201, ok.text);
    const taken = await call('POST', SVC, { body: service('chosen-again', { clusterIP: '10.0.0.9' }) });
    assert.equal(taken.status, 422, taken.text);
    assert.match(taken.json.message, /spec\.clusterIPs: Invalid value: \["10\.0\.0\.9"\]: failed to allocate IP 10\.0\.0\.9: provided IP is already allocated$/);
    const outside = await call('POST', SVC, { body: service('outside', { clusterIP: '10.96.0.10' }) });
    assert.equal(outside.status, 422, outside.text);
    assert.match(outside.json.message, /not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/24$/);
    const before = await reserved(server, 'serviceips');
    assert.equal((await call('POST', SVC, { body: service('headless', { clusterIP: 'None' }) })).status, 201);
    const dry = await call('POST', `${SVC}?dryRun=All`, { body: service('dry') });
    assert.equal(dry.status, 201, dry.text);
    assert.match(dry.json.spec.clusterIP, /^10\.0\.0\.\d+$/);
    assert.deepEqual(await reserved(server, 'serviceips'), before);
  });
});

describe('Service ranges: exhaustion, release and reuse (reference behaviour)', () => {
  let server: RunningServer;
  let call: Call;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, serviceClusterIPRange: '10.1.0.0/29', serviceNodePortRange: '30000-30001' });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour: a /29 hands out 6 addresses; the 7th Service is a 500 "range is full"; a delete makes room again', async () => {
    assert.equal((await call('GET', `${SVC}/kubernetes`)).json.spec.clusterIP, '10.1.0.1');
    for (let i = 0; i < 5; i++) assert.equal((await call('POST', SVC, { body: service(`full-${i}`) })).status, 201);
    const full = await call('POST', SVC, { body: service('one-too-many') });
    assert.equal(full.status, 500, full.text);
    assert.equal(full.json.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
    assert.equal((await call('GET', `${SVC}/one-too-many`)).status, 404);
    assert.equal((await call('POST', SVC, { body: service('headless-still-fits', { clusterIP: 'None' }) })).status, 201);
    const freed = (await call('GET', `${SVC}/full-2`)).json.spec.clusterIP;
    assert.equal((await call('DELETE', `${SVC}/full-2`)).status, 200);
    // A create that fails after taking an address (the name exists) gives it back.
    assert.equal((await call('POST', SVC, { body: service('full-0') })).status, 409);
    const again = await call('POST', SVC, { body: service('reuse') });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.json.spec.clusterIP, freed);
  });

  it('reference behaviour: node ports come back when a Service stops being NodePort, and requested ports must be in range', async () => {
    for (const name of ['full-0', 'full-1']) assert.equal((await call('DELETE', `${SVC}/${name}`)).status, 200);
    const np = await call('POST', SVC, { body: service('np', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81 }] }) });
    assert.equal(np.status, 201, np.text);
    assert.deepEqual(np.json.spec.ports.map((p: any) => p.nodePort).sort(), [30000, 30001]);
    const none = await call('POST', SVC, { body: service('np-2', { type: 'NodePort' }) });
    assert.equal(none.status, 500, none.text);
    assert.equal(none.json.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
    const outside = await call('POST', SVC, { body: service('np-3', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }) });
    assert.equal(outside.status, 422, outside.text);
    assert.match(outside.json.message, /spec\.ports\[0\]\.nodePort: Invalid value: 30005: provided port is not in the valid range\. The range of valid ports is 30000-30001$/);
    const toClusterIP = await call('PATCH', `${SVC}/np`, { raw: '{"spec":{"type":"ClusterIP"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(toClusterIP.status, 200, toClusterIP.text);
    assert.deepEqual(toClusterIP.json.spec.ports.map((p: any) => p.nodePort), [undefined, undefined]);
    assert.deepEqual(await reserved(server, 'servicenodeports'), []);
    assert.equal((await call('POST', SVC, { body: service('np-2', { type: 'NodePort' }) })).status, 201);
  });
});

describe('two API servers on one SQLite file share the ranges (reference behaviour)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orch-svc-two-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reference behaviour: Services created in parallel through both servers never share an address or node port', async () => {
    const storage = { type: 'sqlite' as const, path: join(dir, 'orch.db') };
    const a = await startServer({ port: 0, dataDir: dir, storage });
    const b = await startServer({ port: 0, dataDir: dir, storage });
    try {
      const [ca, cb] = [client(a), client(b)];
      const made = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? ca : cb)('POST', SVC, { body: service(`two-${i}`, { type: 'NodePort' }) })),
      );
      for (const r of made) assert.equal(r.status, 201, r.text);
      assert.equal(new Set(made.map((r) => r.json.spec.clusterIP)).size, 40);
      assert.equal(new Set(made.map((r) => r.json.spec.ports[0].nodePort)).size, 40);
      const k = (await ca('GET', `${SVC}/kubernetes`)).json;
      assert.equal(k.spec.clusterIP, '10.0.0.1', 'one kubernetes Service for both');
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('--service-cluster-ip-range and --service-node-port-range (reference behaviour)', () => {
  it('reference behaviour: the flags reach the server options; a bad range is an error naming the flag', () => {
    const opts = (parseFlags(['--service-cluster-ip-range=fd00:10::/108', '--service-node-port-range=31000-31999']) as CliOptions).server;
    assert.equal(opts.serviceClusterIPRange, 'fd00:10::/108');
    assert.equal(opts.serviceNodePortRange, '31000-31999');
    assert.throws(() => parseFlags(['--service-cluster-ip-range=10.0.0.0/8']), /--service-cluster-ip-range is too large/);
    assert.throws(() => parseFlags(['--service-node-port-range=3-2']), /--service-node-port-range: invalid port range/);
  });

  it('reference behaviour: an IPv6 range serves IPv6 Services from it', async () => {
    const server = await startServer({ port: 0, storage: { type: 'memory' }, serviceClusterIPRange: 'fd00:10::/108' });
    try {
      const call = client(server);
      assert.equal((await call('GET', `${SVC}/kubernetes`)).json.spec.clusterIP, 'fd00:10::1');
      const r = await call('POST', SVC, { body: service('v6') });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.json.spec.ipFamilies, ['IPv6']);
      assert.match(r.json.spec.clusterIP, /^fd00:10::[0-9a-f]{1,4}$/);
    } finally {
      await server.close();
    }
  });
});
