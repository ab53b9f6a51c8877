/**
 * Spec 1.3, 2.3, 2.5, 2.6, 4.1, 4.3, 4.4: every stored built-in kind answers create, get, list, update, the
 * four patch types, watch, table and protobuf, and delete the same way. The kinds come from the served types
 * and their objects from the fixtures (test/helpers/fixtures.ts), so a new kind is covered without new code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { META_GROUP, PROTOBUF_MEDIA_TYPE } from '../src/api/naming.js';
import { decodeProtobuf, descriptorFor } from '../src/encoding/protobuf/index.js';
import { startServer, type RunningServer } from '../src/index.js';
import { builtinTypes } from '../src/registry/resources/index.js';
import type { ResourceType } from '../src/registry/types.js';
import { client, watchEvents } from './helpers/client.js';
import { fixtureFor } from './helpers/fixtures.js';
import { request as httpsRequest } from 'node:https';

/** Kinds whose objects are not plain stored objects: computed on read, or with a lifecycle of their own. */
const SKIP = new Set(['/ComponentStatus', '/Namespace']);

const TABLE = `application/json;as=Table;v=v1;g=${META_GROUP}`;

function collection(t: ResourceType, ns = 'default'): string {
  const base = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  return `${base}${t.namespaced ? `/namespaces/${ns}` : ''}/${t.plural}`;
}

describe('every built-in kind through the API (spec 4.1, 4.3, 4.4)', () => {
  let server: RunningServer;
  let call: ReturnType<typeof client>;
  before(async () => {
    server = await startServer({ port: 0, storage: { type: 'memory' } });
    call = client(server);
  });
  after(() => server.close());

  const getRaw = (path: string, accept: string): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(new URL(path, server.url), { headers: { authorization: `Bearer ${server.adminToken}`, accept }, ca: server.caCertPem, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
      });
      req.on('error', reject);
      req.end();
    });

  for (const t of builtinTypes()) {
    if (SKIP.has(`${t.group}/${t.kind}`)) continue;
    it(`${t.group || 'core'}/${t.version} ${t.kind}: create, get, list, update, patch x4, watch, table, protobuf, delete`, async () => {
      const fixture = fixtureFor(t, `fx-${t.plural.slice(0, 20)}`);
      const name = String(fixture.metadata?.name);
      const coll = collection(t);
      const item = `${coll}/${name}`;
      const created = await call('POST', coll, { body: fixture });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.kind, t.kind);

      const got = await call('GET', item);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.metadata.name, name);
      const listed = await call('GET', coll);
      assert.equal(listed.json.kind, t.listKind);
      assert.ok(listed.json.items.some((o: { metadata: { name: string } }) => o.metadata.name === name));

      const watching = watchEvents(server, `${item.slice(0, item.lastIndexOf('/'))}?watch=1&fieldSelector=metadata.name%3D${name}&resourceVersion=${got.json.metadata.resourceVersion}`, 1);
      const updated = await call('PUT', item, { body: { ...got.json, metadata: { ...got.json.metadata, labels: { ...got.json.metadata.labels, put: 'yes' } } } });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.metadata.labels.put, 'yes');
      const [event] = await watching;
      assert.equal(event.type, 'MODIFIED');
      assert.equal(event.object.metadata.labels.put, 'yes');

      const patches: [string, unknown, string][] = [
        ['application/merge-patch+json', { metadata: { labels: { merge: 'yes' } } }, 'merge'],
        ['application/json-patch+json', [{ op: 'add', path: '/metadata/labels/json', value: 'yes' }], 'json'],
        ['application/strategic-merge-patch+json', { metadata: { labels: { strategic: 'yes' } } }, 'strategic'],
        ['application/apply-patch+yaml', { apiVersion: created.json.apiVersion, kind: t.kind, metadata: { name, labels: { apply: 'yes' } } }, 'apply'],
      ];
      for (const [type, body, label] of patches) {
        const p = await call('PATCH', `${item}${label === 'apply' ? '?fieldManager=fixtures' : ''}`, { raw: JSON.stringify(body), headers: { 'content-type': type } });
        assert.equal(p.status, 200, `${type}: ${p.text}`);
        assert.equal(p.json.metadata.labels[label], 'yes', type);
      }

      const table = await call('GET', coll, { headers: { accept: TABLE } });
      assert.equal(table.json.kind, 'Table', table.text);
      assert.equal(table.json.columnDefinitions[0].name, 'Name');
      assert.ok(table.json.rows.some((r: { cells: unknown[] }) => r.cells[0] === name));

      if (descriptorFor(created.json.apiVersion, t.kind)) {
        const json = (await call('GET', item)).json;
        const decoded = decodeProtobuf(await getRaw(item, PROTOBUF_MEDIA_TYPE));
        assert.deepEqual(decoded, json);
      }

      const deleted = await call('DELETE', item);
      assert.ok(deleted.status === 200 || deleted.status === 202, deleted.text);
      // 202: finalizers keep the object (a CRD's cleanup finalizer): it answers terminating, and its
      // controller may remove it at any moment, so a read after it finds it terminating or gone.
      const after = await call('GET', item);
      if (deleted.status === 200) assert.equal(after.status, 404);
      else assert.ok(deleted.json.metadata.deletionTimestamp && (after.status === 404 || after.json.metadata.deletionTimestamp), `${deleted.text} / ${after.text}`);
    });
  }
});
