/**
 * storage/v1 VolumeAttachment: attacher, node and exactly one source are required and the spec never
 * changes; the attacher reports progress through the status subresource. Table ATTACHER, PV, NODE, ATTACHED.
 */
import { STORAGE_GROUP } from '../../../api/naming.js';
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { isDNS1123Subdomain } from '../../validation/index.js';
import { FieldReader, isRec, type Rec } from '../events/fields.js';
import { referenceType } from '../reference.js';
import { csiDriverNameErrors } from './csi-driver.js';

const MAX_METADATA_SIZE = 256 * 1024;
const MAX_ERROR_MESSAGE = 1024;
const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

function validateSource(r: FieldReader, spec: Rec): FieldError[] {
  const source = r.obj(spec, 'source', 'spec.source') ?? {};
  const hasPV = source.persistentVolumeName !== undefined && source.persistentVolumeName !== null;
  const inline = r.obj(source, 'inlineVolumeSpec', 'spec.source.inlineVolumeSpec');
  if (!hasPV && !inline) return [fieldError.required('spec.source', `Required value: ${EXACTLY_ONE}`)];
  if (hasPV && inline) return [fieldError.forbidden('spec.source', EXACTLY_ONE)];
  if (!hasPV) return [];
  const pv = r.str(source, 'persistentVolumeName', 'spec.source.persistentVolumeName');
  if (pv === '') return [fieldError.required('spec.source.persistentVolumeName', 'Required value: must specify non empty persistentVolumeName')];
  return isDNS1123Subdomain(pv).map((msg) => fieldError.invalid('spec.source.persistentVolumeName', pv, msg));
}

function validateStatus(r: FieldReader, o: ApiObject): FieldError[] {
  const status = r.obj(o, 'status', 'status');
  if (!status) return [];
  const errs: FieldError[] = [];
  const meta = r.obj(status, 'attachmentMetadata', 'status.attachmentMetadata') ?? {};
  const size = Object.entries(meta).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
  if (size > MAX_METADATA_SIZE) errs.push(fieldError.tooLong('status.attachmentMetadata', MAX_METADATA_SIZE));
  for (const key of ['attachError', 'detachError']) {
    const e = r.obj(status, key, `status.${key}`);
    const message = r.str(e, 'message', `status.${key}.message`);
    if (message.length > MAX_ERROR_MESSAGE) errs.push(fieldError.tooLong(`status.${key}.message`, MAX_ERROR_MESSAGE));
  }
  if (status.attached !== undefined && typeof status.attached !== 'boolean') errs.push(fieldError.typeInvalid('status.attached', status.attached, 'must be of type boolean'));
  return errs;
}

export function validateVolumeAttachment(o: ApiObject): FieldError[] {
  const r = new FieldReader();
  const spec = r.obj(o, 'spec', 'spec') ?? {};
  const errs = csiDriverNameErrors(r.str(spec, 'attacher', 'spec.attacher'), 'spec.attacher');
  errs.push(...validateSource(r, spec));
  const node = r.str(spec, 'nodeName', 'spec.nodeName');
  if (node === '') errs.push(fieldError.required('spec.nodeName'));
  else for (const msg of isDNS1123Subdomain(node)) errs.push(fieldError.invalid('spec.nodeName', node, msg));
  errs.push(...validateStatus(r, o));
  return [...r.errors, ...errs];
}

const specOf = (o: ApiObject): Rec => (isRec(o.spec) ? o.spec : {});
const text = (v: unknown) => (typeof v === 'string' ? v : '');

export const volumeAttachments: ResourceType = referenceType(STORAGE_GROUP, 'v1', 'volumeattachments', {
  tableColumns: [
    { ...column('Attacher', 'string', 'The CSI driver that attaches the volume.', (o) => text(specOf(o).attacher)), format: 'name' },
    column('PV', 'string', 'The persistent volume being attached.', (o) => text(isRec(specOf(o).source) ? (specOf(o).source as Rec).persistentVolumeName : undefined)),
    column('Node', 'string', 'The node the volume is attached to.', (o) => text(specOf(o).nodeName)),
    column('Attached', 'boolean', 'Whether the attach operation succeeded.', (o) => isRec(o.status) && o.status.attached === true),
  ],
  strategy: {
    validate: validateVolumeAttachment,
    validateUpdate: (o, old) => (jsonEqual(o.spec ?? null, old.spec ?? null) ? [] : [fieldError.invalid('spec', o.spec ?? null, 'field is immutable')]),
  },
});
