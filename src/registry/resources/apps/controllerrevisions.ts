/** apps/v1 ControllerRevision: an immutable snapshot of a StatefulSet's or DaemonSet's template. */
import { isObject, type ApiObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/json.js';
import { column } from '../../schema.js';
import type { ResourceType } from '../../types.js';
import { referenceType } from '../reference.js';
import { isAbsent, nonNegativeInt } from './workload-validation.js';

/** `revision` is a plain int64 in the reference: a missing one decodes as 0. */
function defaultRevision(o: ApiObject): void {
  if (isAbsent(o.revision)) o.revision = 0;
}

export function validateControllerRevision(o: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isAbsent(o.data)) errs.push(fieldError.required('data', 'Required value: data is mandatory'));
  nonNegativeInt(errs, 'revision', o.revision);
  return errs;
}

export function validateControllerRevisionUpdate(o: ApiObject, old: ApiObject): FieldError[] {
  return jsonEqual(o.data ?? null, old.data ?? null) ? [] : [fieldError.invalid('data', o.data ?? null, 'field is immutable')];
}

/** `<kind>.<group>/<name>` of the controlling owner (the reference's CONTROLLER cell), else `<none>`. */
export function controllerName(o: ApiObject): string {
  const refs = Array.isArray(o.metadata?.ownerReferences) ? o.metadata.ownerReferences : [];
  const ref = refs.find((r: unknown) => isObject(r) && r.controller === true) as Record<string, unknown> | undefined;
  if (!ref) return '<none>';
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (!kind && !group) return name;
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${name}`;
}

export const controllerrevisions: ResourceType = referenceType('apps', 'v1', 'controllerrevisions', {
  tableColumns: [
    column('Controller', 'string', 'The object that owns this revision.', controllerName),
    column('Revision', 'string', 'Revision number of the captured state.', (o) => (typeof o.revision === 'number' ? o.revision : 0)),
  ],
  strategy: {
    prepareForCreate: defaultRevision,
    prepareForUpdate: defaultRevision,
    validate: validateControllerRevision,
    validateUpdate: validateControllerRevisionUpdate,
  },
});
