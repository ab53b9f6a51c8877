/**
 * Schemas of built-in kinds, resolved from the generated reference definitions (generated/definitions.ts).
 * Each definition becomes one shared `Schema` object (references point at the same object), and the
 * definition name of every resolved object is remembered so that the served OpenAPI documents can refer to
 * definitions by name instead of inlining them.
 */
import type { Definition, Schema } from '../api/index.js';
import { DEFINITIONS } from '../generated/index.js';

const META = 'apimachinery.pkg.apis.meta.v1';

/** Definitions whose JSON form is not the object their OpenAPI v2 form describes. */
const SPECIAL: Record<string, () => Schema> = {
  'apimachinery.pkg.util.intstr.IntOrString': () => ({ 'x-kubernetes-int-or-string': true }),
  // A quantity is written as a string and read from a string or a number.
  'apimachinery.pkg.api.resource.Quantity': () => ({ 'x-kubernetes-int-or-string': true }),
  [`${META}.Time`]: () => ({ type: 'string', format: 'date-time' }),
  [`${META}.MicroTime`]: () => ({ type: 'string', format: 'date-time' }),
  [`${META}.FieldsV1`]: () => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  'apimachinery.pkg.runtime.RawExtension': () => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
};

const resolved = new Map<string, Schema>();
const names = new WeakMap<Schema, string>();
/** A property that refers to a definition and adds extensions of its own (e.g. a patch strategy). */
const views = new WeakMap<Schema, { name: string; extras: Record<string, unknown> }>();

/** The definition name a resolved schema object was made from, if any. */
export function definitionNameOf(s: Schema): string | undefined {
  return names.get(s);
}

/** For a property that refers to a definition with extensions of its own: the definition and those extensions. */
export function definitionViewOf(s: Schema): { name: string; extras: Record<string, unknown> } | undefined {
  return views.get(s);
}


/** The resolved schema of a definition; throws for an unknown name (a generator or wiring bug). */
export function definitionSchema(name: string): Schema {
  const hit = resolved.get(name);
  if (hit) return hit;
  const def = Object.hasOwn(DEFINITIONS, name) ? DEFINITIONS[name] : undefined;
  if (!def) throw new Error(`no reference definition named ${name}`);
  // Registered before its members are converted, so a recursive definition refers to itself.
  const out: Schema = {};
  resolved.set(name, out);
  names.set(out, name);
  Object.assign(out, SPECIAL[name]?.() ?? convert(def, true));
  return out;
}

function convert(d: Definition, root = false): Schema {
  if (d.$ref) {
    // A property that adds extensions (patch strategy, list type) to a referenced definition gets its own
    // object that shares the referenced members.
    const target = definitionSchema(d.$ref);
    const extra = Object.entries(d).filter(([k]) => k !== '$ref');
    if (extra.length === 0) return target;
    const view: Schema = { ...target };
    for (const [k, v] of extra) (view as Record<string, unknown>)[k] = v;
    views.set(view, { name: d.$ref, extras: Object.fromEntries(extra) });
    return view;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, Definition>).map(([p, ps]) => [p, convert(ps)]));
    } else if (k === 'items' || k === 'additionalProperties') {
      out[k] = typeof v === 'object' && v !== null ? convert(v as Definition) : v;
    } else if (k === 'x-kubernetes-group-version-kind' && !root) {
      continue;
    } else out[k] = v;
  }
  // An object with no declared members holds arbitrary JSON (RawExtension-like definitions).
  if (out.type === 'object' && !out.properties && out.additionalProperties === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out as Schema;
}
