import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { defaultFlowSchema, defaultPriorityLevel, type FlowControlVersion } from './defaults.js';

const plc = (limited: Record<string, unknown>, annotations?: Record<string, string>): ApiObject => ({
  kind: 'PriorityLevelConfiguration',
  metadata: { name: 'p', ...(annotations ? { annotations } : {}) },
  spec: { type: 'Limited', limited },
});
const sharesAfter = (version: FlowControlVersion, o: ApiObject) => {
  defaultPriorityLevel(o, version);
  return (o.spec as { limited: { nominalConcurrencyShares: unknown } }).limited.nominalConcurrencyShares;
};
const keep = { [FLOWCONTROL_PRESERVE_ZERO_SHARES_ANNOTATION]: '' };

test('spec 9.6: nominalConcurrencyShares defaults per version (v1 only when unset; v1beta3 also for 0 without the annotation)', () => {
  const cases: [FlowControlVersion, Record<string, unknown>, Record<string, string> | undefined, unknown][] = [
    ['v1', {}, undefined, 30],
    ['v1', { nominalConcurrencyShares: null }, undefined, 30],
    ['v1', { nominalConcurrencyShares: 0 }, undefined, 0],
    ['v1', { nominalConcurrencyShares: 7 }, undefined, 7],
    ['v1beta3', {}, undefined, 30],
    ['v1beta3', { nominalConcurrencyShares: 0 }, undefined, 30],
    ['v1beta3', { nominalConcurrencyShares: 0 }, keep, 0],
    ['v1beta3', { nominalConcurrencyShares: 7 }, undefined, 7],
  ];
  for (const [version, limited, annotations, want] of cases) {
    assert.equal(sharesAfter(version, plc({ ...limited }, annotations)), want, `${version} ${JSON.stringify(limited)} ${annotations ? 'annotated' : ''}`);
  }
});

test('reference behaviour: lendablePercent defaults to 0 and a present queuing block gets 64 queues, hand 8, length 50', () => {
  const o = plc({ limitResponse: { type: 'Queue', queuing: { queues: 0, handSize: 4 } } });
  defaultPriorityLevel(o, 'v1');
  assert.deepEqual(o.spec, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 4, queueLengthLimit: 50 } } },
  });
  const reject = plc({ limitResponse: { type: 'Reject' }, lendablePercent: 20 });
  defaultPriorityLevel(reject, 'v1beta3');
  assert.deepEqual(reject.spec, { type: 'Limited', limited: { limitResponse: { type: 'Reject' }, lendablePercent: 20, nominalConcurrencyShares: 30 } });
});

test('reference behaviour: an exempt block gets nominalConcurrencyShares 0 and lendablePercent 0', () => {
  const o: ApiObject = { kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt' }, spec: { type: 'Exempt', exempt: { lendablePercent: 10 } } };
  defaultPriorityLevel(o, 'v1');
  assert.deepEqual(o.spec, { type: 'Exempt', exempt: { lendablePercent: 10, nominalConcurrencyShares: 0 } });
});

test('reference behaviour: FlowSchema matchingPrecedence 0 or unset becomes 1000; distinguisherMethod stays unset', () => {
  for (const [spec, want] of [
    [{}, 1000],
    [{ matchingPrecedence: 0 }, 1000],
    [{ matchingPrecedence: 42 }, 42],
  ] as const) {
    const o: ApiObject = { kind: 'FlowSchema', metadata: { name: 'f' }, spec: { ...spec } };
    defaultFlowSchema(o);
    assert.deepEqual(o.spec, { matchingPrecedence: want });
  }
  const noSpec: ApiObject = { kind: 'FlowSchema', metadata: { name: 'f' } };
  defaultFlowSchema(noSpec);
  assert.deepEqual(noSpec.spec, { matchingPrecedence: 1000 });
});

test('reference behaviour: defaulting leaves a spec of the wrong JSON type for validation to report', () => {
  const o: ApiObject = { kind: 'PriorityLevelConfiguration', metadata: { name: 'p' }, spec: 'nonsense' };
  defaultPriorityLevel(o, 'v1');
  defaultFlowSchema(o);
  assert.equal(o.spec, 'nonsense');
});
