/** Fixes found using the server as a new user would: 406 before writes, TokenRequest nulls, write option 422s. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTHENTICATION_GROUP, META_GROUP, REFERENCE_AUTHENTICATION_GROUP_ALIAS } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const NS = '/api/v1/namespaces/default';
const UNREADABLE = { accept: 'text/html' };
const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('write path fixes over HTTPS', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' }, writeKubeconfig: true });
    call = client(server);
  });
  after(() => server.close());

  /** The 406 the reference sends when no offered media type is acceptable: a JSON Status. */
  function assertNotAcceptable(r: Awaited<ReturnType<typeof call>>): void {
    assert.equal(r.status, 406, r.text);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(r.json.kind, 'Status');
    assert.equal(r.json.reason, 'NotAcceptable');
    assert.equal(r.json.code, 406);
  }

  describe('406 before anything is written (spec 4.4, architecture rule 9)', () => {
    it('POST with an unacceptable Accept stores nothing', async () => {
      assertNotAcceptable(await call('POST', `${NS}/configmaps`, { body: cm('never', { a: '1' }), headers: UNREADABLE }));
      assert.equal((await call('GET', `${NS}/configmaps/never`)).status, 404);
    });

    it('PUT with an unacceptable Accept changes nothing', async () => {
      const made = await call('POST', `${NS}/configmaps`, { body: cm('put-406', { a: '1' }) });
      assert.equal(made.status, 201, made.text);
      assertNotAcceptable(await call('PUT', `${NS}/configmaps/put-406`, { body: cm('put-406', { a: '2' }), headers: UNREADABLE }));
      const now = await call('GET', `${NS}/configmaps/put-406`);
      assert.deepEqual(now.json.data, { a: '1' });
      assert.equal(now.json.metadata.resourceVersion, made.json.metadata.resourceVersion);
    });

    it('PUT that would create a Service with an unacceptable Accept creates nothing and takes no address', async () => {
      const before = (await server.backend.list('/registry/ranges/serviceips/')).items.length;
      const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'put-create-406' }, spec: { ports: [{ port: 80 }] } };
      assertNotAcceptable(await call('PUT', `${NS}/services/put-create-406`, { body: svc, headers: UNREADABLE }));
      assert.equal((await call('GET', `${NS}/services/put-create-406`)).status, 404);
      assert.equal((await server.backend.list('/registry/ranges/serviceips/')).items.length, before);
    });

    it('PATCH (merge and apply) with an unacceptable Accept changes nothing', async () => {
      const made = await call('POST', `${NS}/configmaps`, { body: cm('patch-406', { a: '1' }) });
      const merge = { 'content-type': 'application/merge-patch+json', ...UNREADABLE };
      assertNotAcceptable(await call('PATCH', `${NS}/configmaps/patch-406`, { raw: '{"data":{"a":"2"}}', headers: merge }));
      const apply = { 'content-type': 'application/apply-patch+yaml', ...UNREADABLE };
      assertNotAcceptable(await call('PATCH', `${NS}/configmaps/patch-406?fieldManager=me`, { raw: JSON.stringify(cm('patch-406', { a: '3' })), headers: apply }));
      const now = await call('GET', `${NS}/configmaps/patch-406`);
      assert.deepEqual(now.json.data, { a: '1' });
      assert.equal(now.json.metadata.resourceVersion, made.json.metadata.resourceVersion);
    });

    it('DELETE of an item and of a collection with an unacceptable Accept deletes nothing', async () => {
      await call('POST', `${NS}/configmaps`, { body: cm('delete-406', { a: '1' }) });
      assertNotAcceptable(await call('DELETE', `${NS}/configmaps/delete-406`, { headers: UNREADABLE }));
      assert.equal((await call('GET', `${NS}/configmaps/delete-406`)).status, 200);
      assertNotAcceptable(await call('DELETE', `${NS}/configmaps`, { headers: UNREADABLE }));
      assert.equal((await call('GET', `${NS}/configmaps/delete-406`)).status, 200);
    });

    it('a TokenRequest with an unacceptable Accept is refused with 406 too', async () => {
      await call('POST', `${NS}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'accept-406' } } });
      assertNotAcceptable(await call('POST', `${NS}/serviceaccounts/accept-406/token`, { body: { kind: 'TokenRequest', spec: {} }, headers: UNREADABLE }));
    });

    it('an acceptable YAML Accept still gets a YAML answer on a write', async () => {
      const r = await call('POST', `${NS}/configmaps`, { body: cm('yaml-answer', { a: '1' }), headers: { accept: 'application/yaml' } });
      assert.equal(r.status, 201, r.text);
      assert.match(String(r.headers['content-type']), /^application\/yaml/);
      assert.match(r.text, /name: yaml-answer/);
    });
  });

  describe('TokenRequest with null fields (spec 5.4, reference behaviour)', () => {
    it('expirationSeconds: null and audiences: null default as if absent (3600 s, the API audiences)', async () => {
      await call('POST', `${NS}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nulls' } } });
      const body = { apiVersion: `${AUTHENTICATION_GROUP}/v1`, kind: 'TokenRequest', spec: { audiences: null, expirationSeconds: null, boundObjectRef: null } };
      const r = await call('POST', `${NS}/serviceaccounts/nulls/token`, { body });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.apiVersion, `${AUTHENTICATION_GROUP}/v1`);
      assert.equal(r.json.spec.expirationSeconds, 3600);
      assert.ok(Array.isArray(r.json.spec.audiences) && r.json.spec.audiences.length > 0, 'the API audiences');
      const lifetime = Date.parse(r.json.status.expirationTimestamp) - Date.now();
      assert.ok(lifetime > 3500_000 && lifetime <= 3600_000, `expires in about an hour (${lifetime} ms)`);
    });

    it('a request in the reference spelling of the group is answered in it (what real kubectl decodes)', async () => {
      const body = { apiVersion: `${REFERENCE_AUTHENTICATION_GROUP_ALIAS}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: null } };
      const r = await call('POST', `${NS}/serviceaccounts/nulls/token`, { body });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.apiVersion, `${REFERENCE_AUTHENTICATION_GROUP_ALIAS}/v1`);
    });

    it('a non-integer expirationSeconds is still a 422 naming the field', async () => {
      const r = await call('POST', `${NS}/serviceaccounts/nulls/token`, { body: { kind: 'TokenRequest', spec: { expirationSeconds: '3600' } } });
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.details.causes[0].field, 'spec.expirationSeconds');
    });

    it('real kubectl: `kubectl create token default -n default` prints a token', async () => {
      // No controller creates the `default` service account yet: make sure it exists.
      const sa = await call('POST', `${NS}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
      assert.ok(sa.status === 201 || sa.status === 409, sa.text);
      const token = (await kubectl(server.kubeconfigPath!)(['create', 'token', 'default', '-n', 'default'])).trim();
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
      const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8'));
      assert.equal(claims.sub, 'system:serviceaccount:default:default');
      assert.equal(claims.exp - claims.iat, 3600);
    });
  });

  describe('write options are 422 Invalid as in the reference (spec 4.2, 4.3)', () => {
    it('force=true on a merge patch: 422 "force: Forbidden: may not be specified for non-apply patch", nothing changed', async () => {
      const made = await call('POST', `${NS}/configmaps`, { body: cm('force-422', { a: '1' }) });
      const r = await call('PATCH', `${NS}/configmaps/force-422?force=true`, { raw: '{"data":{"a":"2"}}', headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.reason, 'Invalid');
      assert.equal(r.json.message, `PatchOptions.${META_GROUP} "" is invalid: force: Forbidden: may not be specified for non-apply patch`);
      assert.deepEqual(r.json.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' }]);
      const now = await call('GET', `${NS}/configmaps/force-422`);
      assert.equal(now.json.metadata.resourceVersion, made.json.metadata.resourceVersion);
    });

    it('apply without fieldManager: 422 "fieldManager: Required value: is required for apply patch", nothing created', async () => {
      const r = await call('PATCH', `${NS}/configmaps/apply-422`, { raw: JSON.stringify(cm('apply-422', { a: '1' })), headers: { 'content-type': 'application/apply-patch+yaml' } });
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.message, `PatchOptions.${META_GROUP} "" is invalid: fieldManager: Required value: is required for apply patch`);
      assert.equal(r.json.details.causes[0].reason, 'FieldValueRequired');
      assert.equal((await call('GET', `${NS}/configmaps/apply-422`)).status, 404);
    });

    it('a fieldManager over 128 bytes on a create: 422 naming CreateOptions', async () => {
      const r = await call('POST', `${NS}/configmaps?fieldManager=${'m'.repeat(129)}`, { body: cm('long-manager', {}) });
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.message, `CreateOptions.${META_GROUP} "" is invalid: fieldManager: Too long: may not be more than 128 bytes`);
      assert.equal((await call('GET', `${NS}/configmaps/long-manager`)).status, 404);
    });
  });
});
