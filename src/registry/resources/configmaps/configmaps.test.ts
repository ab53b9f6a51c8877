import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import { configmaps } from './index.js';
import { isConfigMapKey } from './keys.js';

const s = configmaps.strategy;
const cm = (extra: ApiObject = {}): ApiObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, ...extra });
const fields = (o: ApiObject) => s.validate(o).map((e) => e.field);
const b64 = (v: string) => Buffer.from(v).toString('base64');

describe('configmaps', () => {
  it('API reference: identity and schema', () => {
    assert.equal(configmaps.kind, 'ConfigMap');
    assert.equal(configmaps.listKind, 'ConfigMapList');
    assert.equal(configmaps.plural, 'configmaps');
    assert.deepEqual(configmaps.shortNames, ['cm']);
    assert.equal(configmaps.namespaced, true);
    assert.deepEqual(configmaps.subresources, []);
    assert.equal(configmaps.storageKey, 'core/configmaps');
    assert.equal(s.nameRule, 'subdomain');
    assert.deepEqual(configmaps.schema.properties?.binaryData?.additionalProperties, { type: 'string', format: 'byte' });
    assert.equal(configmaps.selectableFields, undefined);
  });

  it('API reference: valid keys are accepted', () => {
    assert.deepEqual(s.validate(cm({ data: { 'app.properties': 'a=b', KEY_1: 'x', '-dash': '' }, binaryData: { 'blob.bin': b64('\u0000\u0001') } })), []);
    assert.deepEqual(s.validate(cm()), []);
  });

  it('API reference: keys must match [-._a-zA-Z0-9]+, be at most 253 long and not be . or ..', () => {
    assert.deepEqual(isConfigMapKey('ok.key'), []);
    assert.match(isConfigMapKey('a/b')[0] ?? '', /a valid config key must consist of alphanumeric characters/);
    assert.deepEqual(isConfigMapKey('.'), ["must not be '.'"]);
    assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
    assert.deepEqual(isConfigMapKey('..x'), ["must not start with '..'"]);
    assert.deepEqual(isConfigMapKey('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(fields(cm({ data: { 'a b': '1', '..': '2' }, binaryData: { 'x/y': b64('z') } })), ['data[a b]', 'data[..]', 'binaryData[x/y]']);
  });

  it('API reference: a key may not be in both data and binaryData', () => {
    const errs = s.validate(cm({ data: { k: 'v' }, binaryData: { k: b64('v') } }));
    assert.deepEqual(errs.map((e) => [e.field, e.message]), [['binaryData[k]', 'Invalid value: "k": duplicate of key present in data']]);
  });

  it('API reference: binaryData values must be base64 and values must be strings', () => {
    assert.deepEqual(fields(cm({ binaryData: { k: 'not base64!' } })), ['binaryData[k]']);
    assert.deepEqual(fields(cm({ data: { k: 5 } })), ['data[k]']);
    assert.deepEqual(fields(cm({ data: 'x' })), ['data']);
  });

  it('API reference: data plus binaryData may hold at most 1 MiB', () => {
    const half = 'x'.repeat(512 * 1024);
    assert.deepEqual(s.validate(cm({ data: { a: half }, binaryData: { b: Buffer.alloc(512 * 1024).toString('base64') } })), []);
    const errs = s.validate(cm({ data: { a: half }, binaryData: { b: Buffer.alloc(512 * 1024 + 1).toString('base64') } }));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.type, 'FieldValueTooLong');
    assert.match(errs[0]?.message ?? '', /must have at most 1048576 bytes/);
  });

  it('API reference: immutable config maps keep data, binaryData and the flag', () => {
    const old = cm({ data: { a: '1' }, immutable: true });
    assert.deepEqual(s.validateUpdate?.(cm({ data: { a: '1' }, immutable: true, metadata: { name: 'cfg', labels: { x: 'y' } } }), old), []);
    const errs = s.validateUpdate?.(cm({ data: { a: '2' }, binaryData: { b: b64('x') }, immutable: false }), old) ?? [];
    assert.deepEqual(errs.map((e) => e.field), ['immutable', 'data', 'binaryData']);
    assert.ok(errs.every((e) => e.type === 'FieldValueForbidden' && e.message === 'Forbidden: field is immutable when `immutable` is set'));
  });

  it('API reference: mutable config maps may change, and may become immutable', () => {
    const old = cm({ data: { a: '1' } });
    assert.deepEqual(s.validateUpdate?.(cm({ data: { a: '2' }, immutable: true }), old), []);
    // An empty map and an absent map are the same value.
    assert.deepEqual(s.validateUpdate?.(cm({ data: {}, immutable: true }), cm({ immutable: true })), []);
  });

  it('API reference: table Data column counts data and binaryData entries', () => {
    assert.deepEqual(configmaps.tableColumns.map((c) => c.name), ['Data']);
    const col = configmaps.tableColumns[0];
    assert.equal(col?.value(cm({ data: { a: '1', b: '2' }, binaryData: { c: b64('3') } })), 3);
    assert.equal(col?.value(cm()), 0);
  });
});
