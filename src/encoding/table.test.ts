import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { META_GROUP } from '../api/naming.js';
import type { ApiObject } from '../api/types.js';
import { configmaps } from '../registry/resources/configmaps/index.js';
import { namespaces } from '../registry/resources/namespaces/index.js';
import { pods } from '../registry/resources/pods/index.js';
import { services } from '../registry/resources/services/index.js';
import { negotiate } from './media-type.js';
import { humanDuration, renderTable, renderWatchEventTable, TABLE_ALTERNATIVES, tableForEvent, type Table } from './table.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const CREATED = '2024-05-01T11:55:30Z'; // 4m30s before NOW

const cm = (name: string, extra: ApiObject = {}): ApiObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: '7', creationTimestamp: CREATED, labels: { app: 'x' } },
  data: { a: '1', b: '2' },
  ...extra,
});
const names = (t: Table) => t.columnDefinitions.map((c) => c.name);
const defaultTableType = { ...configmaps, tableColumns: [] };

describe('spec 2.6: table shape', () => {
  it('spec 2.6: kind Table, apiVersion meta group v1, list metadata copied', () => {
    const t = renderTable(configmaps, [cm('a')], { now: NOW, listMeta: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 } });
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, `${META_GROUP}/v1`);
    assert.equal(t.apiVersion, 'meta.orch.io/v1');
    assert.deepEqual(t.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 });
    assert.equal(t.rows.length, 1);
  });

  it('spec 2.6: a type without custom columns gets exactly Name (string) and Created At (date)', () => {
    const t = renderTable(defaultTableType, [cm('a'), cm('b', { metadata: { name: 'b' } })], { now: NOW });
    assert.deepEqual(
      t.columnDefinitions.map(({ name, type, format, priority }) => ({ name, type, format, priority })),
      [
        { name: 'Name', type: 'string', format: 'name', priority: 0 },
        { name: 'Created At', type: 'date', format: '', priority: 0 },
      ],
    );
    assert.deepEqual(t.rows[0]?.cells, ['a', CREATED]);
    assert.deepEqual(t.rows[1]?.cells, ['b', null], 'a missing timestamp is null, as the reference encodes a zero time');
    for (const c of t.columnDefinitions) assert.ok(c.description.length > 0, `${c.name} has a description`);
  });

  const cases: { title: string; type: typeof pods; want: string[] }[] = [
    { title: 'configmaps', type: configmaps, want: ['Name', 'Data', 'Age'] },
    { title: 'namespaces', type: namespaces, want: ['Name', 'Status', 'Age'] },
    { title: 'pods (Age before the wide columns, as kubectl shows it)', type: pods, want: ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'] },
    { title: 'services', type: services, want: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'] },
  ];
  for (const c of cases) {
    it(`spec 2.6: column order of ${c.title}`, () => {
      const t = renderTable(c.type, [], { now: NOW });
      assert.deepEqual(names(t), c.want);
      const age = t.columnDefinitions.find((d) => d.name === 'Age');
      assert.deepEqual({ type: age?.type, priority: age?.priority }, { type: 'string', priority: 0 });
      assert.deepEqual(t.rows, []);
    });
  }

  it('spec 2.6: custom column cells come from the type, Age is the human duration', () => {
    const t = renderTable(configmaps, [cm('a'), cm('b', { metadata: { name: 'b' } })], { now: NOW });
    assert.deepEqual(t.rows[0]?.cells, ['a', 2, '4m30s']);
    assert.deepEqual(t.rows[1]?.cells, ['b', 2, '<unknown>']);
  });

  it('spec 2.6: pod cells follow the pod printer', () => {
    const pod: ApiObject = {
      metadata: { name: 'web', creationTimestamp: '2024-05-01T09:00:00Z' },
      spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'n1' },
      status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ name: 'app', ready: true, restartCount: 2, state: { running: {} } }] },
    };
    const t = renderTable(pods, [pod], { now: NOW });
    assert.deepEqual(t.rows[0]?.cells, ['web', '1/1', 'Running', 2, '3h', '10.0.0.5', 'n1', '<none>', '<none>']);
  });

  it('spec 2.6: null and date cells of custom columns are passed as given', () => {
    const type = {
      tableColumns: [
        { name: 'Seen', type: 'date', description: 'd', priority: 0, value: () => CREATED },
        { name: 'Maybe', type: 'string', description: 'd', priority: 0, value: () => null },
      ],
    };
    const t = renderTable(type, [cm('a')], { now: NOW });
    assert.deepEqual(t.rows[0]?.cells, ['a', CREATED, null, '4m30s']);
  });
});

describe('spec 2.6: includeObject', () => {
  it('spec 2.6: default Metadata gives PartialObjectMetadata with the whole metadata', () => {
    const t = renderTable(configmaps, [cm('a')], { now: NOW });
    assert.deepEqual(t.rows[0]?.object, { apiVersion: 'meta.orch.io/v1', kind: 'PartialObjectMetadata', metadata: cm('a').metadata });
  });
  it('spec 2.6: Object gives the full object, None omits the field', () => {
    assert.deepEqual(renderTable(configmaps, [cm('a')], { includeObject: 'Object', now: NOW }).rows[0]?.object, cm('a'));
    const row = renderTable(configmaps, [cm('a')], { includeObject: 'None', now: NOW }).rows[0];
    assert.ok(row && !('object' in row));
  });
  it('spec 4.4: the v1beta1 form names v1beta1 in the table and its rows', () => {
    const t = renderTable(configmaps, [cm('a')], { version: 'v1beta1', now: NOW });
    assert.equal(t.apiVersion, 'meta.orch.io/v1beta1');
    assert.equal((t.rows[0]?.object as ApiObject).apiVersion, 'meta.orch.io/v1beta1');
  });
});

describe('spec 2.6: Age uses the reference HumanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const y = 365 * d;
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [-500, '0s'],
    [0, '0s'],
    [45 * s, '45s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [4 * m + 30 * s, '4m30s'],
    [5 * m, '5m'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [95 * m, '95m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 5 * m, '3h5m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [2 * d + 5 * h, '2d5h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [2 * y, '2y'],
    [2 * y + 10 * d, '2y10d'],
    [7 * y + 364 * d, '7y364d'],
    [8 * y + 100 * d, '8y'],
    [20 * y, '20y'],
  ];
  for (const [ms, want] of cases) {
    it(`spec 2.6: ${ms} ms -> ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

describe('spec 2.6 / 4.4: watch events as tables', () => {
  it('spec 2.6: tableForEvent has one row, the object resourceVersion, columns only when first', () => {
    const first = tableForEvent(configmaps, cm('a'), true, { now: NOW });
    const later = tableForEvent(configmaps, cm('a'), false, { now: NOW });
    assert.deepEqual(names(first), ['Name', 'Data', 'Age']);
    assert.deepEqual(later.columnDefinitions, []);
    assert.equal(first.rows.length, 1);
    assert.deepEqual(first.metadata, { resourceVersion: '7' });
    assert.deepEqual(later.rows, first.rows);
  });

  it('spec 4.4: a stream sends column definitions once; bookmarks stay empty tables; errors pass', () => {
    const state = { columnsSent: false };
    const bookmark = renderWatchEventTable(configmaps, { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '9' } } }, state, { now: NOW });
    assert.equal(state.columnsSent, false);
    assert.deepEqual(bookmark.object, { apiVersion: 'meta.orch.io/v1', kind: 'Table', metadata: { resourceVersion: '9' }, columnDefinitions: [], rows: [] });
    const added = renderWatchEventTable(configmaps, { type: 'ADDED', object: cm('a') }, state, { now: NOW });
    const modified = renderWatchEventTable(configmaps, { type: 'MODIFIED', object: cm('a') }, state, { now: NOW });
    assert.equal(added.type, 'ADDED');
    assert.equal((added.object as Table).columnDefinitions.length, 3);
    assert.deepEqual((modified.object as Table).columnDefinitions, []);
    assert.deepEqual((modified.object as Table).rows[0]?.cells, ['a', 2, '4m30s']);
    const status = { kind: 'Status', apiVersion: 'v1', code: 410 } as ApiObject;
    assert.equal(renderWatchEventTable(configmaps, { type: 'ERROR', object: status }, state).object, status);
  });
});

describe('spec 4.4: negotiating the table form', () => {
  const offers = ['application/json', 'application/yaml'];
  const cases: { accept: string; want: { mediaType: string; version?: string } }[] = [
    { accept: 'application/json;as=Table;g=meta.orch.io;v=v1,application/json', want: { mediaType: 'application/json', version: 'v1' } },
    { accept: 'application/json;as=Table;v=v1beta1;g=meta.orch.io', want: { mediaType: 'application/json', version: 'v1beta1' } },
    { accept: 'application/json;as=Table;g=meta.other.io;v=v1, application/json', want: { mediaType: 'application/json' } },
    { accept: 'application/json;as=Table;g=meta.orch.io;v=v2, application/yaml', want: { mediaType: 'application/yaml' } },
  ];
  for (const c of cases) {
    it(`spec 4.4: ${c.accept}`, () => {
      const r = negotiate(c.accept, offers, TABLE_ALTERNATIVES);
      assert.equal(r.mediaType, c.want.mediaType);
      assert.equal(r.as?.version, c.want.version);
      if (r.as) assert.deepEqual({ kind: r.as.kind, group: r.as.group }, { kind: 'Table', group: META_GROUP });
    });
  }

  it('spec 4.4: remembered answers are kept apart per offers and alternatives', () => {
    const accept = 'application/json;as=Table;g=meta.orch.io;v=v1, application/yaml';
    assert.deepEqual(negotiate(accept, offers), { mediaType: 'application/yaml' }); // no table offered
    assert.equal(negotiate(accept, offers, TABLE_ALTERNATIVES).as?.kind, 'Table');
    assert.deepEqual(negotiate(accept, offers), { mediaType: 'application/yaml' });
    assert.throws(() => negotiate(accept, ['application/vnd.orch.protobuf']), (e: unknown) => (e as { code?: number }).code === 406);
    assert.equal(negotiate(accept, ['application/json'], TABLE_ALTERNATIVES).mediaType, 'application/json');
  });
});
