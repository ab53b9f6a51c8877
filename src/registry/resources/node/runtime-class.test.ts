import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NODE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { runtimeClasses } from './runtime-class.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const rc = (body: Record<string, unknown>): ApiObject => ({ apiVersion: `${NODE_GROUP}/v1`, kind: 'RuntimeClass', metadata: { name: 'gvisor' }, ...body });
const s = runtimeClasses.strategy;

const cases: { name: string; body: Record<string, unknown>; want: string[] }[] = [
  {
    name: 'a handler with overhead and scheduling',
    body: { handler: 'runsc', overhead: { podFixed: { cpu: '250m', memory: '64Mi' } }, scheduling: { nodeSelector: { sandbox: 'true' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] } },
    want: [],
  },
  { name: 'no handler', body: {}, want: ['FieldValueRequired handler'] },
  { name: 'a handler that is not a DNS label', body: { handler: 'run.sc' }, want: ['FieldValueInvalid handler'] },
  { name: 'a handler of the wrong type', body: { handler: 5 }, want: ['FieldValueTypeInvalid handler', 'FieldValueRequired handler'] },
  { name: 'negative and unparsable overhead', body: { handler: 'h', overhead: { podFixed: { cpu: '-1', memory: 'much' } } }, want: ['FieldValueInvalid overhead.podFixed[cpu]', 'FieldValueInvalid overhead.podFixed[memory]'] },
  { name: 'an overhead resource name that is not qualified', body: { handler: 'h', overhead: { podFixed: { 'a/b/c': '1' } } }, want: ['FieldValueInvalid overhead.podFixed[a/b/c]'] },
  { name: 'a bad node selector and toleration', body: { handler: 'h', scheduling: { nodeSelector: { 'bad key': 'v' }, tolerations: [{ operator: 'Equal', value: 'x' }] } }, want: ['FieldValueInvalid scheduling.nodeSelector', 'FieldValueInvalid scheduling.tolerations[0].operator'] },
];

for (const c of cases) {
  test(`reference behaviour, RuntimeClass validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(rc(c.body))), c.want);
  });
}

test('reference behaviour, RuntimeClass: handler is immutable, overhead is not', () => {
  assert.deepEqual(summary(s.validateUpdate?.(rc({ handler: 'kata' }), rc({ handler: 'runsc' })) ?? []), ['FieldValueInvalid handler']);
  assert.deepEqual(s.validateUpdate?.(rc({ handler: 'runsc', overhead: { podFixed: { cpu: '1' } } }), rc({ handler: 'runsc' })), []);
});

test('reference behaviour, RuntimeClass: table HANDLER, no generation (no spec)', () => {
  assert.deepEqual(runtimeClasses.tableColumns.map((c) => [c.name, c.value(rc({ handler: 'runsc' }))]), [['Handler', 'runsc']]);
  assert.equal(s.tracksGeneration, false);
});
