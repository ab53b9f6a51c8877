import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { BOOTSTRAP_TOKEN_SECRET_TYPE, PUBLIC_NAMESPACE, SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { isNotFound } from '../src/client/index.js';
import { bootstrapSignerController, tokenCleanerController } from '../src/controllers/bootstrap/index.js';
import { startServer, type TestServer } from '../src/index.js';
import { eventually, gvr, runController, type KubeObject } from './controllers-misc-harness.js';

const CONFIGMAPS = gvr('', 'v1', 'configmaps');
const SECRETS = gvr('', 'v1', 'secrets');
const KUBECONFIG = 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: https://127.0.0.1:6443\n';

function tokenSecret(id: string, secret: string, data: Record<string, string>): KubeObject {
  const all = { 'token-id': id, 'token-secret': secret, ...data };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: BOOTSTRAP_TOKEN_SECRET_TYPE,
    metadata: { name: `bootstrap-token-${id}`, namespace: SYSTEM_NAMESPACE },
    data: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/** Checks a detached JWS the way a joining node does: recompute the HMAC over header.payload. */
function verifiesWith(jws: string, content: string, token: string): boolean {
  const [header, payload, signature] = jws.split('.');
  if (payload !== '' || header === undefined || signature === undefined) return false;
  const h = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string; kid?: string };
  if (h.alg !== 'HS256' || h.kid !== token.split('.')[0]) return false;
  const expected = createHmac('sha256', token).update(`${header}.${Buffer.from(content).toString('base64url')}`).digest();
  const got = Buffer.from(signature, 'base64url');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

let server: TestServer;
before(async () => {
  server = await startServer({ controllers: [] }); // the test runs the controller itself
});
after(async () => {
  await server.close();
});

describe('bootstrap-signer-controller (spec 2.9)', () => {
  it('spec 2.9: signs cluster-info once per signing token, checked with node:crypto HMAC; drops an expired token at expiry; writes only on change', async () => {
    const running = runController(server, bootstrapSignerController);
    try {
      const secrets = running.client.resource(SECRETS, SYSTEM_NAMESPACE);
      const maps = running.client.resource(CONFIGMAPS, PUBLIC_NAMESPACE);
      const expiresAt = Date.now() + 3500;
      await secrets.create(tokenSecret('aaaaaa', 'aaaaaaaaaaaaaaaa', { 'usage-bootstrap-signing': 'true', expiration: new Date(expiresAt).toISOString() }));
      await secrets.create(tokenSecret('bbbbbb', 'bbbbbbbbbbbbbbbb', { 'usage-bootstrap-signing': 'true' }));
      await secrets.create(tokenSecret('cccccc', 'cccccccccccccccc', { 'usage-bootstrap-authentication': 'true' }));
      await maps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig: KUBECONFIG } });

      const signed = await eventually('both signatures', async () => {
        const cm = await maps.get('cluster-info');
        const data = cm.data as Record<string, string>;
        return data['jws-kubeconfig-aaaaaa'] && data['jws-kubeconfig-bbbbbb'] ? cm : undefined;
      });
      const data = signed.data as Record<string, string>;
      assert.deepEqual(Object.keys(data).sort(), ['jws-kubeconfig-aaaaaa', 'jws-kubeconfig-bbbbbb', 'kubeconfig']);
      assert.equal(verifiesWith(data['jws-kubeconfig-aaaaaa'] as string, KUBECONFIG, 'aaaaaa.aaaaaaaaaaaaaaaa'), true);
      assert.equal(verifiesWith(data['jws-kubeconfig-bbbbbb'] as string, KUBECONFIG, 'bbbbbb.bbbbbbbbbbbbbbbb'), true);
      assert.equal(verifiesWith(data['jws-kubeconfig-bbbbbb'] as string, KUBECONFIG, 'bbbbbb.0000000000000000'), false);

      // A change that does not alter any signature leaves the map alone.
      await secrets.patch('bootstrap-token-cccccc', 'merge', { data: { description: Buffer.from('auth only').toString('base64') } });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await maps.get('cluster-info')).metadata.resourceVersion, signed.metadata.resourceVersion);

      // Nothing writes the token when it expires: the signer's own timer takes its entry out.
      const dropped = await eventually('the expired token entry to go', async () => {
        const cm = await maps.get('cluster-info');
        return (cm.data as Record<string, string>)['jws-kubeconfig-aaaaaa'] === undefined ? Date.now() : undefined;
      });
      assert.ok(dropped >= expiresAt, 'not before the expiration');
      assert.ok(dropped - expiresAt < 2000, `within 2 s of the expiration (took ${dropped - expiresAt} ms)`);
      const after = (await maps.get('cluster-info')).data as Record<string, string>;
      assert.deepEqual(Object.keys(after).sort(), ['jws-kubeconfig-bbbbbb', 'kubeconfig']);

      // A token that stops signing loses its entry too.
      await secrets.patch('bootstrap-token-bbbbbb', 'merge', { data: { 'usage-bootstrap-signing': Buffer.from('false').toString('base64') } });
      await eventually('the non-signing token entry to go', async () => {
        const cm = await maps.get('cluster-info');
        return (cm.data as Record<string, string>)['jws-kubeconfig-bbbbbb'] === undefined ? true : undefined;
      });
    } finally {
      await running.stop();
    }
  });
});

describe('token-cleaner-controller (spec 3.5)', () => {
  it('spec 3.5: deletes an expired token at once and a future one at its expiration; keeps tokens without expiration', async () => {
    const running = runController(server, tokenCleanerController);
    try {
      const secrets = running.client.resource(SECRETS, SYSTEM_NAMESPACE);
      await secrets.create(tokenSecret('dddddd', 'dddddddddddddddd', { expiration: '2001-01-01T00:00:00Z' }));
      const expiresAt = Date.now() + 2000;
      await secrets.create(tokenSecret('eeeeee', 'eeeeeeeeeeeeeeee', { expiration: new Date(expiresAt).toISOString() }));
      await secrets.create(tokenSecret('ffffff', 'ffffffffffffffff', {}));
      const gone = (name: string) => async () => {
        try {
          await secrets.get(name);
          return undefined;
        } catch (e) {
          if (isNotFound(e)) return Date.now();
          throw e;
        }
      };
      await eventually('the expired token to be deleted', gone('bootstrap-token-dddddd'), 3000);
      assert.ok(Date.now() < expiresAt, 'the future token is still valid at this point');
      await secrets.get('bootstrap-token-eeeeee');
      const deletedAt = await eventually('the expiring token to be deleted', gone('bootstrap-token-eeeeee'), 6000);
      assert.ok(deletedAt >= expiresAt, 'not before its expiration');
      assert.ok(deletedAt - expiresAt < 1500, `within 1.5 s of its expiration (took ${deletedAt - expiresAt} ms)`);
      assert.equal((await secrets.get('bootstrap-token-ffffff')).metadata.name, 'bootstrap-token-ffffff');
    } finally {
      await running.stop();
    }
  });
});
