import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../errors/index.js';
import { errorText } from '../errors.js';
import { customColumns, goValue, objectName, parseOutputFormat, toJson, toYaml } from './formats.js';
import { alignRows, fromServerTable, humanAge, labelColumnHeader, labelsText, TabWriter } from './table.js';

describe('orchctl output', () => {
  it('reference behaviour: ages read as the reference prints durations', () => {
    const cases: [number, string][] = [
      [0, '0s'], [119_000, '119s'], [120_000, '2m'], [150_000, '2m30s'], [600_000, '10m'], [3 * 3600_000 - 1000, '179m'],
      [3 * 3600_000, '3h'], [3 * 3600_000 + 60_000, '3h1m'], [8 * 3600_000, '8h'], [48 * 3600_000, '2d'], [49 * 3600_000, '2d1h'],
      [8 * 86400_000, '8d'], [730 * 86400_000, '2y'], [731 * 86400_000, '2y1d'], [8 * 365 * 86400_000, '8y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanAge(ms), want, String(ms));
  });

  it('reference behaviour: tables pad columns by three, at least six wide; the last column is not padded', () => {
    assert.equal(alignRows([['NAME', 'DATA'], ['a', '1']]), 'NAME   DATA\na      1\n');
    assert.equal(alignRows([['a', 'b']]), 'a     b\n');
    assert.equal(alignRows([]), '');
  });

  it('reference behaviour: a line break in a cell ends the column block; remembered widths never shrink', () => {
    const text = alignRows([['N', 'D', 'X'], ['long-name', 'line1\nline2', 'y'], ['z', 'v', 'w']]);
    assert.equal(text, 'N           D     X\nlong-name   line1\nline2       y\nz           v     w\n');
    const w = new TabWriter();
    w.write('wide-cell\tx\n');
    assert.equal(w.write('a\tb\n'), 'a           b\n');
    w.resetWidths();
    assert.equal(w.write('a\tb\n'), 'a     b\n');
  });

  it('reference behaviour: labels, -L headers and server tables with namespace, kind prefix and wide columns', () => {
    assert.equal(labelsText(undefined), '<none>');
    assert.equal(labelsText({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(labelColumnHeader('orch.io/zone'), 'ZONE');
    const table = {
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name' },
        { name: 'Data', type: 'integer' },
        { name: 'Extra', type: 'string', priority: 1 },
      ],
      rows: [{ cells: ['a', 1, 'x\ny'], object: { metadata: { namespace: 'ns', labels: { app: 'web' } } } }],
    };
    assert.deepEqual(fromServerTable(table, { wide: false, withNamespace: true, namePrefix: 'configmap/', showLabels: true, labelColumns: ['app'] }), {
      header: ['NAMESPACE', 'NAME', 'DATA', 'APP', 'LABELS'],
      rows: [['ns', 'configmap/a', '1', 'web', 'app=web']],
    });
    assert.deepEqual(fromServerTable(table, { wide: true }).rows, [['a', '1', 'x...']]);
  });

  it('reference behaviour: -o values parse into formats; unknown ones are usage errors', () => {
    assert.deepEqual(parseOutputFormat(undefined), { kind: 'table', wide: false });
    assert.deepEqual(parseOutputFormat('wide', { noHeaders: true }), { kind: 'table', wide: true, noHeaders: true });
    assert.deepEqual(parseOutputFormat('jsonpath={.a}'), { kind: 'jsonpath', template: '{.a}' });
    assert.deepEqual(parseOutputFormat("jsonpath='.metadata.name'"), { kind: 'jsonpath', template: '{.metadata.name}' });
    assert.deepEqual(parseOutputFormat('custom-columns=N:.metadata.name'), { kind: 'custom-columns', spec: 'N:.metadata.name' });
    for (const bad of ['xml', 'jsonpath=', 'custom-columns=NOPATH', 'jsonpath={.a[}', 'jsonpath-as-json={.a}']) assert.throws(() => parseOutputFormat(bad), /./, bad);
  });

  it('reference behaviour: yaml and json with sorted keys; -o name with the group; Go-formatted custom columns', () => {
    assert.equal(toYaml({ b: ['x'], a: { d: '1', c: true } }), 'a:\n  c: true\n  d: "1"\nb:\n- x\n');
    assert.equal(toJson({ b: 1, a: 2 }), '{\n    "a": 2,\n    "b": 1\n}\n');
    assert.equal(objectName({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' } }), 'deployment.apps/w');
    assert.equal(objectName({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }), 'configmap/c');
    assert.equal(goValue({ b: [1, 'x'], a: null }), 'map[a:<none> b:[1 x]]');
    assert.equal(customColumns([{ metadata: { name: 'a' } }], 'N:.metadata.name,X:{.spec.x}'), 'N     X\na     <none>\n');
  });

  it('reference behaviour: server errors print as "Error from server (Reason): message"', () => {
    const cases: [unknown, string][] = [
      [new StatusError(404, 'NotFound', 'configmaps "a" not found'), 'Error from server (NotFound): configmaps "a" not found'],
      [new StatusError(401, 'Unauthorized', 'Unauthorized'), 'error: You must be logged in to the server (Unauthorized)'],
      [new StatusError(422, 'Invalid', 'x', { kind: 'ConfigMap', name: 'a', causes: [{ reason: 'FieldValueInvalid', field: 'data', message: 'bad' }] }), 'The ConfigMap "a" is invalid: data: bad'],
      [new Error('boom'), 'error: boom'],
    ];
    for (const [e, want] of cases) assert.equal(errorText(e), want);
  });
});
