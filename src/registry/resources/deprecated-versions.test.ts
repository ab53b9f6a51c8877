import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_SUFFIX } from '../../api/naming.js';
import { deprecationOf } from './deprecated-versions.js';
import { removalsOf } from './removed-versions.js';

const S = GROUP_SUFFIX;

test('spec 7, reference behaviour: deprecated APIs are named with their deprecation and removal releases and replacement', () => {
  const cases: [[string, string, string], string, string][] = [
    [['', 'v1', 'componentstatuses'], 'v1 ComponentStatus is deprecated in v1.19+', ''],
    [
      [`flowcontrol.apiserver.${S}`, 'v1beta3', 'flowschemas'],
      `flowcontrol.apiserver.${S}/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.${S}/v1 FlowSchema`,
      '1.32',
    ],
    [
      [`flowcontrol.apiserver.${S}`, 'v1beta3', 'prioritylevelconfigurations'],
      `flowcontrol.apiserver.${S}/v1beta3 PriorityLevelConfiguration is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.${S}/v1 PriorityLevelConfiguration`,
      '1.32',
    ],
    [
      [`admissionregistration.${S}`, 'v1beta1', 'validatingadmissionpolicies'],
      `admissionregistration.${S}/v1beta1 ValidatingAdmissionPolicy is deprecated in v1.31+, unavailable in v1.34+`,
      '1.34',
    ],
  ];
  for (const [[g, v, r], warning, removedRelease] of cases) assert.deepEqual(deprecationOf(g, v, r), { warning, removedRelease });
});

test('spec 7: requests to APIs that are not deprecated carry no deprecation', () => {
  const cases: [string, string, string][] = [
    ['', 'v1', 'pods'],
    [`flowcontrol.apiserver.${S}`, 'v1', 'flowschemas'],
    ['batch', 'v1', 'jobs'],
    [`networking.${S}`, 'v1beta1', 'servicecidrs'],
  ];
  for (const [g, v, r] of cases) assert.equal(deprecationOf(g, v, r), undefined, `${g}/${v}/${r}`);
});

test('spec 9.6: a removal after the served release (flowcontrol v1beta3 in 1.32) has not happened yet', () => {
  assert.deepEqual(removalsOf(`flowcontrol.apiserver.${S}`, 'v1beta3'), []);
  assert.equal(removalsOf(`flowcontrol.apiserver.${S}`, 'v1beta2').length, 1);
  assert.deepEqual(removalsOf(`storage.${S}`, 'v1beta1', 'csistoragecapacities').map((r) => r.removedIn), ['1.27']);
  assert.deepEqual(removalsOf(`storage.${S}`, 'v1beta1', 'volumeattributesclasses'), []);
});
