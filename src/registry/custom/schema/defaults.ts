/**
 * Structural defaulting as the reference does it: a property's `default` fills an absent field (or a null
 * one the schema does not allow to be null), a deep copy each time, and defaulting continues inside
 * what was filled, into array items and map values.
 */
import type { Node } from './node.js';

const isNonNullableNull = (v: unknown, s: Node | undefined): boolean => v === null && !!s && !s.nullable;

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Whether defaulting can change anything below `node` (so rule-free, default-free subtrees are skipped). */
export function markDefaults(node: Node): boolean {
  let any = false;
  for (const s of node.properties?.values() ?? []) any = markDefaults(s) || s.hasDefault || any;
  if (node.items) any = markDefaults(node.items) || node.items.hasDefault || any;
  const ap = node.additionalProperties;
  if (ap && ap !== true) any = markDefaults(ap) || ap.hasDefault || any;
  defaultsBelow.set(node, any);
  return any;
}

const defaultsBelow = new WeakMap<Node, boolean>();

/** Fills defaults in place below `node`; answers whether anything was filled in (a read can then skip re-encoding). */
export function applyDefaultsTo(x: unknown, node: Node | undefined): boolean {
  if (!node || x === null || typeof x !== 'object' || defaultsBelow.get(node) === false) return false;
  let filled = false;
  if (Array.isArray(x)) {
    const items = node.items;
    if (!items) return false;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items.hasDefault) {
        x[i] = structuredClone(items.default);
        filled = true;
      }
      if (applyDefaultsTo(x[i], items)) filled = true;
    }
    return filled;
  }
  const o = x as Record<string, unknown>;
  if (node.properties) {
    for (const [k, s] of node.properties) {
      if (s.hasDefault && (!Object.hasOwn(o, k) || isNonNullableNull(o[k], s))) {
        setOwn(o, k, structuredClone(s.default));
        filled = true;
      }
      if (Object.hasOwn(o, k) && applyDefaultsTo(o[k], s)) filled = true;
    }
    return filled;
  }
  const ap = node.additionalProperties;
  if (!ap || ap === true) return false;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    if (isNonNullableNull(o[k], ap) && ap.hasDefault) {
      o[k] = structuredClone(ap.default);
      filled = true;
    }
    if (applyDefaultsTo(o[k], ap)) filled = true;
  }
  return filled;
}
