/** Small helpers for plain JSON values shared by the patch formats. */

export type JsonObject = Record<string, unknown>;

export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Sets an own data property. Plain assignment of a `__proto__` key (legal in parsed JSON) would change the
 * object's prototype instead of adding a member.
 */
export function setOwn(o: JsonObject, key: string, value: unknown): void {
  // Only `__proto__` needs defineProperty; plain assignment is much faster for every other key.
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** Deep copy of a JSON value that shares nothing with its input. */
export function cloneJson(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i]);
    return out;
  }
  // Object.keys and plain assignment: this runs for every field of every write (apply clones the live object).
  const o = v as JsonObject;
  const out: JsonObject = {};
  for (const k of Object.keys(o)) {
    if (k === '__proto__') setOwn(out, k, cloneJson(o[k]));
    else out[k] = cloneJson(o[k]);
  }
  return out;
}

/** RFC 6902 equality: same type, arrays element-wise in order, objects by member set regardless of order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}
