import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock, startServer } from '../src/index.js';
import { SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE } from '../src/authn/bootstrap-token.js';
import { client } from './helpers/client.js';

const START = Date.parse('2030-01-02T03:04:05Z');
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('ManualClock', () => {
  it('starts where told, moves only by set and advance, and rejects non-finite times', () => {
    const c = new ManualClock(START);
    assert.equal(c.now(), START);
    c.advance(1500);
    assert.equal(c.now(), START + 1500);
    c.set(new Date(START - 10));
    assert.equal(c.now(), START - 10);
    assert.throws(() => c.advance(Number.NaN), /finite/);
    assert.throws(() => c.set(new Date('nope')), /finite/);
    assert.throws(() => new ManualClock(Number.POSITIVE_INFINITY), /finite/);
  });
});

describe('test kit: a controllable clock (startServer({ clock }))', () => {
  it('spec 2.1 timestamps: creationTimestamp and deletionTimestamp follow each server own clock', async () => {
    const a = new ManualClock(START);
    const b = new ManualClock(START + 86_400_000);
    const [sa, sb] = await Promise.all([startServer({ clock: a }), startServer({ clock: b })]);
    try {
      const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'timed' } };
      const ca = await client(sa)('POST', '/api/v1/namespaces', { body: ns });
      const cb = await client(sb)('POST', '/api/v1/namespaces', { body: ns });
      assert.equal(ca.json.metadata.creationTimestamp, rfc3339(START));
      assert.equal(cb.json.metadata.creationTimestamp, rfc3339(START + 86_400_000));
      a.advance(42_000);
      const deleted = await client(sa)('DELETE', '/api/v1/namespaces/timed');
      assert.equal(deleted.json.metadata.deletionTimestamp, rfc3339(START + 42_000));
    } finally {
      await Promise.all([sa.close(), sb.close()]);
    }
  });

  it('spec 5.5 TokenRequest: issue time and expiry follow the clock; advancing past expiry makes the token fail (401)', async () => {
    const clock = new ManualClock(START);
    const server = await startServer({ clock });
    try {
      const call = client(server);
      await call('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } });
      const tr = await call('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { body: { spec: { expirationSeconds: 600 } } });
      assert.equal(tr.status, 201);
      assert.equal(tr.json.status.expirationTimestamp, rfc3339(START + 600_000));
      const token = tr.json.status.token as string;
      const asRobot = client({ ...server, adminToken: token });
      assert.notEqual((await asRobot('GET', '/api/v1/namespaces/default/configmaps')).status, 401);
      clock.advance(600_000 + 5 * 60_000);
      assert.equal((await asRobot('GET', '/api/v1/namespaces/default/configmaps')).status, 401);
    } finally {
      await server.close();
    }
  });

  it('spec 5.4 bootstrap tokens: expiration is checked against the clock', async () => {
    const clock = new ManualClock(START);
    const server = await startServer({ clock, enableBootstrapTokenAuth: true });
    try {
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: BOOTSTRAP_TOKEN_SECRET_TYPE,
        metadata: { name: `${BOOTSTRAP_TOKEN_SECRET_PREFIX}abcdef`, namespace: SYSTEM_NAMESPACE },
        stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', expiration: rfc3339(START + 3_600_000), 'usage-bootstrap-authentication': 'true' },
      };
      assert.equal((await client(server)('POST', `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets`, { body: secret })).status, 201);
      const asBootstrap = client({ ...server, adminToken: 'abcdef.0123456789abcdef' });
      assert.notEqual((await asBootstrap('GET', '/api/v1/namespaces')).status, 401);
      clock.advance(3_600_000);
      assert.equal((await asBootstrap('GET', '/api/v1/namespaces')).status, 401);
    } finally {
      await server.close();
    }
  });
});
