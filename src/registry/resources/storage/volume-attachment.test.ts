import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import type { FieldError } from '../../../errors/index.js';
import { volumeAttachments } from './volume-attachment.js';

const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const va = (spec: unknown, status?: unknown): ApiObject => ({
  apiVersion: `${STORAGE_GROUP}/v1`,
  kind: 'VolumeAttachment',
  metadata: { name: 'csi-123' },
  spec,
  ...(status === undefined ? {} : { status }),
});
const good = { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } };
const s = volumeAttachments.strategy;

const cases: { name: string; spec: unknown; status?: unknown; want: string[] }[] = [
  { name: 'a persistent volume source', spec: good, want: [] },
  { name: 'an inline volume source with status', spec: { ...good, source: { inlineVolumeSpec: { csi: { driver: 'csi.example.com', volumeHandle: 'h' } } } }, status: { attached: true, attachmentMetadata: { a: 'b' } }, want: [] },
  { name: 'nothing', spec: {}, want: ['FieldValueRequired spec.attacher', 'FieldValueRequired spec.source', 'FieldValueRequired spec.nodeName'] },
  { name: 'both sources', spec: { ...good, source: { persistentVolumeName: 'pv', inlineVolumeSpec: {} } }, want: ['FieldValueForbidden spec.source'] },
  { name: 'an empty persistentVolumeName', spec: { ...good, source: { persistentVolumeName: '' } }, want: ['FieldValueRequired spec.source.persistentVolumeName'] },
  { name: 'a bad persistentVolumeName', spec: { ...good, source: { persistentVolumeName: 'PV_1' } }, want: ['FieldValueInvalid spec.source.persistentVolumeName'] },
  { name: 'a bad attacher and node name', spec: { ...good, attacher: 'Bad_Driver', nodeName: 'Node_1' }, want: ['FieldValueInvalid spec.attacher', 'FieldValueInvalid spec.nodeName'] },
  { name: 'an attach error message over 1024 characters', spec: good, status: { attachError: { message: 'x'.repeat(1025) } }, want: ['FieldValueTooLong status.attachError.message'] },
  { name: 'status.attached of the wrong type', spec: good, status: { attached: 'yes' }, want: ['FieldValueTypeInvalid status.attached'] },
];

for (const c of cases) {
  test(`reference behaviour, VolumeAttachment validation: ${c.name}`, () => {
    assert.deepEqual(summary(s.validate(va(c.spec, c.status))), c.want);
  });
}

test('reference behaviour, VolumeAttachment: the spec is immutable', () => {
  assert.deepEqual(s.validateUpdate?.(va(good), va(good)), []);
  assert.deepEqual(summary(s.validateUpdate?.(va({ ...good, nodeName: 'node-2' }), va(good)) ?? []), ['FieldValueInvalid spec']);
});

test('reference behaviour, VolumeAttachment: status subresource; main writes keep the stored status, status writes keep the spec', () => {
  assert.deepEqual(volumeAttachments.subresources, ['status']);
  const stored = va(good, { attached: true });
  const main = va(good, { attached: false });
  s.prepareForUpdate?.(main, stored);
  assert.deepEqual(main.status, { attached: true });
  const status = va({ ...good, nodeName: 'other' }, { attached: false });
  s.prepareForStatusUpdate?.(status, stored);
  assert.deepEqual([status.spec, status.status], [good, { attached: false }]);
});

test('reference behaviour, VolumeAttachment: table ATTACHER, PV, NODE, ATTACHED', () => {
  assert.deepEqual(volumeAttachments.tableColumns.map((c) => c.name), ['Attacher', 'PV', 'Node', 'Attached']);
  const cells = (o: ApiObject) => volumeAttachments.tableColumns.map((c) => c.value(o));
  assert.deepEqual(cells(va(good, { attached: true })), ['csi.example.com', 'pv-1', 'node-1', true]);
  assert.deepEqual(cells(va({ ...good, source: { inlineVolumeSpec: {} } })), ['csi.example.com', '', 'node-1', false]);
});
