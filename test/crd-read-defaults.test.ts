import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { APIEXTENSIONS_GROUP } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';
import { waitFor } from './helpers/crd.js';

const CRDS = `/apis/${APIEXTENSIONS_GROUP}/v1/customresourcedefinitions`;
const BASE = '/apis/read.example.com/v1/namespaces/default/gizmos';

function gizmoCrd(sizeDefault?: number) {
  return {
    apiVersion: `${APIEXTENSIONS_GROUP}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.read.example.com' },
    spec: {
      group: 'read.example.com',
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { color: { type: 'string', default: 'red' }, size: { type: 'integer', ...(sizeDefault === undefined ? {} : { default: sizeDefault }) } } },
              },
            },
          },
        },
      ],
    },
  };
}

const gizmo = (name: string) => ({ apiVersion: 'read.example.com/v1', kind: 'Gizmo', metadata: { name }, spec: {} });

describe('custom resources read after their schema changes (spec 2.6)', () => {
  let dir: string;
  let server: RunningServer;
  let call: ReturnType<typeof client>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orch-crd-read-'));
    server = await startServer({ port: 0, dataDir: dir, storage: { type: 'sqlite', path: join(dir, 'orch.db') } });
    call = client(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spec 2.6: an object written before a default was added gets it on GET and LIST; one written after is served as stored', async () => {
    assert.equal((await call('POST', CRDS, { body: gizmoCrd() })).status, 201);
    await waitFor('CRD served', async () => (await call('GET', BASE)).status === 200);
    const old = await call('POST', BASE, { body: gizmo('old') });
    assert.equal(old.status, 201, old.text);
    assert.deepEqual(old.json.spec, { color: 'red' });
    // Read once under the old schema, so a remembered answer for its stored bytes exists.
    assert.deepEqual((await call('GET', `${BASE}/old`)).json.spec, { color: 'red' });

    const crd = (await call('GET', `${CRDS}/gizmos.read.example.com`)).json;
    const changed = gizmoCrd(3);
    const put = await call('PUT', `${CRDS}/gizmos.read.example.com`, { body: { ...changed, metadata: crd.metadata } });
    assert.equal(put.status, 200, put.text);
    let fresh: Awaited<ReturnType<typeof call>> | undefined;
    let n = 0;
    await waitFor('the new default applies to writes', async () => {
      fresh = await call('POST', BASE, { body: gizmo(`new-${n++}`) });
      assert.equal(fresh.status, 201, fresh.text);
      return fresh.json.spec.size === 3;
    });

    const got = await call('GET', `${BASE}/old`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json.spec, { color: 'red', size: 3 });
    assert.equal(got.json.metadata.resourceVersion, old.json.metadata.resourceVersion);
    const list = await call('GET', BASE);
    const listed = list.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'old');
    assert.deepEqual(listed.spec, { color: 'red', size: 3 });

    const name = fresh!.json.metadata.name as string;
    const again = await call('GET', `${BASE}/${name}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, fresh!.json);
    // The stored bytes themselves, with the resourceVersion put first (what the decoding path never writes).
    assert.ok(again.text.startsWith(`{"metadata":{"resourceVersion":"${fresh!.json.metadata.resourceVersion}",`), again.text.slice(0, 80));
  });
});
