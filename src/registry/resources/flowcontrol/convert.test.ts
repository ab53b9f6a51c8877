import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { flowSchemaToV1, flowSchemaToV1beta3, priorityLevelToV1, priorityLevelToV1beta3, V1_API_VERSION, V1BETA3_API_VERSION } from './convert.js';

const KEY = FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION;
const stored = (shares: number | undefined, annotations?: Record<string, string>): ApiObject => ({
  apiVersion: V1_API_VERSION,
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
  spec: { type: 'Limited', limited: { ...(shares === undefined ? {} : { nominalConcurrencyShares: shares }), limitResponse: { type: 'Reject' } } },
});

test('spec 9.6: a stored zero reads back through v1beta3 with the preserve-zero annotation; other values without it', () => {
  const zero = priorityLevelToV1beta3(stored(0));
  assert.equal(zero.apiVersion, V1BETA3_API_VERSION);
  assert.deepEqual(zero.metadata?.annotations, { [KEY]: '' });
  assert.equal((zero.spec as any).limited.nominalConcurrencyShares, 0);
  const unset = priorityLevelToV1beta3(stored(undefined));
  assert.equal((unset.spec as any).limited.nominalConcurrencyShares, 0, 'v1beta3 always writes the field');
  assert.deepEqual(unset.metadata?.annotations, { [KEY]: '' });
  const ten = priorityLevelToV1beta3(stored(10, { a: 'b' }));
  assert.deepEqual(ten.metadata?.annotations, { a: 'b' });
  const exempt = priorityLevelToV1beta3({ apiVersion: V1_API_VERSION, kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: {} } });
  assert.equal(exempt.metadata?.annotations, undefined, 'only a limited level is marked');
});

test('spec 9.6: writing through v1beta3 drops the annotation (and an annotations map it leaves empty)', () => {
  const alone = priorityLevelToV1({ ...stored(0, { [KEY]: '' }), apiVersion: V1BETA3_API_VERSION });
  assert.equal(alone.apiVersion, V1_API_VERSION);
  assert.equal(alone.metadata?.annotations, undefined);
  const withOthers = priorityLevelToV1({ ...stored(0, { [KEY]: '', a: 'b' }), apiVersion: V1BETA3_API_VERSION });
  assert.deepEqual(withOthers.metadata?.annotations, { a: 'b' });
});

test('spec 9.6: conversions round-trip and never change their input', () => {
  const original = stored(0, { a: 'b' });
  const copy = structuredClone(original);
  const back = priorityLevelToV1(priorityLevelToV1beta3(original));
  assert.deepEqual(back, original);
  assert.deepEqual(original, copy);
  const fs: ApiObject = { apiVersion: V1_API_VERSION, kind: 'FlowSchema', metadata: { name: 'f' }, spec: { matchingPrecedence: 5 } };
  const fsCopy = structuredClone(fs);
  assert.equal(flowSchemaToV1beta3(fs).apiVersion, V1BETA3_API_VERSION);
  assert.deepEqual(flowSchemaToV1(flowSchemaToV1beta3(fs)), fs);
  assert.deepEqual(fs, fsCopy);
});

test('spec 9.6: both versions of each kind share one storage, and only v1beta3 converts', async () => {
  const { flowSchemasV1, flowSchemasV1beta3, priorityLevelsV1, priorityLevelsV1beta3 } = await import('./index.js');
  assert.equal(flowSchemasV1.storageKey, flowSchemasV1beta3.storageKey);
  assert.equal(priorityLevelsV1.storageKey, priorityLevelsV1beta3.storageKey);
  assert.notEqual(flowSchemasV1.storageKey, priorityLevelsV1.storageKey);
  assert.equal(priorityLevelsV1.toStorage, undefined);
  assert.equal(priorityLevelsV1beta3.toStorage, priorityLevelToV1);
  assert.equal(priorityLevelsV1beta3.fromStorage, priorityLevelToV1beta3);
  assert.equal(flowSchemasV1beta3.toStorage, flowSchemaToV1);
  assert.deepEqual([priorityLevelsV1.subresources, flowSchemasV1beta3.subresources], [['status'], ['status']]);
});
