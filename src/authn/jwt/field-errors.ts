/** The field-error collector lives in `src/config/field-errors.ts`; re-exported for this folder's callers. */
export * from '../../config/field-errors.js';
