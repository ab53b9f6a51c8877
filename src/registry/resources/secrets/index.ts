/** core/v1 Secret: confidential key/value data; `stringData` is a write-only convenience folded into `data`. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { optionalBoolean } from '../../validation/index.js';
import { column } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType } from '../../types.js';
import { SECRET_TYPES, SERVICE_ACCOUNT_NAME_ANNOTATION } from './types.js';
import { checkKeys, decodedLength, isBase64, MAX_DATA_SIZE, tooLarge, validateImmutable } from '../configmaps/keys.js';

const REDACTED = '<secret contents redacted>';

const schema = definitionSchema('api.core.v1.Secret');

/** The reference converts stringData into data on decode (stringData wins on a shared key) and never stores it. */
function foldStringData(o: ApiObject): void {
  if (isObject(o.stringData)) {
    const data: Record<string, unknown> = isObject(o.data) ? { ...o.data } : {};
    for (const [k, v] of Object.entries(o.stringData)) {
      if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    o.data = data;
  }
  delete o.stringData;
  if (o.type === undefined || o.type === null || o.type === '') o.type = SECRET_TYPES.opaque;
}

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const entries = checkKeys(o.data, 'data', errs);
  const data = new Map<string, string>();
  let size = 0;
  for (const [k, v] of entries) {
    if (!isBase64(v)) {
      errs.push(fieldError.invalid(`data[${k}]`, REDACTED, 'must be a base64-encoded string'));
      continue;
    }
    data.set(k, v);
    size += decodedLength(v);
  }
  if (size > MAX_DATA_SIZE) errs.push(tooLarge('data'));

  const need = (key: string) => {
    if (!data.has(key)) errs.push(fieldError.required(`data[${key}]`));
  };
  const needJson = (key: string) => {
    const v = data.get(key);
    if (v === undefined) return need(key);
    try {
      JSON.parse(Buffer.from(v, 'base64').toString('utf8'));
    } catch (e) {
      errs.push(fieldError.invalid(`data[${key}]`, REDACTED, (e as Error).message));
    }
  };
  switch (o.type) {
    case SECRET_TYPES.serviceAccountToken:
      if (!o.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION]) {
        errs.push(fieldError.required(`metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]`));
      }
      break;
    case SECRET_TYPES.dockercfg:
      needJson('.dockercfg');
      break;
    case SECRET_TYPES.dockerConfigJson:
      needJson('.dockerconfigjson');
      break;
    case SECRET_TYPES.basicAuth:
      if (!data.has('username') && !data.has('password')) {
        need('username');
        need('password');
      }
      break;
    case SECRET_TYPES.sshAuth:
      need('ssh-privatekey');
      break;
    case SECRET_TYPES.tls:
      need('tls.crt');
      need('tls.key');
      break;
    default:
      if (o.type !== undefined && typeof o.type !== 'string') {
        errs.push(fieldError.typeInvalid('type', o.type, 'must be of type string'));
      }
  }
  errs.push(...optionalBoolean('immutable', o.immutable));
  return errs;
}

function validateUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (o.type !== old.type) errs.push(fieldError.invalid('type', o.type, 'field is immutable'));
  errs.push(...validateImmutable(o, old, ['data']));
  return errs;
}

export const secrets: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  listKind: 'SecretList',
  plural: 'secrets',
  singular: 'secret',
  shortNames: [],
  namespaced: true,
  subresources: [],
  storageKey: 'core/secrets',
  schema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    prepareForCreate: foldStringData,
    prepareForUpdate: (o) => foldStringData(o),
    validate,
    validateUpdate,
  },
  tableColumns: [
    column('Type', 'string', 'The type of the secret', (o) => (typeof o.type === 'string' ? o.type : '')),
    column('Data', 'integer', 'The number of entries in the secret', (o) => (isObject(o.data) ? Object.keys(o.data).length : 0)),
  ],
  selectableFields: (o) => ({ type: typeof o.type === 'string' ? o.type : '' }),
};
