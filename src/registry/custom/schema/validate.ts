/**
 * Validation of a custom resource's value against its compiled schema (the OpenAPI keywords, list
 * uniqueness, embedded resources), every problem reported, worded as the reference words them:
 * `<field> in body must be of type integer: "string"` and the generic field-error prefixes.
 */
import { quote, type FieldError } from '../../../errors/index.js';
import { formatAccepts } from './formats.js';
import type { Node } from './node.js';

export const child = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
export const index = (path: string, i: number): string => `${path}[${i}]`;

/** The JSON type name of a value as the reference's messages spell it. */
export function jsonTypeOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return true;
  }
}

const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${detail}` });
const typeInvalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, message: `Invalid value: ${quote(value)}: ${detail}` });
const tooMany = (field: string, actual: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items` });
const body = (path: string) => (path === '' ? 'body' : `${path} in body`);

/** JSON equality for enum, set and map-key comparisons (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => jsonEqual(x, (b as unknown[])[i]));
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A canonical text of a JSON value (sorted keys), used to find duplicates in one pass. */
export function canonical(v: unknown): string {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

const charCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** Appends to `out` every problem of `v` (at `path`) against `node` and below. */
export function validateValue(v: unknown, node: Node, path: string, out: FieldError[]): void {
  if (v === null) {
    if (node.nullable || (node.type === undefined && !node.intOrString)) return;
    out.push(typeInvalid(path, 'null', `${body(path)} must be of type ${node.intOrString ? 'integer-or-string' : node.type}: "null"`));
    return;
  }
  if (node.intOrString) {
    const ok = typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
    if (!ok) out.push(typeInvalid(path, jsonTypeOf(v), `${body(path)} must be of type integer-or-string: ${quote(jsonTypeOf(v))}`));
  } else if (node.type !== undefined && !typeMatches(node.type, v)) {
    out.push(typeInvalid(path, jsonTypeOf(v), `${body(path)} must be of type ${node.type}: ${quote(jsonTypeOf(v))}`));
    return;
  }
  if (node.format !== undefined && !formatAccepts(node.format, v)) out.push(typeInvalid(path, v, `${body(path)} must be of type ${node.format}: ${quote(v)}`));
  if (node.enum && !node.enum.some((e) => jsonEqual(e, v))) {
    const allowed = node.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    out.push({ type: 'FieldValueNotSupported', field: path, message: `Unsupported value: ${quote(v)}: supported values: ${allowed.map((a) => `"${a}"`).join(', ')}` });
  }
  if (typeof v === 'string') validateString(v, node, path, out);
  else if (typeof v === 'number') validateNumber(v, node, path, out);
  else if (Array.isArray(v)) validateArray(v, node, path, out);
  else if (typeof v === 'object') validateObject(v as Record<string, unknown>, node, path, out);
  if (node.allOf || node.anyOf || node.oneOf || node.not) validateJunctors(v, node, path, out);
}

function validateString(v: string, node: Node, path: string, out: FieldError[]): void {
  if (node.maxLength !== undefined || node.minLength !== undefined) {
    const n = v.length <= (node.maxLength ?? Infinity) && v.length >= 2 * (node.minLength ?? 0) ? v.length : charCount(v);
    if (node.maxLength !== undefined && n > node.maxLength) out.push({ type: 'FieldValueTooLong', field: path, message: `Too long: may not be longer than ${node.maxLength}` });
    if (node.minLength !== undefined && n < node.minLength) out.push(invalid(path, v, `${body(path)} should be at least ${node.minLength} chars long`));
  }
  if (node.pattern && !node.pattern.test(v)) out.push(invalid(path, v, `${body(path)} should match '${node.patternText}'`));
}

function validateNumber(v: number, node: Node, path: string, out: FieldError[]): void {
  if (node.minimum !== undefined && (node.exclusiveMinimum ? v <= node.minimum : v < node.minimum)) {
    out.push(invalid(path, v, `${body(path)} should be greater than ${node.exclusiveMinimum ? '' : 'or equal to '}${node.minimum}`));
  }
  if (node.maximum !== undefined && (node.exclusiveMaximum ? v >= node.maximum : v > node.maximum)) {
    out.push(invalid(path, v, `${body(path)} should be less than ${node.exclusiveMaximum ? '' : 'or equal to '}${node.maximum}`));
  }
  if (node.multipleOf !== undefined) {
    const q = v / node.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9 * Math.max(1, Math.abs(q))) out.push(invalid(path, v, `${body(path)} should be a multiple of ${node.multipleOf}`));
  }
}

function validateArray(v: unknown[], node: Node, path: string, out: FieldError[]): void {
  if (node.maxItems !== undefined && v.length > node.maxItems) out.push(tooMany(path, v.length, node.maxItems));
  if (node.minItems !== undefined && v.length < node.minItems) out.push(invalid(path, v.length, `${body(path)} should have at least ${node.minItems} items`));
  if (node.items) for (let i = 0; i < v.length; i++) validateValue(v[i], node.items, index(path, i), out);
  if (node.listType === 'set') duplicates(v, path, out, (x) => x);
  else if (node.listType === 'map' && node.listMapKeys) {
    const keys = node.listMapKeys;
    const itemProps = node.items?.properties;
    // Absent keys count with their default, as the reference compares defaulted items.
    duplicates(v, path, out, (x) => {
      if (typeof x !== 'object' || x === null || Array.isArray(x)) return undefined;
      const key: Record<string, unknown> = {};
      for (const k of keys) {
        const s = itemProps?.get(k);
        key[k] = Object.hasOwn(x, k) ? (x as Record<string, unknown>)[k] : s?.hasDefault ? s.default : undefined;
      }
      return key;
    });
  }
}

function duplicates(v: unknown[], path: string, out: FieldError[], keyOf: (x: unknown) => unknown): void {
  if (v.length < 2) return;
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const key = keyOf(v[i]);
    if (key === undefined) continue;
    const text = canonical(key);
    if (seen.has(text)) out.push({ type: 'FieldValueDuplicate', field: index(path, i), message: `Duplicate value: ${quote(key)}` });
    else seen.add(text);
  }
}

function validateObject(v: Record<string, unknown>, node: Node, path: string, out: FieldError[]): void {
  if (node.maxProperties !== undefined || node.minProperties !== undefined) {
    const n = Object.keys(v).length;
    if (node.maxProperties !== undefined && n > node.maxProperties) out.push(tooMany(path, n, node.maxProperties));
    if (node.minProperties !== undefined && n < node.minProperties) out.push(invalid(path, n, `${body(path)} should have at least ${node.minProperties} properties`));
  }
  if (node.required) for (const k of node.required) if (!Object.hasOwn(v, k)) out.push({ type: 'FieldValueRequired', field: child(path, k), message: 'Required value' });
  const props = node.properties;
  const ap = node.additionalProperties;
  if (props) {
    for (const [k, s] of props) if (Object.hasOwn(v, k) && v[k] !== undefined) validateValue(v[k], s, child(path, k), out);
  } else if (ap !== undefined && ap !== true) {
    for (const k in v) if (Object.hasOwn(v, k)) validateValue(v[k], ap, child(path, k), out);
  }
  if (node.embedded) validateEmbedded(v, path, out);
}

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** An embedded object is a resource of its own: apiVersion and kind are required and well-formed. */
function validateEmbedded(v: Record<string, unknown>, path: string, out: FieldError[]): void {
  for (const k of ['apiVersion', 'kind']) {
    const x = v[k];
    const field = child(path, k);
    if (!Object.hasOwn(v, k)) out.push({ type: 'FieldValueRequired', field, message: 'Required value: must not be empty' });
    else if (typeof x !== 'string') out.push(invalid(field, x, 'must be a string'));
    else if (x === '') out.push(invalid(field, x, 'must not be empty'));
    else if (k === 'apiVersion' && x.split('/').length > 2) out.push(invalid(field, x, 'must be a version or group/version'));
    else if (k === 'kind' && (x.length > 63 || !DNS1035.test(x.toLowerCase()))) {
      out.push(invalid(field, x, 'may have mixed case, but should otherwise be a DNS-1035 label (letters, digits and -, starting with a letter)'));
    }
  }
}

/** allOf/anyOf/oneOf/not: each branch validated on its own, the outcome worded for the junctor. */
function validateJunctors(v: unknown, node: Node, path: string, out: FieldError[]): void {
  const passes = (n: Node) => {
    const errs: FieldError[] = [];
    validateValue(v, n, path, errs);
    return errs;
  };
  if (node.allOf) {
    let failed = false;
    for (const n of node.allOf) {
      const errs = passes(n);
      if (errs.length > 0) {
        failed = true;
        out.push(...errs);
      }
    }
    if (failed) out.push(invalid(path, v, `${body(path)} must validate all the schemas (allOf)`));
  }
  if (node.anyOf && node.anyOf.length > 0 && !node.intOrString) {
    const results = node.anyOf.map(passes);
    if (!results.some((e) => e.length === 0)) {
      for (const errs of results) out.push(...errs);
      out.push(invalid(path, v, `${body(path)} must validate at least one schema (anyOf)`));
    }
  }
  if (node.oneOf && node.oneOf.length > 0) {
    const results = node.oneOf.map(passes);
    const ok = results.filter((e) => e.length === 0).length;
    if (ok !== 1) {
      if (ok === 0) for (const errs of results) out.push(...errs);
      out.push(invalid(path, v, `${body(path)} must validate one and only one schema (oneOf)`));
    }
  }
  if (node.not && passes(node.not).length === 0) out.push(invalid(path, v, `${body(path)} must not validate the schema (not)`));
}
