/** Server-side apply and field ownership (spec 2.4, 4.3, 7) as pure functions for the write path. */
export {
  type FieldPath,
  type FieldSet,
  type FieldSetOptions,
  emptySet,
  fieldSet,
  fieldSetOf,
  union,
  difference,
  intersection,
  has,
  isEmpty,
  leaves,
  setsEqual,
  pathKey,
  parsePathKey,
  pathString,
} from './fieldset.js';
export { toFieldsV1, fromFieldsV1 } from './fieldsv1.js';
export {
  type Operation,
  type ManagedFieldsEntry,
  type ManagedSet,
  type ManagerId,
  decodeManagedFields,
  encodeManagedFields,
  isResetRequest,
  managedSetsEqual,
  sameManager,
} from './managed.js';
export { type ApplyArgs, type ApplyResult, type FieldConflict, apply, conflictError, findConflicts } from './apply.js';
export { type RecordUpdateArgs, recordUpdate } from './update.js';
