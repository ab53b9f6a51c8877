/** A list across namespaces narrowed to one name by a field selector (what controllers' informers ask). */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_NAMESPACE } from '../src/api/naming.js';
import { startServer, type RunningServer } from '../src/index.js';
import { client } from './helpers/client.js';

describe('fieldSelector=metadata.name across namespaces', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ storage: { type: 'memory' }, controllers: [] });
    call = client(server);
  });
  after(() => server.close());

  it('spec 4.2: a list of every namespace with a metadata.name selector answers the matching objects, not 404', async () => {
    for (const ns of ['default', SYSTEM_NAMESPACE]) {
      const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same' } } });
      assert.equal(r.status, 201, r.text);
    }
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } } });
    const list = await call('GET', '/api/v1/configmaps?fieldSelector=metadata.name%3Dsame');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`).sort(), ['default/same', `${SYSTEM_NAMESPACE}/same`]);
  });

  it('spec 4.1: a GET of a namespaced name without a namespace in the path is still 404', async () => {
    const r = await call('GET', '/api/v1/configmaps/same');
    assert.equal(r.status, 404, r.text);
  });
});
