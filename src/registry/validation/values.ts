import { fieldError, type FieldError } from '../../errors/index.js';

/** An optional boolean field: absent or null is fine, anything but a boolean is a type error naming `path`. */
export function optionalBoolean(path: string, value: unknown): FieldError[] {
  return value === undefined || value === null || typeof value === 'boolean' ? [] : [fieldError.typeInvalid(path, value, 'must be of type boolean')];
}
