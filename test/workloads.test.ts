import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { META_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

const BASE = '/apis/apps/v1/namespaces/default/deployments';
const TABLE = { accept: `application/json;as=Table;v=v1;g=${META_GROUP}` };
const deployment = (name: string, containers: object[] = [{ name: 'web', image: 'nginx:1.27' }]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
});

describe('workload types over HTTPS (reference behaviour)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  it('reference behaviour: a minimal deployment is stored with the apps/v1 defaults', async () => {
    const r = await call('POST', BASE, { body: deployment('web') });
    assert.equal(r.status, 201, r.text);
    const got = await call('GET', `${BASE}/web`);
    assert.equal(got.status, 200);
    const spec = got.json.spec;
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.progressDeadlineSeconds, 600);
    assert.equal(spec.template.spec.restartPolicy, 'Always');
    assert.equal(spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    assert.equal(got.json.metadata.generation, 1);
  });

  it('reference behaviour: changing the selector is 422 field is immutable and changes nothing', async () => {
    const cur = (await call('GET', `${BASE}/web`)).json;
    const changed = structuredClone(cur);
    changed.spec.selector = { matchLabels: { app: 'web', tier: 'fe' } };
    changed.spec.template.metadata.labels = { app: 'web', tier: 'fe' };
    const r = await call('PUT', `${BASE}/web`, { body: changed });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json.reason, 'Invalid');
    assert.ok(r.json.details.causes.some((c: { field: string; message: string }) => c.field === 'spec.selector' && c.message.includes('field is immutable')), r.text);
    const after = (await call('GET', `${BASE}/web`)).json;
    assert.equal(after.metadata.resourceVersion, cur.metadata.resourceVersion);
  });

  it('reference behaviour: a template change bumps the generation', async () => {
    const r = await call('PATCH', `${BASE}/web`, {
      raw: JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } }),
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.metadata.generation, 2);
  });

  it('reference behaviour: a container without image is 422 naming spec.template.spec.containers[0].image', async () => {
    const r = await call('POST', BASE, { body: deployment('noimage', [{ name: 'web' }]) });
    assert.equal(r.status, 422, r.text);
    assert.ok(r.json.details.causes.some((c: { field: string }) => c.field === 'spec.template.spec.containers[0].image'), r.text);
    assert.equal((await call('GET', `${BASE}/noimage`)).status, 404);
  });

  it('reference behaviour: a selector that does not match the template labels is 422', async () => {
    const body = deployment('mismatch');
    body.spec.selector = { matchLabels: { app: 'other' } };
    const r = await call('POST', BASE, { body });
    assert.equal(r.status, 422, r.text);
    assert.match(r.json.message, /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/);
  });

  it('reference behaviour: the Table form has the deployment columns', async () => {
    const r = await call('GET', BASE, { headers: TABLE });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.kind, 'Table');
    assert.deepEqual(
      r.json.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority]),
      [['Name', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]],
    );
    const row = r.json.rows.find((x: { cells: unknown[] }) => x.cells[0] === 'web');
    assert.ok(row, r.text);
    assert.deepEqual([row.cells[1], row.cells[2], row.cells[3], row.cells[5], row.cells[6], row.cells[7]], ['0/1', 0, 0, 'web', 'nginx:1.28', 'app=web']);
  });

  it('reference behaviour: the scale subresource reads and writes spec.replicas with the selector string', async () => {
    const scale = await call('GET', `${BASE}/web/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.json.kind, 'Scale');
    assert.equal(scale.json.spec.replicas, 1);
    assert.equal(scale.json.status.selector, 'app=web');
    const put = await call('PUT', `${BASE}/web/scale`, { body: { ...scale.json, spec: { replicas: 3 } } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await call('GET', `${BASE}/web`)).json.spec.replicas, 3);
  });

  it('reference behaviour: short names and categories appear in discovery', async () => {
    const r = await call('GET', '/apis/apps/v1');
    assert.equal(r.status, 200, r.text);
    const deploy = r.json.resources.find((x: { name: string }) => x.name === 'deployments');
    assert.deepEqual(deploy.shortNames, ['deploy']);
    assert.deepEqual(deploy.categories, ['all']);
  });
});
