/**
 * Bounds on what one request may make the server hold (spec 8): body size, nesting depth, and the checks
 * that enforce them on bytes (before parsing) and on decoded values (after parsing YAML or protobuf).
 * Everything here is iterative, so a hostile input can never overflow the call stack while being checked.
 */

/** Largest request body in bytes: 3 MiB, the reference's default. Patch results are held to it too. */
export const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

/**
 * Deepest nesting of objects and arrays in any decoded body or patch result. The reference accepts 10,000
 * levels of JSON; this server's walks (clone, equality, merges, field sets, validation) and the YAML
 * library recurse, and the first of them overflow the default stack at 600 to 1,200 levels. Built-in
 * objects nest fewer than 30 levels, so 256 keeps every walk at well under half of its capacity.
 */
export const MAX_NESTING_DEPTH = 256;

/** Most operations in one JSON patch, as the reference allows. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when a JSON text nests objects and arrays deeper than `max`. Brackets inside strings do not count;
 * invalid JSON is left for the parser to report. O(n) with strings skipped by `indexOf`.
 */
export function jsonNestingExceeds(text: Uint8Array, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i];
    if (c === QUOTE) {
      i = jsonStringEnd(text, i);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that closes the JSON string opened at `start` (or the end of the text). */
export function jsonStringEnd(text: Uint8Array, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf(QUOTE, i);
    if (q < 0) return text.length;
    let backslashes = 0;
    for (let j = q - 1; text[j] === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return q;
    i = q + 1;
  }
}

export interface TreeLimits {
  maxDepth: number;
  /** Bound on the value's JSON size, counting a shared (aliased) part once per reference. */
  maxBytes: number;
  /**
   * The value may be a graph (YAML aliases make shared and even cyclic references): detect cycles and
   * report sharing. Plain JSON and protobuf decodes are trees and skip the bookkeeping.
   */
  graph?: boolean;
}

export type TreeReport =
  | { ok: true; depth: number; bytes: number; shared: boolean }
  | { ok: false; problem: 'depth' | 'size' | 'cycle' };

/** Marks, on the walk's stack, the point where a container's children are done (cycle bookkeeping). */
const LEAVE = -1;

/**
 * Depth and JSON size of a decoded value, stopping as soon as a limit is passed, so the cost of the walk is
 * bounded by the limits rather than by what aliases expand to. Depth counts containers: `{}` is 1.
 */
export function inspectTree(value: unknown, limits: TreeLimits): TreeReport {
  const nodes: unknown[] = [value];
  const levels: number[] = [1];
  const ancestors = limits.graph ? new Set<object>() : undefined;
  const seen = limits.graph ? new Set<object>() : undefined;
  let depth = 0;
  let bytes = 0;
  let shared = false;
  while (nodes.length > 0) {
    const node = nodes.pop();
    const level = levels.pop() as number;
    if (level === LEAVE) {
      ancestors?.delete(node as object);
      continue;
    }
    if (!isContainer(node)) {
      bytes += scalarBytes(node);
      if (bytes > limits.maxBytes) return { ok: false, problem: 'size' };
      continue;
    }
    if (level > limits.maxDepth) return { ok: false, problem: 'depth' };
    if (level > depth) depth = level;
    if (ancestors && seen) {
      if (ancestors.has(node)) return { ok: false, problem: 'cycle' };
      if (seen.has(node)) shared = true;
      else seen.add(node);
      ancestors.add(node);
      nodes.push(node);
      levels.push(LEAVE);
    }
    if (Array.isArray(node)) {
      bytes += node.length + 1; // brackets and commas
      for (let i = node.length - 1; i >= 0; i--) {
        nodes.push(node[i]);
        levels.push(level + 1);
      }
    } else {
      const o = node as Record<string, unknown>;
      bytes += 1;
      for (const k in o) {
        if (!Object.hasOwn(o, k)) continue;
        bytes += k.length + 4; // quotes, colon, comma
        nodes.push(o[k]);
        levels.push(level + 1);
      }
    }
    if (bytes > limits.maxBytes) return { ok: false, problem: 'size' };
  }
  return { ok: true, depth, bytes, shared };
}

/** Arrays and plain objects; anything else a parser makes (a YAML timestamp's Date) is a leaf. */
function isContainer(v: unknown): v is object {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Approximate JSON size of a leaf: exact for ASCII strings without escapes, numbers and literals. */
function scalarBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length + 2;
    case 'number':
    case 'bigint':
      return String(v).length;
    case 'boolean':
      return v ? 4 : 5;
    case 'object':
      return v === null ? 4 : 24; // a Date's ISO form, or another parser object
    default:
      return 4;
  }
}
