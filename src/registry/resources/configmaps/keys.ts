/**
 * Rules shared by ConfigMap and Secret: data keys, the 1 MiB size limit, and the `immutable` flag.
 */
import { isDeepStrictEqual } from 'node:util';
import { isObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { regexError } from '../../validation/index.js';

/** The reference's limit for ConfigMap and Secret payloads (MaxSecretSize). */
export const MAX_DATA_SIZE = 1024 * 1024;

const KEY_FMT = '[-._a-zA-Z0-9]+';
const KEY_RE = new RegExp(`^${KEY_FMT}$`);
const KEY_MAX = 253;

/** Keys become file names when mounted, so they are restricted to a portable character set. */
export function isConfigMapKey(key: string): string[] {
  const errs: string[] = [];
  if (key.length > KEY_MAX) errs.push(`must be no more than ${KEY_MAX} characters`);
  if (!KEY_RE.test(key)) {
    errs.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Validates the keys of one map field; returns the map entries that have string values. */
export function checkKeys(v: unknown, field: string, errs: FieldError[]): [string, string][] {
  if (v === undefined || v === null) return [];
  if (!isObject(v)) {
    errs.push(fieldError.typeInvalid(field, v, 'must be an object mapping strings to strings'));
    return [];
  }
  const out: [string, string][] = [];
  for (const [k, val] of Object.entries(v)) {
    for (const msg of isConfigMapKey(k)) errs.push(fieldError.invalid(`${field}[${k}]`, k, msg));
    if (typeof val === 'string') out.push([k, val]);
    else errs.push(fieldError.typeInvalid(`${field}[${k}]`, val, 'must be of type string'));
  }
  return out;
}

/** The reference words the size error this way (its TooLong form with a byte count). */
export const tooLarge = (field: string): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  message: `Too long: must have at most ${MAX_DATA_SIZE} bytes`,
});

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `format: byte` fields carry standard base64 with padding, as the reference's JSON decoder requires. */
export const isBase64 = (v: string): boolean => BASE64_RE.test(v);

export const decodedLength = (b64: string): number => Buffer.from(b64, 'base64').length;

const IMMUTABLE = 'field is immutable when `immutable` is set';

/** Empty and absent maps are the same value in the reference (nil and empty maps compare equal there after decoding). */
const norm = (v: unknown) => (v === undefined || v === null || (isObject(v) && Object.keys(v).length === 0) ? undefined : v);

/** Once `immutable: true` is stored, the payload fields and the flag itself are frozen. */
export function validateImmutable(
  obj: Record<string, unknown>,
  old: Record<string, unknown>,
  payloadFields: string[],
): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true) errs.push(fieldError.forbidden('immutable', IMMUTABLE));
  for (const f of payloadFields) {
    if (!isDeepStrictEqual(norm(obj[f]), norm(old[f]))) errs.push(fieldError.forbidden(f, IMMUTABLE));
  }
  return errs;
}
