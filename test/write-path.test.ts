import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const pod = (name: string, containers: object[], extra: object = {}) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...extra }, spec: { containers } });
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

describe('write path over HTTPS (spec 2.4, 4.2, 4.3, 7)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('strategic merge patch merges containers by name and honours $patch: delete (spec 4.3)', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', { body: pod('smp', [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]) });
    const r = await call('PATCH', '/api/v1/namespaces/default/pods/smp', {
      raw: JSON.stringify({ spec: { containers: [{ name: 'a', image: 'a:2' }, { name: 'b', $patch: 'delete' }] } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(r.status, 422, 'removing a container is a forbidden pod update');
    const ok = await call('PATCH', '/api/v1/namespaces/default/pods/smp', {
      raw: JSON.stringify({ spec: { containers: [{ name: 'b', image: 'b:2' }] } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.spec.containers.map((c: any) => `${c.name}=${c.image}`), ['a=a:1', 'b=b:2']);
    const bad = await call('PATCH', '/api/v1/namespaces/default/pods/smp', {
      raw: JSON.stringify({ spec: { containers: [{ name: 'a', $patch: 'bogus' }] } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(bad.status, 400, bad.text);
  });

  it('server-side apply creates, is idempotent, tracks owners, conflicts, and force takes ownership (spec 2.4)', async () => {
    const path = '/api/v1/namespaces/default/configmaps/ssa';
    const cfg = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa' }, data: { a: '1', b: '2' } };
    const noManager = await call('PATCH', path, { raw: JSON.stringify(cfg), headers: APPLY });
    assert.equal(noManager.status, 422, 'fieldManager is required (422 Invalid, as the reference)');
    const created = await call('PATCH', `${path}?fieldManager=alice`, { raw: JSON.stringify(cfg), headers: APPLY });
    assert.equal(created.status, 201, created.text);
    const mf = created.json.metadata.managedFields;
    assert.equal(mf.length, 1);
    assert.equal(mf[0].manager, 'alice');
    assert.equal(mf[0].operation, 'Apply');
    assert.equal(mf[0].fieldsType, 'FieldsV1');
    assert.deepEqual(mf[0].fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
    const again = await call('PATCH', `${path}?fieldManager=alice`, { raw: JSON.stringify(cfg), headers: APPLY });
    assert.equal(again.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 're-applying the same configuration changes nothing');
    const shared = await call('PATCH', `${path}?fieldManager=bob`, { raw: JSON.stringify({ ...cfg, data: { a: '1' } }), headers: APPLY });
    assert.equal(shared.status, 200, 'the same value is shared ownership, not a conflict');
    const conflicted = await call('PATCH', `${path}?fieldManager=bob`, { raw: JSON.stringify({ ...cfg, data: { a: 'X', b: 'Y' } }), headers: APPLY });
    assert.equal(conflicted.status, 409, conflicted.text);
    assert.equal(conflicted.json.reason, 'Conflict');
    assert.deepEqual(conflicted.json.details.causes.map((c: any) => c.field).sort(), ['.data.a', '.data.b']);
    assert.match(conflicted.json.message, /conflict with "alice"/);
    const forced = await call('PATCH', `${path}?fieldManager=bob&force=true`, { raw: JSON.stringify({ ...cfg, data: { a: 'X', b: 'Y' } }), headers: APPLY });
    assert.equal(forced.status, 200, forced.text);
    assert.deepEqual(forced.json.data, { a: 'X', b: 'Y' });
    const managers = forced.json.metadata.managedFields.map((e: any) => e.manager);
    assert.deepEqual(managers, ['bob'], 'alice lost every field');
    const dropped = await call('PATCH', `${path}?fieldManager=bob`, { raw: JSON.stringify({ ...cfg, data: { a: 'X' } }), headers: APPLY });
    assert.deepEqual(dropped.json.data, { a: 'X' }, 'a field the applier no longer applies and nobody else owns is removed');
    const withManaged = await call('PATCH', `${path}?fieldManager=bob`, { raw: JSON.stringify({ ...cfg, metadata: { name: 'ssa', managedFields: [{ manager: 'x' }] } }), headers: APPLY });
    assert.equal(withManaged.status, 400);
  });

  it('non-apply writes record Update entries for their manager, inferred from the User-Agent; [{}] resets (spec 2.4, 4.3)', async () => {
    const path = '/api/v1/namespaces/default/configmaps/upd';
    const c = await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'upd' }, data: { a: '1' } }, headers: { 'user-agent': 'my-tool/1.2 (linux)' } });
    assert.deepEqual(c.json.metadata.managedFields.map((e: any) => `${e.manager}:${e.operation}`), ['my-tool:Update']);
    const p = await call('PATCH', `${path}?fieldManager=patcher`, { raw: '{"data":{"b":"2"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.deepEqual(p.json.metadata.managedFields.map((e: any) => e.manager).sort(), ['my-tool', 'patcher']);
    const reset = await call('PATCH', `${path}?fieldManager=resetter`, { raw: '{"metadata":{"managedFields":[{}]},"data":{"c":"3"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.deepEqual(reset.json.metadata.managedFields.map((e: any) => e.manager), ['resetter'], 'reset first, then the writer owns what it changed');
  });

  it('dryRun=All runs every stage and stores nothing; other values are 400 (spec 4.2)', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: '1' } };
    const dry = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body });
    assert.equal(dry.status, 201, dry.text);
    assert.ok(dry.json.metadata.uid);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/dry')).status, 404);
    const invalid = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: { ...body, metadata: { name: 'BAD!' } } });
    assert.equal(invalid.status, 422, 'validation still runs');
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=Yes', { body })).status, 400);
    await call('POST', '/api/v1/namespaces/default/configmaps', { body });
    const dryPatch = await call('PATCH', '/api/v1/namespaces/default/configmaps/dry?dryRun=All', { raw: '{"data":{"a":"2"}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(dryPatch.json.data.a, '2');
    const dryDelete = await call('DELETE', '/api/v1/namespaces/default/configmaps/dry?dryRun=All');
    assert.equal(dryDelete.status, 200);
    const still = await call('GET', '/api/v1/namespaces/default/configmaps/dry');
    assert.equal(still.json.data.a, '1', 'neither the patch nor the delete was stored');
  });

  it('fieldValidation: Strict lists all unknown and duplicate fields, Warn warns per field, Ignore drops (spec 4.2, 7)', async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fv","name":"fv"},"data":{"a":"1"},"bogus":1,"spec":{"x":1}}';
    const strict = await call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(strict.status, 400, strict.text);
    for (const f of ['bogus', 'spec', 'metadata.name']) assert.match(strict.json.message, new RegExp(`"${f.replace('.', '\\.')}"`));
    const warn = await call('POST', '/api/v1/namespaces/default/configmaps', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(warn.status, 201, warn.text);
    const warnings = String(warn.headers.warning).split(/,(?=\s*299)/);
    assert.equal(warnings.length, 3, String(warn.headers.warning));
    assert.equal(warn.json.bogus, undefined, 'unknown fields are dropped');
    const ignore = await call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore', { raw: raw.replace('"fv","name":"fv"', '"fv2"'), headers: { 'content-type': 'application/json' } });
    assert.equal(ignore.status, 201);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Loose', { raw })).status, 400);
  });

  it('tables: per-type columns, the default Name/Created At table, includeObject (spec 2.6)', async () => {
    const accept = { accept: 'application/json;as=Table;g=meta.orch.io;v=v1, application/json' };
    const pods = await call('GET', '/api/v1/namespaces/default/pods', { headers: accept });
    assert.equal(pods.json.kind, 'Table');
    assert.equal(pods.json.apiVersion, 'meta.orch.io/v1');
    assert.deepEqual(pods.json.columnDefinitions.filter((c: any) => c.priority === 0).map((c: any) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    assert.equal(pods.json.rows[0].object.kind, 'PartialObjectMetadata');
    const leases = await call('GET', '/apis/rbac.authorization.orch.io/v1/clusterroles?includeObject=None', { headers: accept });
    assert.deepEqual(leases.json.columnDefinitions.map((c: any) => `${c.name}:${c.type}`), ['Name:string', 'Created At:date']);
    assert.equal(leases.json.rows[0].object, undefined);
    const one = await call('GET', '/api/v1/namespaces/default?includeObject=Object', { headers: accept });
    assert.equal(one.json.rows[0].object.kind, 'Namespace');
    const { watchEvents } = await import('./helpers/client.js');
    const w = watchEvents(server, '/api/v1/namespaces/default/pods?watch=1', 1);
    const [first] = await (async () => {
      // watchEvents sends no Accept header; ask for tables through a raw request instead.
      const { request } = await import('node:https');
      return new Promise<any[]>((resolve, reject) => {
        const req = request(new URL('/api/v1/namespaces/default/pods?watch=1', server.url), { headers: { authorization: `Bearer ${server.adminToken}`, accept: accept.accept }, ca: server.caCertPem }, (res) => {
          let buf = '';
          res.on('data', (c) => {
            buf += c;
            const i = buf.indexOf('\n');
            if (i >= 0) {
              req.destroy();
              resolve([JSON.parse(buf.slice(0, i))]);
            }
          });
        });
        req.on('error', reject);
        req.end();
      });
    })();
    await w;
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.kind, 'Table', 'watch events carry one-row tables');
    assert.equal(first.object.rows.length, 1);
    assert.ok(first.object.columnDefinitions.length > 0);
    const fallback = await call('GET', '/api/v1/namespaces/default', { headers: { accept: 'application/json;as=Table;g=nope.example;v=v1, application/json' } });
    assert.equal(fallback.json.kind, 'Namespace', 'an unsupported alternative falls back to the next entry');
  });
});

describe('real kubectl on the write path (spec 4.3)', () => {
  let server: RunningServer;
  let dir: string;
  let k: ReturnType<typeof kubectl>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-kubectl-write-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'memory' }, writeKubeconfig: true });
    k = kubectl(server.kubeconfigPath!);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl apply twice (the second is a strategic merge patch), apply --server-side with a conflict and --force-conflicts', async () => {
    const file = join(dir, 'web.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.25\n');
    assert.match(await k(['apply', '-f', file]), /pod\/web created/);
    writeFileSync(file, 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web, tier: front}\nspec:\n  containers:\n  - name: nginx\n    image: nginx:1.26\n');
    assert.match(await k(['apply', '-f', file]), /pod\/web configured/);
    const live = JSON.parse(await k(['get', 'pod', 'web', '-o', 'json']));
    assert.equal(live.spec.containers[0].image, 'nginx:1.26');
    assert.equal(live.metadata.labels.tier, 'front');
    const cm = join(dir, 'cm.yaml');
    writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ss\ndata:\n  k: one\n');
    assert.match(await k(['apply', '--server-side', '-f', cm]), /serverside-applied/);
    writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ss\ndata:\n  k: two\n');
    await assert.rejects(k(['apply', '--server-side', '--field-manager=other', '-f', cm]), /conflict/i);
    assert.match(await k(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', cm]), /serverside-applied/);
    assert.equal(JSON.parse(await k(['get', 'configmap', 'ss', '-o', 'json'])).data.k, 'two');
  });

  it('kubectl patch with all three types, create --dry-run=server, create --validate=strict, server-side table columns', async () => {
    await k(['create', 'configmap', 'p', '--from-literal=a=1']);
    await k(['patch', 'configmap', 'p', '--type=strategic', '-p', '{"data":{"b":"2"}}']);
    await k(['patch', 'configmap', 'p', '--type=merge', '-p', '{"data":{"c":"3"}}']);
    await k(['patch', 'configmap', 'p', '--type=json', '-p', '[{"op":"remove","path":"/data/a"}]']);
    assert.deepEqual(JSON.parse(await k(['get', 'configmap', 'p', '-o', 'json'])).data, { b: '2', c: '3' });
    const dry = parse(await k(['create', 'configmap', 'dry', '--from-literal=x=y', '--dry-run=server', '-o', 'yaml']));
    assert.equal(dry.data.x, 'y');
    await assert.rejects(k(['get', 'configmap', 'dry']), /not found/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: strict\ndata:\n  a: "1"\nunknownField: yes\n');
    await assert.rejects(k(['create', '--validate=strict', '-f', bad]), /unknownField/);
    const table = await k(['get', 'pods']);
    assert.match(table.split('\n')[0]!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
  });
});
