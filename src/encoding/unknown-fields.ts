/**
 * Unknown-field detection and pruning against a type's schema (spec 4.2 `fieldValidation`, spec 7):
 * Strict rejects unknown fields, Warn reports one warning each, Ignore and Warn drop them.
 *
 * The schema is described structurally (encoding may not import the registry); the registry's `Schema`
 * satisfies `FieldSchema` as is.
 */
import { isObject } from '../api/types.js';

export interface FieldSchema {
  type?: string;
  properties?: Record<string, FieldSchema>;
  additionalProperties?: FieldSchema | boolean;
  items?: FieldSchema;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** Marks a key the schema does not allow. */
const UNKNOWN = Symbol('unknown');

/**
 * The schema of `key` inside an object described by `s`: a declared property, else the map value schema,
 * else `undefined` (anything goes, not checked further) or UNKNOWN. Only an object that lists `properties`
 * (or says `additionalProperties: false`) is closed, so schemas that do not describe a shape never produce
 * false alarms; map keys (labels, data) are values of `additionalProperties` and are never unknown.
 */
function fieldSchema(s: FieldSchema, key: string): FieldSchema | undefined | typeof UNKNOWN {
  const declared = s.properties && Object.hasOwn(s.properties, key) ? s.properties[key] : undefined;
  if (declared) return declared;
  const ap = s.additionalProperties;
  if (isObject(ap)) return ap as FieldSchema;
  if (ap === true || s['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  if (ap === false || s.properties !== undefined) return UNKNOWN;
  return undefined;
}

/** Schemas below which nothing is checked: int-or-string and raw values are leaves. */
const isLeaf = (s: FieldSchema): boolean => s['x-kubernetes-int-or-string'] === true;

/** Plain assignment of "__proto__" would set the prototype instead of copying a (map) key. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * A schema compiled for the unknown-field walk, once per schema object: declared members in a `Map` (one
 * lookup per member, where the schema's `properties` object, large and in dictionary mode for pod specs,
 * costs an own-property test and a second lookup), and `fieldSchema`'s answer for every other member
 * worked out in advance. Schemas are not changed after they are built, so a compiled one stays right.
 */
interface Checker {
  /** Nothing at or below this value is checked (no schema, or int-or-string). */
  readonly leaf: boolean;
  /** The declared members. */
  readonly declared: Map<string, Checker>;
  /** Any other member: the map value's checker, `undefined` (not checked) or UNKNOWN. */
  other: Checker | undefined | typeof UNKNOWN;
  /** List elements (undefined: a list here is not checked). */
  items: Checker | undefined;
}

const compiled = new WeakMap<FieldSchema, Checker>();

/** The checker of `s`; recursive schemas meet their own entry, which is stored before its members are compiled. */
function checkerOf(s: FieldSchema): Checker {
  const known = compiled.get(s);
  if (known !== undefined) return known;
  const c: Checker = { leaf: isLeaf(s), declared: new Map(), other: undefined, items: undefined };
  compiled.set(s, c);
  if (s.properties) for (const k of Object.keys(s.properties)) if (s.properties[k]) c.declared.set(k, checkerOf(s.properties[k]));
  const ap = s.additionalProperties;
  if (isObject(ap)) c.other = checkerOf(ap as FieldSchema);
  else if (ap === true || s['x-kubernetes-preserve-unknown-fields'] === true) c.other = undefined;
  else if (ap === false || s.properties !== undefined) c.other = UNKNOWN;
  if (s.items) c.items = checkerOf(s.items);
  return c;
}

/**
 * Every field of `obj` the schema does not know, as paths in the reference's form
 * (`.spec.containers[0].imagePullPolicyy`), in document order. A field below an unknown one is not
 * reported separately: the unknown parent covers it. Gives `findUnknownFieldsUncompiled`'s answers (a test
 * holds them to it) from the compiled schema.
 */
export function findUnknownFields(obj: unknown, schema: FieldSchema): string[] {
  const out: string[] = [];
  // The walk's position; a path is spelled out only for a field that is reported (most writes have none).
  const at: (string | number)[] = [];
  const spell = (k: string) => `${at.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}.${k}`;
  const walk = (v: unknown, c: Checker): void => {
    if (c.leaf) return;
    if (Array.isArray(v)) {
      const items = c.items;
      if (!items) return;
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i], items);
        at.pop();
      }
      return;
    }
    if (!isObject(v)) return;
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const cs = c.declared.get(k) ?? c.other;
      if (cs === UNKNOWN) out.push(spell(k));
      else if (cs !== undefined) {
        const child = v[k];
        if (typeof child === 'object' && child !== null) {
          at.push(k);
          walk(child, cs);
          at.pop();
        }
      }
    }
  };
  walk(obj, checkerOf(schema));
  return out;
}

/** The same walk straight over the schema, kept as the reference the compiled walk is tested against. */
export function findUnknownFieldsUncompiled(obj: unknown, schema: FieldSchema): string[] {
  const out: string[] = [];
  const at: (string | number)[] = [];
  const spell = (k: string) => `${at.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('')}.${k}`;
  const walk = (v: unknown, s: FieldSchema | undefined): void => {
    if (!s || isLeaf(s)) return;
    if (Array.isArray(v)) {
      if (!s.items) return;
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i], s.items);
        at.pop();
      }
      return;
    }
    if (!isObject(v)) return;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const cs = fieldSchema(s, k);
      if (cs === UNKNOWN) out.push(spell(k));
      else if (cs !== undefined && typeof v[k] === 'object' && v[k] !== null) {
        at.push(k);
        walk(v[k], cs);
        at.pop();
      }
    }
  };
  walk(obj, schema);
  return out;
}

/**
 * A copy of `obj` without the fields `findUnknownFields` reports (fieldValidation Ignore and Warn).
 * Parts the schema leaves open are shared with the input, not copied: callers must not mutate both.
 */
export function pruneUnknownFields<T>(obj: T, schema: FieldSchema): T {
  const prune = (v: unknown, s: FieldSchema | undefined): unknown => {
    if (!s || isLeaf(s)) return v;
    if (Array.isArray(v)) return s.items ? v.map((item) => prune(item, s.items)) : v;
    if (!isObject(v)) return v;
    const copy: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v)) {
      const cs = fieldSchema(s, k);
      if (cs !== UNKNOWN) setOwn(copy, k, prune(child, cs));
    }
    return copy;
  };
  return prune(obj, schema) as T;
}
