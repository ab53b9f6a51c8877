/**
 * How custom resources are written (the reference's custom resource strategy): schema defaults on create
 * and update, schema and CEL validation (transition rules see the old object), the status subresource's
 * split of the object, generation bumps on any change but metadata (and status, with the subresource),
 * and the scale subresource's replica fields.
 */
import type { ApiObject } from '../../api/types.js';
import { fieldError, type FieldError } from '../../errors/index.js';
import { cloneJson, jsonEqual } from '../../patch/index.js';
import { pathValue } from '../schema.js';
import type { Strategy } from '../types.js';
import type { CustomSchema } from './contract.js';
import type { CrdScale } from './crd.js';

const INT32_MAX = 2 ** 31 - 1;

export interface CustomStrategyOptions {
  schema: CustomSchema;
  /** `subresources.status` is set: the main resource ignores status, the status write ignores the rest. */
  statusSubresource: boolean;
  scale?: CrdScale | undefined;
}

/** `spec.replicas` for `.spec.replicas`. */
export const dottedPath = (jsonPath: string): string => jsonPath.replace(/^\./, '');

/** What counts for the generation: the object without metadata (and without status when it has its own subresource). */
function content(obj: ApiObject, withoutStatus: boolean): Record<string, unknown> {
  const { metadata: _m, ...rest } = obj;
  if (withoutStatus) delete rest.status;
  return rest;
}

/** The replica fields of the scale subresource must hold counts a Scale can carry. */
export function validateScaleFields(obj: ApiObject, scale: CrdScale | undefined, statusSubresource: boolean): FieldError[] {
  if (!scale) return [];
  const errors: FieldError[] = [];
  const count = (jsonPath: string) => {
    const path = dottedPath(jsonPath);
    const v = pathValue(obj, path);
    if (v === undefined || v === null) return;
    if (typeof v !== 'number' || !Number.isInteger(v)) errors.push(fieldError.invalid(path, v, 'must be an integer'));
    else if (v < 0) errors.push(fieldError.invalid(path, v, 'must be greater than or equal to 0'));
    else if (v > INT32_MAX) errors.push(fieldError.invalid(path, v, `must be less than or equal to ${INT32_MAX}`));
  };
  count(scale.specReplicasPath);
  if (statusSubresource) count(scale.statusReplicasPath);
  if (scale.labelSelectorPath && statusSubresource) {
    const path = dottedPath(scale.labelSelectorPath);
    const v = pathValue(obj, path);
    if (v !== undefined && v !== null && typeof v !== 'string') errors.push(fieldError.invalid(path, v, 'must be a string'));
  }
  return errors;
}

const errorKey = (e: FieldError) => JSON.stringify([e.field, e.type, e.message]);

export function customStrategy(o: CustomStrategyOptions): Strategy {
  // The old object of an update in progress, for transition rules (`oldSelf`); keyed by the new object.
  const olds = new WeakMap<ApiObject, ApiObject>();
  // What `validate` reported for an object, so `validateUpdate` does not repeat it.
  const reported = new WeakMap<ApiObject, FieldError[]>();
  return {
    nameRule: 'subdomain',
    // Custom resources count every change but metadata (and status), not only spec; the store asks after
    // mutating admission, so a webhook's change counts too.
    tracksGeneration: false,
    generationChanged: (obj, old) => !jsonEqual(content(obj, o.statusSubresource), content(old, o.statusSubresource)),
    // As the reference: a PUT without resourceVersion replaces the object; a PUT of a missing one is 404.
    allowUnconditionalUpdate: true,
    allowCreateOnUpdate: false,
    prepareForCreate(obj) {
      if (o.statusSubresource) delete obj.status;
      o.schema.applyDefaults(obj);
      (obj.metadata ??= {}).generation = 1;
    },
    prepareForUpdate(obj, old) {
      if (o.statusSubresource) {
        if (old.status === undefined) delete obj.status;
        else obj.status = cloneJson(old.status);
      }
      o.schema.applyDefaults(obj);
      olds.set(obj, old);
    },
    prepareForStatusUpdate(obj, old) {
      // Everything but status (and the managed fields this write recorded) comes from the stored object.
      const status = obj.status;
      const managed = obj.metadata?.managedFields;
      const base = cloneJson(old) as ApiObject;
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, base);
      if (status === undefined) delete obj.status;
      else obj.status = status;
      if (managed === undefined) delete obj.metadata?.managedFields;
      else (obj.metadata ??= {}).managedFields = managed;
      o.schema.applyDefaults(obj);
      olds.set(obj, old);
    },
    validate(obj) {
      const errors = [...o.schema.validate(obj, olds.get(obj)), ...validateScaleFields(obj, o.scale, o.statusSubresource)];
      reported.set(obj, errors);
      return errors;
    },
    validateUpdate(obj, old) {
      // `validate` ran already; with the old object known to it there is nothing to add.
      if (olds.get(obj) === old) return [];
      // A mutating admission stage replaced the object: transition rules run now, without repeating errors.
      const seen = new Set((reported.get(obj) ?? []).map(errorKey));
      return o.schema.validate(obj, old).filter((e) => !seen.has(errorKey(e)));
    },
  };
}
