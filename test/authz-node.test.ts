/** The Node authorization mode in a whole server (`authorizationModes: ['Node', 'RBAC']`). */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COORDINATION_GROUP, NODE_LEASE_NAMESPACE } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client, type RequestOptions, type Response } from './helpers/client.js';

type Call = (method: string, path: string, opts?: RequestOptions) => Promise<Response>;

describe('Node authorization mode over HTTPS (reference behaviour)', () => {
  let dir: string;
  let server: RunningServer;
  let admin: Call;
  let n1: Call;
  let n2: Call;

  const eventually = async (what: string, f: () => Promise<boolean>) => {
    const deadline = Date.now() + 5000;
    while (!(await f())) {
      if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-authz-node-'));
    writeFileSync(join(dir, 'tokens.csv'), 'tok-n1,system:node:n1,uid-n1,system:nodes\ntok-n2,system:node:n2,uid-n2,system:nodes\n');
    server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: { type: 'memory' }, tokenAuthFile: join(dir, 'tokens.csv'), authorizationModes: ['Node', 'RBAC'] });
    const c = client(server);
    admin = c;
    n1 = (m, p, o = {}) => c(m, p, { ...o, token: 'tok-n1' });
    n2 = (m, p, o = {}) => c(m, p, { ...o, token: 'tok-n2' });
    assert.equal((await admin('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'db' }, stringData: { p: 'x' } } })).status, 201);
    const pod = { metadata: { name: 'web' }, spec: { nodeName: 'n1', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'db' } }] } };
    assert.equal((await admin('POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reference behaviour: a node reads the secret its pod mounts; another node is forbidden', async () => {
    await eventually('n1 reads the secret', async () => (await n1('GET', '/api/v1/namespaces/default/secrets/db')).status === 200);
    const other = await n2('GET', '/api/v1/namespaces/default/secrets/db');
    assert.equal(other.status, 403);
    assert.match(other.json.message, /no relationship found between node 'n2' and this object/);
  });

  it('reference behaviour: listing secrets is forbidden; the static node rules allow listing services', async () => {
    assert.equal((await n1('GET', '/api/v1/namespaces/default/secrets')).status, 403);
    assert.equal((await n1('GET', '/api/v1/services')).status, 200);
  });

  it('reference behaviour: a node may read its own lease but not another node’s', async () => {
    const leases = `/apis/${COORDINATION_GROUP}/v1/namespaces/${NODE_LEASE_NAMESPACE}/leases`;
    assert.equal((await n1('GET', `${leases}/n1`)).status, 404, 'allowed, and absent');
    assert.equal((await n1('GET', `${leases}/n2`)).status, 403);
  });

  it('reference behaviour: deleting the pod takes the node’s access to its secret away', async () => {
    assert.equal((await admin('DELETE', '/api/v1/namespaces/default/pods/web')).status, 200);
    await eventually('n1 loses the secret', async () => (await n1('GET', '/api/v1/namespaces/default/secrets/db')).status === 403);
  });
});
