/**
 * Small readers and checks shared by the batch, autoscaling and policy types: typed access to plain JSON
 * objects and the reference's wording for the common integer rules.
 */
import { isObject } from '../../../api/types.js';
import { fieldError, type FieldError } from '../../../errors/index.js';
import { jsonEqual } from '../../../patch/index.js';

export type Obj = Record<string, unknown>;

export const MAX_INT32 = 2147483647;

/** Go's nil pointer: missing or JSON null. */
export const absent = (v: unknown): v is undefined | null => v === undefined || v === null;
export const rec = (v: unknown): Obj => (isObject(v) ? v : {});
export const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Sets `o[key]` when the client left it out (Go's `if x == nil { x = default }`). */
export function setDefault(o: Obj, key: string, value: unknown): void {
  if (absent(o[key])) o[key] = value;
}

/** An optional int32 field: a non-integer is a type error, anything below `min` is invalid. */
export function checkInt(errs: FieldError[], path: string, v: unknown, min?: number, detail?: string): v is number {
  if (absent(v)) return false;
  if (typeof v !== 'number' || !Number.isInteger(v) || v > MAX_INT32 || v < -MAX_INT32 - 1) {
    errs.push(fieldError.typeInvalid(path, v, 'must be a 32-bit integer'));
    return false;
  }
  if (min !== undefined && v < min) {
    errs.push(fieldError.invalid(path, v, detail ?? (min === 0 ? 'must be greater than or equal to 0' : `must be greater than or equal to ${min}`)));
    return false;
  }
  return true;
}

/** Drops nulls and empty lists, which the reference's semantic equality treats as unset. */
function semantic(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(semantic);
  if (!isObject(v)) return v === null ? undefined : v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    const s = semantic(x);
    if (s !== undefined) out[k] = s;
  }
  return out;
}

/** Semantic equality of two JSON values (`apiequality.Semantic.DeepEqual`). */
export const sameValue = (a: unknown, b: unknown): boolean => jsonEqual(semantic(a) ?? null, semantic(b) ?? null);

/** A field that may not change on update (`ValidateImmutableField`); null and missing are the same. */
export function immutable(errs: FieldError[], path: string, next: unknown, prev: unknown): void {
  if (!sameValue(next, prev)) errs.push(fieldError.invalid(path, absent(next) ? null : next, 'field is immutable'));
}

/** True when a condition of `type` has status True. */
export function conditionTrue(status: unknown, type: string): boolean {
  return objects(rec(status).conditions).some((c) => c.type === type && c.status === 'True');
}

/** Cells of the CONTAINERS and IMAGES columns: names and images joined by commas. */
export function containerCells(podSpec: unknown): { names: string; images: string } {
  const containers = objects(rec(podSpec).containers);
  return { names: containers.map((c) => text(c.name)).join(','), images: containers.map((c) => text(c.image)).join(',') };
}
