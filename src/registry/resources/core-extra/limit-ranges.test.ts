import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { limitRanges, validateLimitRange } from './limit-ranges.js';

type Obj = Record<string, unknown>;
const range = (...limits: Obj[]): ApiObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
const pairs = (e: FieldError[]) => e.map((x) => [x.field, x.message.replace(/^[^:]*: /, '')]);

describe('limitranges: type', () => {
  it('reference behaviour: short name limits and the default table', () => {
    assert.deepEqual(limitRanges.shortNames, ['limits']);
    assert.deepEqual(limitRanges.tableColumns, []);
  });
});

describe('limitranges: validation', () => {
  const cases: { name: string; limits: Obj[]; want: [string, string][] }[] = [
    {
      name: 'min <= defaultRequest <= default <= max',
      limits: [{ type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '200m' }, default: { cpu: '500m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '4' } }],
      want: [],
    },
    { name: 'type is standard or qualified', limits: [{ type: 'Node' }], want: [['spec.limits[0].type', '"Node": must be a standard limit type or fully qualified']] },
    { name: 'type may be qualified', limits: [{ type: 'example.com/Thing', max: { 'example.com/x': '1' } }], want: [] },
    { name: 'one entry per type', limits: [{ type: 'Container' }, { type: 'Container' }], want: [['spec.limits[1].type', '"Container"']] },
    { name: 'min above max', limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }], want: [['spec.limits[0].min[cpu]', '"2": min value 2 is greater than max value 1']] },
    { name: 'defaultRequest above default', limits: [{ type: 'Container', defaultRequest: { memory: '2Gi' }, default: { memory: '1Gi' } }], want: [['spec.limits[0].defaultRequest[memory]', '"2Gi": default request value 2Gi is greater than default limit value 1Gi']] },
    { name: 'default above max', limits: [{ type: 'Container', default: { cpu: '2' }, max: { cpu: '1' } }], want: [['spec.limits[0].default[cpu]', '"1": default value 2 is greater than max value 1']] },
    { name: 'min above default', limits: [{ type: 'Container', default: { cpu: '1' }, min: { cpu: '2' } }], want: [['spec.limits[0].default[cpu]', '"2": min value 2 is greater than default value 1']] },
    { name: 'min above defaultRequest', limits: [{ type: 'Container', defaultRequest: { cpu: '1' }, min: { cpu: '2' } }], want: [['spec.limits[0].defaultRequest[cpu]', '"1": min value 2 is greater than default request value 1']] },
    { name: 'Pod has no defaults', limits: [{ type: 'Pod', default: { cpu: '1' } }], want: [['spec.limits[0].default', "may not be specified when `type` is 'Pod'"]] },
    { name: 'container resource names', limits: [{ type: 'Container', max: { storage: '1Gi' } }], want: [['spec.limits[0].max[storage]', '"storage": must be a standard resource for containers']] },
    { name: 'claims need a storage bound', limits: [{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }], want: [['spec.limits[0].limits', 'either minimum or maximum storage value is required, but neither was provided']] },
    { name: 'ratio at least 1', limits: [{ type: 'Container', maxLimitRequestRatio: { cpu: '0.5' } }], want: [['spec.limits[0].maxLimitRequestRatio[cpu]', '"0.5": ratio 0.5 is less than 1']] },
    {
      name: 'extended resources are not overcommitted',
      limits: [{ type: 'Container', default: { 'example.com/gpu': '2' }, defaultRequest: { 'example.com/gpu': '1' } }],
      want: [['spec.limits[0].defaultRequest[example.com/gpu]', '"1": default value 2 must equal to defaultRequest value 1 in example.com/gpu']],
    },
    { name: 'quantities parse', limits: [{ type: 'Container', max: { cpu: 'lots' } }], want: [['spec.limits[0].max[cpu]', `"lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`]] },
  ];
  for (const c of cases) {
    it(`reference behaviour: ${c.name}`, () => assert.deepEqual(pairs(validateLimitRange(range(...c.limits))), c.want));
  }
});
