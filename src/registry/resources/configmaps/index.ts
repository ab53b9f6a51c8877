/** core/v1 ConfigMap: non-confidential key/value data for pods to consume. */
import type { ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { optionalBoolean } from '../../validation/index.js';
import { column } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType } from '../../types.js';
import { checkKeys, decodedLength, isBase64, MAX_DATA_SIZE, tooLarge, validateImmutable } from './keys.js';

const schema = definitionSchema('api.core.v1.ConfigMap');

const count = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).length : 0);

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const data = checkKeys(o.data, 'data', errs);
  const binary = checkKeys(o.binaryData, 'binaryData', errs);
  const dataKeys = new Set(data.map(([k]) => k));
  let size = 0;
  for (const [, v] of data) size += Buffer.byteLength(v, 'utf8');
  for (const [k, v] of binary) {
    if (dataKeys.has(k)) errs.push(fieldError.invalid(`binaryData[${k}]`, k, 'duplicate of key present in data'));
    if (!isBase64(v)) errs.push(fieldError.invalid(`binaryData[${k}]`, '<binary data omitted>', 'must be a base64-encoded string'));
    else size += decodedLength(v);
  }
  // The reference reports the size on the object itself (an empty path) because it spans both maps.
  if (size > MAX_DATA_SIZE) errs.push(tooLarge(''));
  errs.push(...optionalBoolean('immutable', o.immutable));
  return errs;
}

export const configmaps: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  subresources: [],
  storageKey: 'core/configmaps',
  schema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    validate,
    validateUpdate: (o, old) => validateImmutable(o, old, ['data', 'binaryData']),
  },
  tableColumns: [
    column('Data', 'integer', 'Entries in data and binaryData.', (o) => count(o.data) + count(o.binaryData)),
  ],
};
