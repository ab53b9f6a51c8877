/** core/v1 ServiceAccount: an identity for processes in pods, with the secrets they may use. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { optionalBoolean } from '../../validation/index.js';
import { column } from '../../schema.js';
import { definitionSchema } from '../../reference-schema.js';
import type { ResourceType } from '../../types.js';

const schema = definitionSchema('api.core.v1.ServiceAccount');

/** Each reference must name its secret; an unnamed entry can never be resolved. */
function checkRefs(v: unknown, field: string, errs: FieldError[]): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v)) {
    errs.push(fieldError.typeInvalid(field, v, 'must be an array of objects'));
    return;
  }
  v.forEach((ref: unknown, i) => {
    const name = isObject(ref) ? ref.name : undefined;
    if (name === undefined || name === null || name === '') errs.push(fieldError.required(`${field}[${i}].name`));
    else if (typeof name !== 'string') errs.push(fieldError.typeInvalid(`${field}[${i}].name`, name, 'must be of type string'));
  });
}

function validate(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  checkRefs(o.secrets, 'secrets', errs);
  checkRefs(o.imagePullSecrets, 'imagePullSecrets', errs);
  errs.push(...optionalBoolean('automountServiceAccountToken', o.automountServiceAccountToken));
  return errs;
}

export const serviceaccounts: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  shortNames: ['sa'],
  namespaced: true,
  subresources: [],
  storageKey: 'core/serviceaccounts',
  schema,
  strategy: {
    nameRule: 'subdomain',
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    validate,
  },
  tableColumns: [
    column('Secrets', 'integer', 'The number of secrets listed by the service account', (o) =>
      Array.isArray(o.secrets) ? o.secrets.length : 0,
    ),
  ],
};
