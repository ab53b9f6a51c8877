import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { APIEXTENSIONS_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { widgetCRD } from '../src/registry/resources/apiextensions/fixtures.js';
import { client } from './helpers/client.js';
import { kubectl } from './helpers/kubectl.js';

const CRDS = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('CustomResourceDefinition objects over HTTP (spec 1.5, 2.6, 9.6)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') }, writeKubeconfig: true });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 9.6: a controller-gen style CRD is created (201) with the reference defaults and initial status', async () => {
    const r = await call('POST', CRDS, { body: widgetCRD() });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.generation, 1);
    assert.deepEqual(r.json.spec.conversion, { strategy: 'None' });
    assert.deepEqual(r.json.status.storedVersions, ['v1']);
    assert.deepEqual(r.json.status.acceptedNames, { plural: '', kind: '' });
    assert.deepEqual(r.json.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas, { type: 'integer', format: 'int32', default: 1, minimum: 0 });
    const got = await call('GET', `${CRDS}/widgets.example.com`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json.spec, r.json.spec);
    const list = await call('GET', `${CRDS}?fieldSelector=metadata.name%3Dwidgets.example.com`);
    assert.equal(list.status, 200);
    assert.equal(list.json.kind, 'CustomResourceDefinitionList');
    assert.deepEqual(list.json.items.map((i: Any) => i.metadata.name), ['widgets.example.com']);
  });

  it('spec 9.6: bad CRDs are 422 with a cause for every offending field', async () => {
    const bad = widgetCRD() as Any;
    bad.metadata.name = 'bad.example.com';
    bad.spec.scope = 'Everywhere';
    bad.spec.versions[0].storage = false;
    bad.spec.versions[0].additionalPrinterColumns[0].type = 'text';
    bad.spec.versions[0].subresources.scale.specReplicasPath = 'spec.replicas';
    bad.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size = { type: 'strin' };
    delete bad.spec.versions[0].selectableFields;
    const r = await call('POST', CRDS, { body: bad });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    const fields: string[] = r.json.details.causes.map((c: Any) => c.field);
    for (const f of [
      'metadata.name',
      'spec.scope',
      'spec.versions',
      'spec.versions[0].additionalPrinterColumns[0].type',
      'spec.versions[0].subresources.scale.specReplicasPath',
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type',
    ]) {
      assert.ok(fields.includes(f), `${f} in ${fields.join(', ')}`);
    }
    const noSchema = widgetCRD() as Any;
    noSchema.metadata.name = 'gadgets.example.com';
    noSchema.spec.names = { kind: 'Gadget', plural: 'gadgets' };
    delete noSchema.spec.versions[0].schema;
    delete noSchema.spec.versions[0].selectableFields;
    const r2 = await call('POST', CRDS, { body: noSchema });
    assert.equal(r2.status, 422);
    assert.deepEqual(r2.json.details.causes.map((c: Any) => c.field), ['spec.versions[0].schema.openAPIV3Schema']);
  });

  it('spec 9.6: updates keep status, record a new storage version and refuse to drop a stored one', async () => {
    const cur = (await call('GET', `${CRDS}/widgets.example.com`)).json;
    const v2 = { ...structuredClone(cur.spec.versions[0]), name: 'v2', storage: true };
    cur.spec.versions[0].storage = false;
    cur.spec.versions.push(v2);
    cur.status = { storedVersions: [] };
    // Unconditional writes: a status controller may write the CRD between these reads and writes.
    delete cur.metadata.resourceVersion;
    const r = await call('PUT', `${CRDS}/widgets.example.com`, { body: cur });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.status.storedVersions, ['v1', 'v2']);
    assert.equal(r.json.metadata.generation, 2);
    const drop = structuredClone(r.json);
    delete drop.metadata.resourceVersion;
    drop.spec.versions.shift();
    const refused = await call('PUT', `${CRDS}/widgets.example.com`, { body: drop });
    assert.equal(refused.status, 422);
    assert.equal(refused.json.details.causes[0].field, 'status.storedVersions[0]');
    const regroup = structuredClone(r.json);
    delete regroup.metadata.resourceVersion;
    regroup.spec.group = 'other.example.com';
    const immutable = await call('PUT', `${CRDS}/widgets.example.com`, { body: regroup });
    assert.equal(immutable.status, 422);
    assert.ok(immutable.json.details.causes.some((c: Any) => c.field === 'spec.group'));
  });

  it('reference behaviour: the status subresource changes only status, the main resource only spec', async () => {
    const cur = (await call('GET', `${CRDS}/widgets.example.com`)).json;
    const patch = { status: { acceptedNames: { plural: 'widgets', kind: 'Widget' }, conditions: [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: '2024-01-01T00:00:00Z' }] }, spec: { scope: 'Cluster' } };
    const r = await call('PATCH', `${CRDS}/widgets.example.com/status`, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.spec.scope, 'Namespaced');
    assert.equal(r.json.status.acceptedNames.kind, 'Widget');
    assert.equal(r.json.metadata.generation, cur.metadata.generation);
    const main = await call('PATCH', `${CRDS}/widgets.example.com`, { body: { status: { conditions: [] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(main.status, 200);
    assert.ok(main.json.status.conditions.some((c: Any) => c.type === 'Established' && c.status === 'True'), 'the main resource keeps the stored status');
    const rescope = await call('PATCH', `${CRDS}/widgets.example.com`, { body: { spec: { scope: 'Cluster' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(rescope.status, 422, 'scope is immutable once established');
  });

  it('spec 2.6: real kubectl lists CRDs by short name with NAME and CREATED AT', async () => {
    const k = kubectl(server.kubeconfigPath!);
    const out = await k(['get', 'crds']);
    const [header, row] = out.trim().split('\n');
    assert.match(header ?? '', /^NAME\s+CREATED AT$/);
    assert.match(row ?? '', /^widgets\.example\.com\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.equal((await k(['get', 'crd', 'widgets.example.com', '-o', 'jsonpath={.spec.names.kind}'])).trim(), 'Widget');
  });
});
