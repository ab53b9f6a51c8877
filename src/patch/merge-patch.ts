/**
 * JSON merge patch, RFC 7386 (spec 4.3, `application/merge-patch+json`). Pure: the result is a fresh value
 * that shares nothing with either input, so callers may mutate it freely.
 */
import { cloneJson, hasOwn, isJsonObject, setOwn, type JsonObject } from './json.js';

/** Applies `patch` to `target` exactly as the RFC's MergePatch pseudo-code does. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  // A patch that is not an object (array, scalar, null) replaces the target wholesale.
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? (cloneJson(target) as JsonObject) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      // Recursing also strips nulls from object values added under new keys, as the RFC requires.
      setOwn(result, key, applyMergePatch(hasOwn(result, key) ? result[key] : undefined, value));
    }
  }
  return result;
}
